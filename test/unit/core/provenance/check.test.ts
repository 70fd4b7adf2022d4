import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkRun } from '../../../../src/core/provenance/check';
import { datasetOfQrels, readSidecar } from '../../../../src/core/provenance/record';
import { runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { runFuse, FUSION_DEFAULTS } from '../../../../src/core/retrieval/fusion/run';
import { TUNE_DEFAULTS, tuneBm25 } from '../../../../src/core/tune/tune';
import { smallDataset } from '../../../helpers/neuralFixtures';

const ROOT = resolve(__dirname, '../../../..');

describe('provenance: runs made on other data than the qrels\' dataset are flagged', () => {
  let dir: string;
  let dataset: string;
  let qrels: string;
  let run: string;
  const on = () => ({ qrels, dataset: datasetOfQrels(qrels) });
  const bm25 = (out: string, extra: { queries?: string } = {}) =>
    runBm25({ dataset, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out, ...extra });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-provenance-'));
    dataset = smallDataset(dir).dir;
    qrels = join(dataset, 'qrels', 'test.tsv');
    run = join(dataset, 'runs', 'bm25.trec');
    await bm25(run);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records the corpus, queries and qrels with their hashes and counts; an untouched dataset gives no warning', async () => {
    const p = readSidecar(run)!.provenance!;
    assert.equal(p.inputs.corpus!.path, join(dataset, 'corpus.jsonl'));
    assert.match(p.inputs.corpus!.sha256, /^[0-9a-f]{64}$/);
    assert.equal(p.inputs.qrels!.judgements, 6);
    assert.equal(datasetOfQrels(qrels), dataset);
    assert.deepEqual(await checkRun(run, on()), []);
  });

  it('one changed byte of the corpus (same size) is caught; restoring it clears the warning', async () => {
    const corpus = join(dataset, 'corpus.jsonl');
    const original = readFileSync(corpus);
    const changed = Buffer.from(original);
    const at = changed.indexOf('"text": "') + 9;
    changed[at] = changed[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(corpus, changed);
    const w = await checkRun(run, on());
    assert.equal(w.length, 1);
    assert.equal(w[0].kind, 'corpus');
    assert.match(w[0].message, /has changed since/);
    writeFileSync(corpus, original);
    assert.deepEqual(await checkRun(run, on()), []);
  });

  it('a qrels line added since the run was made is caught, naming the judgement counts then', async () => {
    const before = readFileSync(qrels);
    const st = statSync(qrels);
    appendFileSync(qrels, 'q1\tnew-doc\t1\n');
    const w = await checkRun(run, on());
    assert.deepEqual(w.map((x) => x.kind), ['qrels']);
    assert.match(w[0].message, /held 6 judgements of 6 queries/);
    writeFileSync(qrels, before);
    utimesSync(qrels, st.atime, st.mtime);
    assert.deepEqual(await checkRun(run, on()), []);
  });

  it('a run on a copy of the dataset is fine; on another corpus, or with other queries, it is flagged', async () => {
    const copy = join(dir, 'copy');
    cpSync(dataset, copy, { recursive: true });
    assert.deepEqual(await checkRun(run, { qrels: join(copy, 'qrels', 'test.tsv'), dataset: copy }), []);
    const other = join(dir, 'other');
    cpSync(dataset, other, { recursive: true });
    appendFileSync(join(other, 'corpus.jsonl'), '{"_id": "extra", "title": "", "text": "one more document"}\n');
    const w = await checkRun(run, { qrels: join(other, 'qrels', 'test.tsv'), dataset: other });
    assert.deepEqual(w.map((x) => x.kind), ['corpus']);
    assert.match(w[0].message, /not on this dataset's/);
    const edited = join(dir, 'edited.jsonl');
    const text = readFileSync(join(dataset, 'queries.jsonl'), 'utf8');
    writeFileSync(edited, text.replace('{"_id":"q1","text":"', '{"_id":"q1","text":"edited '));
    assert.notEqual(readFileSync(edited, 'utf8'), text);
    const whatIf = join(dir, 'whatif.trec');
    await bm25(whatIf, { queries: edited });
    const q = await checkRun(whatIf, on());
    assert.deepEqual(q.map((x) => x.kind), ['queries']);
    assert.match(q[0].message, /made with the queries of .*edited.jsonl/);
  });

  it('a fused run is checked through its inputs, and flagged when an input changed since', async () => {
    const second = join(dir, 'second.trec');
    await runBm25({ dataset, split: 'test', k1: 1.2, b: 0.75, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: second });
    const fused = join(dir, 'fused.trec');
    await runFuse({ runs: [run, second], fusion: FUSION_DEFAULTS, tag: null, out: fused });
    assert.deepEqual(await checkRun(fused, on()), []);
    appendFileSync(qrels, 'q2\tanother\t1\n');
    const w = await checkRun(fused, on());
    assert.deepEqual(w.map((x) => x.kind), ['qrels', 'qrels']);
    assert.match(w[0].message, /^input bm25.trec: made when test.tsv held 6 judgements/);
    appendFileSync(second, 'q1 Q0 extra 11 0.1 x\n');
    assert.ok((await checkRun(fused, on())).some((x) => x.kind === 'input' && /second.trec .* has changed or gone since/.test(x.message)));
  });

  it('a tuned run is flagged once the qrels change: its tuning figures were computed on the judgements then', async () => {
    const tuned = join(dir, 'tuned.trec');
    const qrelsBefore = readFileSync(qrels);
    const st = statSync(qrels);
    await tuneBm25({ ...TUNE_DEFAULTS, folds: 2, resamples: 100, dataset, split: 'test', fields: 'flat', topK: 10, removeQuery: true, cacheDir: null, grid: { k1: [0.9, 1.5], b: [0.4], rm3: null }, out: tuned });
    assert.deepEqual(await checkRun(tuned, on()), []);
    appendFileSync(qrels, 'q3\tanother-doc\t1\n');
    const w = await checkRun(tuned, on());
    assert.deepEqual(w.map((x) => x.kind), ['qrels']);
    assert.match(w[0].message, /has changed since: the run answers the queries judged then, and its tuning figures were computed on those judgements$/);
    writeFileSync(qrels, qrelsBefore);
    utimesSync(qrels, st.atime, st.mtime);
  });

  it('irw compare warns on stderr and its caption names the qrels state and judgement count', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'compare', qrels, run, join(dir, 'whatif.trec'), '-m', 'P.5', '--resamples', '100'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /irw compare: warning: .*whatif.trec: made with the queries of/);
    assert.match(r.stderr, /warning: .*bm25.trec: made when test.tsv held 6 judgements/);
    assert.match(r.stdout, /qrels .*test.tsv;\s+7 judgements of 6 queries in the qrels, sha256 [0-9a-f]{12};\s+2 provenance warnings/);
    // One byte of the corpus changed (same size): the run made on it is flagged too.
    const corpus = join(dataset, 'corpus.jsonl');
    const bytes = readFileSync(corpus);
    const at = bytes.indexOf('"text": "') + 9;
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(corpus, bytes);
    const again = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'compare', qrels, run, join(dir, 'whatif.trec'), '-m', 'P.5', '--resamples', '100', '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /warning: .*bm25.trec: made on .*corpus.jsonl \(sha256 [0-9a-f]{12}\), which has changed since/);
    assert.ok(JSON.parse(again.stdout).warnings.some((w: { kind: string }) => w.kind === 'corpus'));
  });
});
