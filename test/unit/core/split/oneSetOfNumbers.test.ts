// One split state, every view derived from it: after each judgement of a sequence (relevant, non-relevant, an
// undo, an original grade overridden), the Results table, the Diff, the Holes panel's meter and the Judge
// sidebar's meter give the same pair the same Δ (b - a), the same range, hole and query counts, and name the
// same qrels state; and a run the comparison does not involve changes none of it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffModel } from '../../../../src/core/split/diff';
import { holesModel } from '../../../../src/core/split/holes';
import { impactQueue, pairState } from '../../../../src/core/split/judging';
import { resultsModel } from '../../../../src/core/split/results';
import { RESULT_MEASURES } from '../../../../src/core/split/scores';
import type { HoleVerdict } from '../../../../src/protocol/webview';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import { needsShared, SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const A = join(RUNS, 'bm25okapi.knarfthekant.trec');
const B = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const C = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');
const NDCG = RESULT_MEASURES.findIndex((m) => m.key === 'ndcg_cut_10');

/** What a verdict says to a person: the range, the verdict, the counts (Δ itself is compared apart). */
const said = (v: HoleVerdict) => ({ lo: v.lo, hi: v.hi, exact: v.exact, verdict: v.verdict, direction: v.direction, openQueries: v.openQueries, openHoles: v.openHoles, holes: v.holes, significant: v.significant });

test('results, diff, holes and judge models agree on one pair after every judgement, and on the qrels they used', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(s, [A, B, C]);
  const pooled = [A, B, C];
  const first = impactQueue(s, pooled, 10)!.items;
  const original = s.qrels('original');
  const judged = original.queryIds()[5];
  const steps: [string, string, number][] = [
    [first[0].queryId, first[0].docId, 1],
    [first[1].queryId, first[1].docId, 0],
    [first[2].queryId, first[2].docId, 1],
    [first[0].queryId, first[0].docId, -1], // undo to unjudged
    [judged, original.judgements(judged)!.docs[0], 0], // override an original grade
  ];
  // Before any judgement (original qrels), then after each step.
  for (const step of [null, ...steps]) {
    if (step) s.judge(...step);
    const results = resultsModel(s, A, { skipped: [] });
    const diff = diffModel(s, A, B);
    const holes = holesModel(s, { runs: pooled, depth: 10, listed: 20, order: 'impact' });
    const sidebar = await pairState(s, { impact: { runs: pooled, depth: 10 } });
    const row = results.rows.find((r) => r.key === B)!;
    const settled = row.settled![NDCG]!;
    const meters = [holes.meter!, sidebar.meter!];
    const at = `after ${s.version} judgement(s)`;

    // One Δ, b - a: the tests', the Diff's means, the range's and both meters'.
    const delta = diff.meanB - diff.meanA;
    for (const [what, x] of [['t-test Δ', row.vsBaseline![NDCG]!.delta], ['settled Δ', settled.delta], ['diff range Δ', diff.range!.delta], ...meters.map((m, i) => [`meter ${i} Δ`, m.verdict.delta] as const)] as const) {
      assert.ok(Math.abs(x - delta) < 1e-12, `${what} ${x} vs the diff's ${delta}, ${at}`);
    }
    // One range and one count of what can still flip it.
    assert.deepEqual(said(diff.range!), said(settled), `diff vs results, ${at}`);
    for (const m of meters) {
      assert.deepEqual(said(m.verdict), said(settled), `meter vs results, ${at}`);
      assert.deepEqual([m.a.key, m.b.key], [A, B], 'the meter names a and b as the diff does');
    }
    // One qrels state, named the same everywhere (the tests were computed on it, not on the original qrels).
    const label = s.label();
    assert.equal(label.state, s.version === 0 ? 'original' : 'annotated');
    for (const [what, l] of [['results', results.qrels], ['tests', results.significanceOn], ['diff', diff.qrels], ...meters.map((m, i) => [`meter ${i}`, m.qrels] as const)] as const) {
      assert.deepEqual(l, label, `${what}, ${at}`);
    }
    assert.equal(results.judgements, s.judgementCount);
    assert.equal(diff.judgements, s.judgementCount);
    assert.equal(sidebar.judged, s.judgementCount);
  }

  // A run the pair does not involve leaves its figures as they were.
  const before = diffModel(s, A, B);
  const settledBefore = resultsModel(s, A, { skipped: [] }).rows.find((r) => r.key === B)!.settled![NDCG]!;
  s.removeRun(C);
  const after = diffModel(s, A, B);
  assert.deepEqual(said(after.range!), said(before.range!));
  assert.deepEqual(said(resultsModel(s, A, { skipped: [] }).rows.find((r) => r.key === B)!.settled![NDCG]!), said(settledBefore));
});
