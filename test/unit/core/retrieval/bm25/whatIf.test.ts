import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../../../../../src/core/eval';
import { readDatasetQueries } from '../../../../../src/core/formats/datasetFolder';
import { writeEditedQueries } from '../../../../../src/core/formats/editedQueries';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';
import { readSidecar } from '../../../../../src/core/provenance/record';
import { runBm25 } from '../../../../../src/core/retrieval/bm25/run';
import { bm25Settings, LoadedIndexes, openBm25Run, type Bm25RunContext } from '../../../../../src/core/retrieval/bm25/runContext';
import { editedQuery, whatIf } from '../../../../../src/core/retrieval/bm25/whatIf';
import { judgedQueries } from '../../../../../src/core/retrieval/dense/dataset';
import { DATASETS } from '../../../support/paths';
import { inputError } from '../../../support/inputError';

const SCIFACT = join(DATASETS, 'scifact');
const MEASURES = ['ndcg_cut.10', 'recall.100', 'map'];

describe('what-if queries: one query re-run with the run\'s own settings', () => {
  let dir: string;
  let run: string;
  let rm3Run: string;
  let ctx: Bm25RunContext;
  const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
  const indexes = new LoadedIndexes(1);
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-whatif-'));
    run = join(dir, 'bm25.trec');
    rm3Run = join(dir, 'rm3.trec');
    const base = { dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat' as const, topK: 1000, removeQuery: true, queryWeights: null, cacheDir: join(dir, 'cache') };
    await runBm25({ ...base, rm3: null, out: run });
    await runBm25({ ...base, rm3: { fbTerms: 10, fbDocs: 10, originalQueryWeight: 0.5 }, out: rm3Run });
    ctx = await openBm25Run(bm25Settings(readSidecar(run)!.settings, `${run}.json`), indexes);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('with no edit it gives back the run: the same ranking and the same per-query measures, for every query', () => {
    const file = readRun(run);
    const whole = evaluate(qrels, file, { measures: MEASURES, complete: true });
    for (const qid of file.qids) {
      const r = whatIf(ctx, qid, {}, qrels, MEASURES, [{ label: 'run', run: file }], { show: 1000 });
      assert.deepEqual(r.ranking.map((x) => x.docId), file.ranking(qid)!.docs, qid);
      assert.ok(r.ranking.every((x) => x.before[0] === x.rank), `${qid}: every document at its own rank`);
      const q = whole.queries.indexOf(qid);
      r.measures.forEach((m, c) => {
        assert.equal(r.values.edited[c], whole.values[q * whole.columns.length + c], `${qid} ${m}`);
        assert.equal(r.values.runs[0][c], r.values.edited[c], `${qid} ${m}: the run itself`);
      });
    }
  });

  it('an RM3 run re-runs its expansion from the edited query', async () => {
    const rctx = await openBm25Run(bm25Settings(readSidecar(rm3Run)!.settings, `${rm3Run}.json`), indexes);
    const file = readRun(rm3Run);
    const qid = file.qids[0];
    assert.deepEqual(whatIf(rctx, qid, {}, qrels, MEASURES, [], { show: 1000 }).ranking.map((x) => x.docId), file.ranking(qid)!.docs);
    const changed = whatIf(rctx, qid, { text: 'stem cell differentiation' }, qrels, MEASURES, [], { show: 1000 });
    assert.notDeepEqual(changed.ranking.map((x) => x.docId), file.ranking(qid)!.docs);
  });

  it('edits terms: a boost reorders, a weight of 0 drops the term, a typed word is analysed, a stopword is reported', () => {
    const qid = '1';
    const base = ctx.query(qid)!;
    const first = [...base.keys()][0];
    const exact = editedQuery(ctx.analyzer, base, { terms: [...base].map(([term, weight]) => ({ term, weight: term === first ? 0 : weight })) });
    assert.equal(exact.query.has(first), false, 'a weight of 0 drops the term');
    assert.equal(exact.query.size, base.size - 1);
    const typed = editedQuery(ctx.analyzer, new Map(), { terms: [{ term: 'Cells', weight: 2, typed: true }, { term: 'the', weight: 1, typed: true }, { term: 'microstructur', weight: 1 }] });
    assert.deepEqual([...typed.query], [['cell', 2], ['microstructur', 1]], 'typed words are analysed, index terms kept as they are');
    assert.deepEqual(typed.dropped, ['the']);
    const text = editedQuery(ctx.analyzer, base, { text: 'Stem cells' });
    assert.deepEqual([...text.query], [['stem', 1], ['cell', 1]]);
    const boosted = whatIf(ctx, qid, { terms: [...base].map(([term, weight]) => ({ term, weight: term === first ? 5 * weight : weight })) }, qrels, MEASURES, []);
    const plain = whatIf(ctx, qid, {}, qrels, MEASURES, []);
    assert.notDeepEqual(boosted.ranking.slice(0, 10).map((x) => x.docId), plain.ranking.slice(0, 10).map((x) => x.docId));
  });

  it('saved as a queries file, irw run --queries runs the whole split: edited queries as the what-if ranked them, the others as before', async () => {
    const file = readRun(run);
    const texts = readDatasetQueries(join(SCIFACT, 'queries.jsonl'));
    const judged = judgedQueries(SCIFACT, 'test');
    const [textQ, weightQ] = [file.qids[3], file.qids[7]];
    const weights = new Map([...ctx.query(weightQ)!].map(([t, w], i) => [t, i === 0 ? 3 * w : w]));
    const saved = join(dir, 'edited.jsonl');
    const n = writeEditedQueries(
      saved,
      judged.ids.map((id) => ({ id, text: texts.get(id)!.text })),
      new Map([
        [textQ, { text: 'vitamin D deficiency and bone density' }],
        [weightQ, { weights }],
      ]),
    );
    assert.equal(n, 300);
    assert.match(readFileSync(saved, 'utf8').split('\n').find((l) => l.includes(`"_id":"${weightQ}"`))!, /"weights":\{/);
    const out = join(dir, 'edited.trec');
    await runBm25({ dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 1000, removeQuery: true, rm3: null, queryWeights: null, cacheDir: join(dir, 'cache'), queries: saved, out });
    const edited = readRun(out);
    assert.deepEqual(edited.qids, file.qids);
    for (const qid of file.qids) {
      const want =
        qid === textQ
          ? whatIf(ctx, qid, { text: 'vitamin D deficiency and bone density' }, qrels, MEASURES, [], { show: 1000 })
          : qid === weightQ
            ? whatIf(ctx, qid, { terms: [...weights].map(([term, weight]) => ({ term, weight })) }, qrels, MEASURES, [], { show: 1000 })
            : null;
      const docs = edited.ranking(qid)!.docs;
      if (want) assert.deepEqual(docs, want.ranking.map((x) => x.docId), qid);
      else assert.deepEqual(docs, file.ranking(qid)!.docs, qid);
    }
    const sidecar = readSidecar(out)!;
    assert.equal(sidecar.provenance!.inputs.queries!.path, saved, 'the run records the queries file it ran');
  });

  it('a neural run refuses a queries file with term weights, naming it', () => {
    const saved = join(dir, 'weighted.jsonl');
    writeEditedQueries(saved, [{ id: '1', text: 'x' }], new Map([['1', { weights: new Map([['x', 1]]) }]]));
    const e = inputError(() => judgedQueries(SCIFACT, 'test', saved));
    assert.equal(e.file, saved);
    assert.match(e.message, /term weights/);
  });
});
