import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExplainRequests } from '../../../../src/core/engine/explainRequests';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { sha256File } from '../../../../src/core/fileHash';
import { runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { smallDataset } from '../../../helpers/neuralFixtures';

describe('engine: explanation, what-if and provenance requests', () => {
  let dir: string;
  let dataset: string;
  let key: string;
  let bm25: string;
  let other: string;
  let requests: ExplainRequests;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-explain-requests-'));
    dataset = smallDataset(dir).dir;
    key = `${dataset}\ttest`;
    bm25 = join(dataset, 'runs', 'bm25.trec');
    other = join(dataset, 'runs', 'other.trec');
    const base = { dataset, split: 'test', fields: 'flat' as const, topK: 20, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null };
    await runBm25({ ...base, k1: 0.9, b: 0.4, out: bm25 });
    await runBm25({ ...base, k1: 1.5, b: 0.9, out: other });
    const runs = new Map([bm25, other].map((p) => [p, readRun(p)]));
    // As the engine's index: the qrels as read when the split was opened, with the file's hash then.
    const qrelsFile = join(dataset, 'qrels', 'test.tsv');
    const asRead = { qrels: readQrels(qrelsFile), sha256: await sha256File(qrelsFile) };
    requests = new ExplainRequests((d, s) =>
      d === dataset && s === 'test' ? { qrels: () => readQrels(qrelsFile), run: (k) => runs.get(k), relevanceLevel: 1, qrelsAsRead: () => asRead } : undefined,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('explains a run\'s document, reproducing the run file\'s score', async () => {
    const run = readRun(bm25);
    const docId = run.ranking('q1')!.docs[0];
    const e = await requests.explain({ key, run: bm25, queryId: 'q1', docId });
    assert.equal(e.retriever, 'bm25');
    assert.equal(e.reproduced, true);
    assert.equal(e.run.rank, 1);
    assert.deepEqual(e.warnings, []);
  });

  it('the blind pair explanation gives the terms the document holds, and nothing of any run', async () => {
    const docId = readRun(bm25).ranking('q1')!.docs[0];
    const p = await requests.explainPair({ key, queryId: 'q1', docId });
    assert.ok(p.terms.some((t) => t.tf > 0));
    assert.deepEqual(Object.keys(p).sort(), ['b', 'docId', 'k1', 'note', 'queryId', 'terms', 'unknownTerms']);
    assert.ok(!JSON.stringify(p).includes('bm25.trec') && !JSON.stringify(p).includes('other.trec'), 'no run named');
  });

  it('what-if edits are kept per run and saved as a queries file of the whole split', async () => {
    const r = await requests.whatIf({ key, run: bm25, queryId: 'q2', edit: { text: 'a completely different question' }, compare: [bm25, other] });
    assert.equal(r.values.runs.length, 2);
    await requests.whatIf({ key, run: bm25, queryId: 'q3', edit: { terms: [{ term: 'Cells', weight: 2, typed: true }] }, compare: [bm25] });
    const out = join(dir, 'edited.jsonl');
    const saved = await requests.saveWhatIf({ key, run: bm25, out });
    assert.deepEqual(saved, { path: out, queries: 6, edited: 2 });
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { _id: string; text: string; weights?: Record<string, number> });
    assert.deepEqual(lines.map((l) => l._id), ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    assert.equal(lines[1].text, 'a completely different question');
    assert.deepEqual(lines[2].weights, { cell: 2 });
    await assert.rejects(requests.whatIf({ key, run: join(dir, 'nope.trec'), queryId: 'q1', edit: {}, compare: [] }), /records none/);
    await assert.rejects(requests.saveWhatIf({ key, run: other, out }), /no what-if edit/);
  });

  it('results provenance: the qrels state the figures used, and a warning once the qrels change', async () => {
    const before = await requests.resultsProvenance(key, [bm25, other]);
    assert.equal(before.qrels!.judgements, 6);
    assert.equal(before.qrels!.now, undefined);
    assert.deepEqual(before.warnings, []);
    appendFileSync(join(dataset, 'qrels', 'test.tsv'), 'q1\tsomething\t1\n');
    const after = await requests.resultsProvenance(key, [bm25, other]);
    // The figures are still the qrels' as read; the file now differs, and both runs were made before the change.
    assert.equal(after.qrels!.judgements, 6);
    assert.equal(after.qrels!.sha256, before.qrels!.sha256);
    assert.equal(after.qrels!.now!.judgements, 7);
    assert.notEqual(after.qrels!.now!.sha256, before.qrels!.sha256);
    assert.equal(after.warnings.length, 2);
    assert.match(after.warnings[0].message, /held 6 judgements/);
  });

  it('results provenance reads the qrels file again only when its size or mtime changed (a model per judgement must not)', async () => {
    const file = join(dataset, 'qrels', 'test.tsv');
    // A whole second, which utimes sets exactly (a file's own mtime has nanoseconds).
    const mtime = new Date(Math.floor(statSync(file).mtimeMs / 1000) * 1000);
    utimesSync(file, mtime, mtime);
    const first = await requests.resultsProvenance(key, [bm25]);
    // The same size and mtime, other bytes (a grade no qrels reader takes): the same file by sameContent's rule,
    // so not read again; read, it would be an error.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\t1\n$/, '\tX\n'));
    utimesSync(file, mtime, mtime);
    const again = await requests.resultsProvenance(key, [bm25]);
    assert.deepEqual(again.qrels, first.qrels);
    // Touched: described again, and the change is seen.
    const later = new Date(mtime.getTime() + 2000);
    utimesSync(file, later, later);
    await assert.rejects(requests.resultsProvenance(key, [bm25]), /grade 'X'/);
  });
});
