// Which holes each view's ranges are over, computed at once or in background slices with judgements between.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import { RANGE_POOL_DEPTH, RANGED, RANGED_DEPTH } from '../../../../src/core/split/holeRanges';
import { diffNeeds } from '../../../../src/core/split/diff';
import { resultsNeeds } from '../../../../src/core/split/results';
import { pairDeltas, trustPending, trustSteps } from '../../../../src/core/split/underHoles';
import { runSimilarity } from '../../../../src/core/eval/similarity';
import { needsShared, SHARED } from '../../support/paths';
import { diffModel } from '../../../../src/core/split/diff';
import { impactQueue, judgingMeter } from '../../../../src/core/split/judging';
import { pool as splitPool } from '../../../../src/core/split/pool';
import { resultsModel } from '../../../../src/core/split/results';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const FILES = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'];
const EPS = 1e-12;

test('session: results rows and the diff carry ranges and verdicts, the impact queue a meter', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(s, FILES.map((f) => join(RUNS, f)));
  const base = join(RUNS, FILES[0]);
  const m = resultsModel(s, base, { skipped: [], untrusted: false });
  for (const r of m.rows) {
    assert.equal(r.intervals!.length, m.measures.length);
    m.measures.forEach((c, mi) => {
      const iv = r.intervals![mi];
      // No range where none is computed, nor for a measure deeper than the top-10 pool (R@100, MAP): it would not hold.
      if (!(c.key in RANGED) || RANGED_DEPTH[c.key] > RANGE_POOL_DEPTH) return assert.equal(iv, null);
      assert.ok(iv!.lo - EPS <= r.means[mi] && r.means[mi] <= iv!.hi + EPS, `${r.label} ${c.label}`);
    });
    if (r.key === base) assert.equal(r.settled, null);
    else assert.ok(r.settled!.some((v) => v?.verdict === 'open'));
  }
  const d = diffModel(s, base, join(RUNS, FILES[1]));
  assert.equal(d.perQuery!.lo.length, d.queries.length);
  d.deltas.forEach((x, i) => assert.ok(d.perQuery!.lo[i] - EPS <= x && x <= d.perQuery!.hi[i] + EPS, d.queries[i]));
  const byQid = new Map(pairDeltas(s, base, join(RUNS, FILES[1]), 'ndcg_cut_10', d.queries)!.map((x, i) => [d.queries[i], x!]));
  assert.deepEqual(d.perQuery, { lo: d.queries.map((q) => byQid.get(q)!.lo), hi: d.queries.map((q) => byQid.get(q)!.hi) }, 'each query its own range, in the diff\'s order');
  assert.ok(Math.abs(d.range!.delta - (d.meanB - d.meanA)) < 1e-9);
  assert.ok(d.intervalA!.lo <= d.meanA && d.meanA <= d.intervalA!.hi);
  // The diff's RBO per query is the similarity module's (top 100, p = 0.9), a run against itself is 1.
  const sim = runSimilarity(s.run(base), s.run(join(RUNS, FILES[1])), 'rbo', 100).perQuery;
  d.queries.forEach((q, i) => assert.equal(d.rbo![i], sim.get(q), q));
  assert.ok(Math.abs(d.rboMean! - d.rbo!.reduce((x, y) => x + y, 0) / d.rbo!.length) < 1e-12);
  assert.ok(diffModel(s, base, base).rbo!.every((x) => Math.abs(x - 1) < 1e-9), 'a run is its own RBO 1');
  const q = impactQueue(s, [base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10)!;
  assert.equal(q.meter.judged, 0);
  assert.equal(q.meter.verdict.verdict, 'open');
  assert.deepEqual(q.meter.a.key, base);
  assert.equal(new Set(q.items.map((p) => `${p.queryId}\t${p.docId}`)).size, q.items.length, 'no pair twice');
  assert.equal(q.items.length, splitPool(s, [base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10).length, 'the whole pool: impact order first, then the third run\'s holes');
  // Judging the first item moves the meter and takes it out of the queue.
  const first = q.items[0];
  s.judge(first.queryId, first.docId, 1);
  const after = impactQueue(s, [base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10)!;
  assert.equal(after.meter.judged, 1);
  assert.ok(!after.items.some((p) => p.queryId === first.queryId && p.docId === first.docId));
  assert.deepEqual(judgingMeter(s, [base, join(RUNS, FILES[1])], 10), after.meter);
  assert.equal(impactQueue(s, [base], 10), null, 'one run: nothing to compare');
});

test('ranges computed in background slices, with judgements in between, equal ranges computed at once', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const files = FILES.map((f) => join(RUNS, f));
  const sliced = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(sliced, files);
  const pool = splitPool(sliced, files, 10);
  const needs = [...resultsNeeds(sliced, files[0]), ...diffNeeds(files[0], files[1])];
  const steps = trustSteps(sliced, needs);
  // Judge between slices: early in the first run's ranges, then further on, then near the end.
  const at = new Map([
    [50, pool[0]],
    [700, pool[pool.length - 1]],
    [2000, pool[Math.floor(pool.length / 2)]],
  ]);
  let n = 0;
  while (!steps.next().done) {
    const p = at.get(++n);
    if (!p) continue;
    sliced.judge(p.queryId, p.docId, 1);
    // As the engine does: a view asks for its model after the judgement, mid-way through the slices.
    trustPending(sliced, needs);
  }
  assert.ok(n > 2000, `${n} slices`);
  assert.equal(trustPending(sliced, needs), false);
  const once = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(once, files);
  for (const p of at.values()) once.judge(p.queryId, p.docId, 1);
  const strip = (m: ReturnType<typeof resultsModel>) => m.rows.map((r) => [r.intervals, r.settled]);
  assert.deepEqual(strip(resultsModel(sliced, files[0], { skipped: [] })), strip(resultsModel(once, files[0], { skipped: [] })));
  const d = (s: typeof once) => diffModel(s, files[0], files[1]);
  assert.deepEqual([d(sliced).range, d(sliced).perQuery], [d(once).range, d(once).perQuery]);
});
