// The Results panel's per-query Δ on the real SciFact runs: the deltas are the table's comparison query by
// query (their mean is its Δ, their counts its W/T/L), b − a, in the split's query order, on the qrels in effect
// (a judgement moves them), with each query's range over the holes once the table's ranges are computed.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { join } from 'node:path';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import type { SplitState } from '../../../../src/core/split/state';
import { RESULT_MEASURES } from '../../../../src/core/split/scores';
import { queryDeltas } from '../../../../src/core/split/queryDeltas';
import { resultsModel } from '../../../../src/core/split/results';
import { needsShared, SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
const DENSE = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const TFIDF = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');

describe('per-query Δ of a Results comparison on SciFact', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  let s: SplitState;
  before(async () => {
    s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(s, [BM25, DENSE, TFIDF]);
  });

  test('each tested measure: the mean of the deltas is the table\'s Δ, the counts its W/T/L, in the split\'s query order', () => {
    const model = resultsModel(s, BM25, { skipped: [] });
    const order = queryDeltas(s, BM25, DENSE, 'ndcg_cut_10').queries;
    for (const [mi, m] of RESULT_MEASURES.entries()) {
      if (!m.tested) continue;
      for (const run of [DENSE, TFIDF]) {
        const c = model.rows.find((r) => r.key === run)!.vsBaseline![mi]!;
        const d = queryDeltas(s, BM25, run, m.key);
        assert.equal(d.queries.length, 300);
        assert.equal(new Set(d.queries).size, 300);
        assert.ok(Math.abs(d.deltas.reduce((x, y) => x + y, 0) / d.deltas.length - c.delta) < 1e-12, `${m.key}: ${c.delta}`);
        assert.deepEqual({ wins: d.wins, ties: d.ties, losses: d.losses }, { wins: c.wins, ties: c.ties, losses: c.losses });
        // One order for every comparison and measure, whatever the deltas: a judgement changes entries, never the order.
        assert.deepEqual(d.queries, order);
        assert.deepEqual(d.qrels, model.qrels);
      }
    }
    // TF-IDF answers 153 of the 300 queries: the others score 0 for it (trec_eval -c), as in the tests.
    const tfidf = queryDeltas(s, BM25, TFIDF, 'ndcg_cut_10');
    assert.ok(tfidf.losses + tfidf.ties >= 147, `${tfidf.losses} losses, ${tfidf.ties} ties`);
  });

  test('b − a: swapping the runs negates every delta', () => {
    const ab = queryDeltas(s, BM25, DENSE, 'P_10');
    const ba = queryDeltas(s, DENSE, BM25, 'P_10');
    const of = new Map(ba.queries.map((q, i) => [q, ba.deltas[i]]));
    for (const [i, q] of ab.queries.entries()) assert.equal(ab.deltas[i] + of.get(q)!, 0);
    assert.equal(ab.wins, ba.losses);
  });

  test('per-query ranges once the table computed them: each holds its delta; a judgement moves the deltas', () => {
    resultsModel(s, BM25, { skipped: [] });
    const d = queryDeltas(s, BM25, DENSE, 'ndcg_cut_10');
    assert.ok(d.ranges, 'the ranges of a tested pair on nDCG@10');
    let wide = 0;
    for (const [i, v] of d.deltas.entries()) {
      assert.ok(d.ranges.lo[i] <= v + 1e-12 && v <= d.ranges.hi[i] + 1e-12, `${d.queries[i]}: ${v} in [${d.ranges.lo[i]}, ${d.ranges.hi[i]}]`);
      if (d.ranges.hi[i] - d.ranges.lo[i] > 1e-9) wide++;
    }
    assert.ok(wide > 50, `${wide} queries with holes`);
    assert.equal(queryDeltas(s, BM25, DENSE, 'recall_100').ranges, undefined, 'R@100 looks deeper than the top-10 pool');
    // On a query where the dense run scores 0, a hole of its top 10 that BM25's top 10 lacks, judged relevant,
    // raises the dense run's nDCG@10 and cannot raise BM25's: the query's delta rises.
    const top10 = (file: string, q: string) => {
      const run = s.run(file);
      const at = run.queryIndex(q);
      return at < 0 ? [] : [...run.docIds.subarray(run.offsets[at], run.offsets[at] + 10)].map((x) => run.docs.string(x));
    };
    const holeOf = (q: string) => top10(DENSE, q).find((doc) => s.grade(q, doc) === null && !top10(BM25, q).includes(doc));
    const dense = s.scores(DENSE, 'annotated');
    const q = d.queries.find((x) => dense.columns[0][dense.queries.indexOf(x)] === 0 && holeOf(x) !== undefined)!;
    s.judge(q, holeOf(q)!, 1);
    const after = queryDeltas(s, BM25, DENSE, 'ndcg_cut_10');
    assert.equal(after.qrels.state, 'annotated');
    assert.ok(after.deltas[after.queries.indexOf(q)] > d.deltas[d.queries.indexOf(q)], 'the judged query\'s delta rose');
    assert.deepEqual(after.queries, d.queries, 'in the same order');
  });

  test('an untested measure is refused with the tested ones named', () => {
    assert.throws(() => queryDeltas(s, BM25, DENSE, 'hole_10'), /hole_10 is not a measure the Results table tests \(nDCG@10, R@100, MAP, MRR@10, P@10\)/);
  });
});
