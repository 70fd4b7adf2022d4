// The Results panel's model on the real SciFact data and runs in ../shared: means match trec_eval's reference
// figures, significance matches the tests applied to the per-query values, exports carry the table.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { join } from 'node:path';
import { exportResults } from '../../../../src/core/split/exportTable';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import type { SplitState } from '../../../../src/core/split/state';
import { RESULT_MEASURES } from '../../../../src/core/split/scores';
import { evaluate } from '../../../../src/core/eval';
import { holmAdjust, pairedTTest, randomizationTest } from '../../../../src/core/eval/stats';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import type { ResultsModel } from '../../../../src/protocol/webview';
import { needsShared, SHARED } from '../../support/paths';
import { boxSummary, resultsModel, significanceSteps } from '../../../../src/core/split/results';
import { pairEstimate } from '../../../../src/core/split/estimates';
import { judgingQueue } from '../../../../src/core/split/judging';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
const DENSE = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const TFIDF = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');
const RERANK = join(RUNS, 'neural-rerank.kirloxious.tsv');
const col = (key: string) => RESULT_MEASURES.findIndex((m) => m.key === key);

describe('results model on SciFact', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  let session: SplitState;
  let model: ResultsModel;
  before(async () => {
    session = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    const skipped = await addRunFiles(session, [BM25, DENSE, TFIDF, join(SCIFACT, 'queries.jsonl')]);
    assert.equal(skipped.length, 1, 'queries.jsonl is no run');
    assert.match(skipped[0].reason, /queries\.jsonl/);
    model = resultsModel(session, BM25, { skipped, untrusted: false });
  });

  test('means are trec_eval -c figures (shared/runs/scifact/README.md)', () => {
    assert.equal(model.numQueries, 300);
    const row = (f: string) => model.rows.find((r) => r.key === f)!;
    const at = (f: string, key: string) => +row(f).means[col(key)].toFixed(4);
    assert.equal(at(BM25, 'ndcg_cut_10'), 0.5597);
    assert.equal(at(DENSE, 'ndcg_cut_10'), 0.6451);
    assert.equal(at(DENSE, 'recall_100'), 0.925);
    assert.equal(at(TFIDF, 'map'), 0.3071);
    assert.equal(at(BM25, 'P_10'), 0.0763);
    // MRR@10 <= MRR (trec_eval's recip_rank over all 100): only ranks past 10 are lost.
    assert.ok(row(BM25).means[col('recip_rank_10')] <= 0.529 + 1e-4);
    // ... and exactly trec_eval -c -M 10 -m recip_rank.
    for (const f of [BM25, DENSE, TFIDF]) {
      const ref = evaluate(readQrels(join(SCIFACT, 'qrels', 'test.tsv')), readRun(f), { measures: ['recip_rank'], complete: true, maxRetrieved: 10 });
      assert.equal(row(f).means[col('recip_rank_10')], ref.mean.get('recip_rank'));
    }
    assert.equal(row(BM25).annotated, null);
    assert.ok(row(BM25).lengths.median > 50 && row(BM25).lengths.queries === 300, JSON.stringify(row(BM25).lengths));
  });


  test('coverage: the shared TF-IDF run answers 153 of the 300 test queries; missing ones count as 0', () => {
    const coverage = (f: string) => model.rows.find((r) => r.key === f)!.coverage;
    assert.deepEqual(coverage(BM25), { answered: 300, total: 300 });
    assert.deepEqual(coverage(TFIDF), { answered: 153, total: 300 });
    assert.equal(model.missingQueries, 'zero');
  });


  test('significance can be computed in steps: pending until the steps ran, then the same as at once', async () => {
    const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(s, [BM25, DENSE, TFIDF]);
    const pending = resultsModel(s, DENSE, { skipped: [], untrusted: false }, { pending: true });
    assert.equal(pending.significancePending, true);
    assert.ok(pending.rows.every((r) => r.vsBaseline === null));
    let steps = 0;
    for (const _ of significanceSteps(s, DENSE)) steps++;
    // Ten steps (of 1,000 randomization trials) per compared run and tested measure, then the bootstrap
    // intervals of all of them at once, 500 resamples a step (10,000: nineteen yields between them).
    assert.equal(steps, 2 * 5 * 10 + 19);
    const done = resultsModel(s, DENSE, { skipped: [], untrusted: false }, { pending: true });
    assert.equal(done.significancePending, false);
    const fresh = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(fresh, [BM25, DENSE, TFIDF]);
    assert.deepEqual(done.rows.map((r) => r.vsBaseline), resultsModel(fresh, DENSE, { skipped: [], untrusted: false }).rows.map((r) => r.vsBaseline));
    assert.equal([...significanceSteps(s, DENSE)].length, 0, 'known: nothing to do');
  });


  test('a judgement re-runs only the tests whose values it moved (a hole judged not relevant moves none), and the tests are those of a split opened on the same judgements', async () => {
    const open = async (): Promise<SplitState> => {
      const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
      await addRunFiles(s, [BM25, DENSE, TFIDF]);
      return s;
    };
    const s = await open();
    const tests = (x: SplitState) => resultsModel(x, DENSE, { skipped: [], untrusted: false }, { pending: true }).rows.map((r) => r.vsBaseline);
    for (const _ of significanceSteps(s, DENSE));
    const first = tests(s);
    assert.ok(first.some((r) => r !== null));
    // Holes of the baseline's top 10: what counted as not relevant already.
    const holes = judgingQueue(s, [DENSE], 10, 'blind').items.filter((p) => s.grade(p.queryId, p.docId) === null);
    s.judge(holes[0].queryId, holes[0].docId, 0);
    assert.equal([...significanceSteps(s, DENSE)].length, 0, 'a hole judged not relevant moves no tested value: nothing is run again');
    assert.equal(resultsModel(s, DENSE, { skipped: [], untrusted: false }, { pending: true }).significancePending, false);
    assert.deepEqual(tests(s), first);
    // A relevant one moves its query's values of the baseline: its comparisons are tested again.
    s.judge(holes[1].queryId, holes[1].docId, 1);
    assert.ok([...significanceSteps(s, DENSE)].length > 0);
    const after = tests(s);
    assert.notDeepEqual(after, first, 'tests kept from before the relevant judgement would be stale');
    const fresh = await open();
    fresh.judge(holes[0].queryId, holes[0].docId, 0);
    fresh.judge(holes[1].queryId, holes[1].docId, 1);
    assert.deepEqual(after, resultsModel(fresh, DENSE, { skipped: [], untrusted: false }).rows.map((r) => r.vsBaseline));
  });


  test('significance against the baseline is the tests on the per-query values, Holm over the two compared runs', () => {
    const ni = col('ndcg_cut_10');
    const base = session.scores(BM25, 'original').columns[ni];
    const p = [DENSE, TFIDF].map((k) => pairedTTest(session.scores(k, 'original').columns[ni], base).p);
    const dense = model.rows.find((r) => r.key === DENSE)!.vsBaseline![ni]!;
    assert.equal(dense.tP, p[0]);
    assert.equal(dense.tPHolm, holmAdjust(p)[0]);
    assert.equal(dense.randP, randomizationTest(session.scores(DENSE, 'original').columns[ni], base, { trials: 10_000, seed: 1 }));
    assert.ok(dense.tPHolm < 0.05 && dense.delta > 0.08, 'MiniLM beats rank_bm25 on SciFact');
    assert.equal(dense.wins + dense.ties + dense.losses, 300);
    assert.equal(model.rows.find((r) => r.key === BM25)!.vsBaseline, null);
    assert.equal(model.rows.find((r) => r.key === DENSE)!.vsBaseline![col('hole_10')], null, 'coverage is not tested');
  });


  test('exports: Markdown, CSV and LaTeX carry every run and measure', () => {
    const md = exportResults(model, 'markdown');
    assert.match(md, /\| Run \| Queries \| nDCG@10 \| R@100 \| MAP \| MRR@10 \| P@10 \| Judged@10 \| Hole@10 \|/);
    assert.match(md, /\| vsm-tfidf\.titles_fulltext\.omar-khattab \| 153\/300 \| 0\.3348/);
    assert.match(md, /counts as 0 in the means and tests \(trec_eval -c\): vsm-tfidf\.titles_fulltext\.omar-khattab answers 153 of 300\./);
    assert.match(md, /bm25okapi\.knarfthekant \(baseline\) \| 300\/300 \| 0\.5597/);
    assert.match(md, /minilm-faiss\.knarfthekant \| 300\/300 \| 0\.6451\*†/);
    const csv = exportResults(model, 'csv').trim().split('\r\n');
    assert.equal(csv.length, 4);
    // The columns of before, then the qrels state, the original figures with their ranges, each comparison's interval, adjusted p and verdict, and its estimate.
    assert.equal(csv[0].split(',').length, 3 + 7 + 5 * 8 + 2 + 3 + 7 * 3 + 5 * 8 + 5 * 5);
    // Text quoted, numbers bare (src/core/formats/csv.ts); no field here holds a comma.
    assert.ok(csv[0].includes(',"queries_answered","queries_total","qrels","judgements","correction","ndcg_cut_10_original","ndcg_cut_10_lo","ndcg_cut_10_hi",'));
    assert.ok(csv.slice(1).every((l) => l.split(',').length === csv[0].split(',').length));
    assert.ok(csv.some((l) => l.startsWith('"vsm-tfidf') && l.includes(',153,300,"original",0,"holm",')));
    const tex = exportResults(model, 'latex');
    assert.match(tex, /\\begin\{tabular\}\{lrrrrrrr\}/);
    assert.match(tex, /bm25okapi\.knarfthekant \(baseline\) & 0\.5597/);
    assert.match(tex, /0\.6451\$\^\{\*\\dagger\}\$/);
  });
});

test('every pair: each pair carries its estimate (b - a), not only the pairs with the baseline; the export carries them', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(s, [BM25, DENSE, RERANK]);
  // One hole of MiniLM's judged: the export shows estimates once a hole is judged (before, they are the prior).
  const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
  const qid = qrels.queryIds()[0];
  const hole = readRun(DENSE).ranking(qid)!.docs.find((d) => qrels.grade(qid, d) === undefined)!;
  s.judge(qid, hole, 0);
  const m = resultsModel(s, BM25, { skipped: [] }, { testing: { compare: 'all-pairs', correction: 'holm' } });
  const pair = (a: string, b: string) => m.pairs!.find((p) => p.a === a && p.b === b)!;
  const ni = col('ndcg_cut_10');
  for (const [a, b] of [[BM25, DENSE], [DENSE, RERANK]]) {
    const e = pair(a, b).estimates![ni]!;
    assert.ok(e.lo <= e.estimate && e.estimate <= e.hi, `${a} vs ${b}: ${JSON.stringify(e)}`);
    assert.deepEqual(e, pairEstimate(s, a, b, 'ndcg_cut_10'), 'the pair\'s own estimate, b - a');
  }
  assert.deepEqual(pair(BM25, DENSE).estimates, m.rows.find((r) => r.key === DENSE)!.compared, 'against the baseline: the row\'s');
  assert.equal(pair(DENSE, RERANK).estimates![col('hole_10')], null, 'coverage is not compared');
  const csv = exportResults(m, 'csv').split('\r\n\r\n')[1].trim().split('\r\n');
  const at = csv[0].split(',').indexOf('"estimate"');
  const row = csv.find((l) => l.startsWith('"minilm-faiss.knarfthekant","neural-rerank.kirloxious","ndcg_cut_10"'))!.split(',');
  const e = pair(DENSE, RERANK).estimates![ni]!;
  assert.equal(e.judged, 1);
  assert.ok(Math.abs(Number(row[at]) - e.estimate) < 1e-11 && Math.abs(Number(row[at + 1]) - e.lo) < 1e-11, `${row.slice(at).join(',')} against ${JSON.stringify(e)}`);
});

test('box summaries: quartiles by linear interpolation, as numpy', () => {
  assert.deepEqual(boxSummary([4, 1, 3, 2]), { min: 1, q1: 1.75, median: 2.5, q3: 3.25, max: 4, mean: 2.5, queries: 4 });
});
