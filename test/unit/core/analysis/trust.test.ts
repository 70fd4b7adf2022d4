// Trust under holes in the analysis views: the per-query bookkeeping of src/core/analysis/trust.ts. A
// judgement re-ranges only its query and gives what a fresh computation gives; MRR@10 differences match brute
// force; the scores the session shows lie in their ranges on real SciFact runs; the impact queue follows the
// judgements (and undos) and is blind.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { addRunFiles, loadSession } from '../../../helpers/splitSession';
import { RESULT_MEASURES, scoreRun } from '../../../../src/core/analysis/scores';
import { HoleRanges, ImpactJudging, RANGED } from '../../../../src/core/analysis/trust';
import { evaluate } from '../../../../src/core/eval';
import { HoleScorer, prepareHoles } from '../../../../src/core/eval/holes';
import { runSimilarity } from '../../../../src/core/eval/similarity';
import { Qrels, readQrels } from '../../../../src/core/formats/qrels';
import { readRun, Run } from '../../../../src/core/formats/run';
import { bruteForce, randomCase } from '../eval/holes/bruteForce';
import { needsShared, SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const FILES = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'];
const EPS = 1e-12;

/** qrels with the given extra judgements (the session's overlay, theirs last). */
function withJudgements(q: Qrels, extra: { qid: string; docid: string; grade: number }[]): Qrels {
  const all: { qid: string; docid: string; grade: number }[] = [];
  for (const qid of q.queryIds()) {
    const j = q.judgements(qid)!;
    j.docs.forEach((docid, i) => all.push({ qid, docid, grade: j.grades[i] }));
  }
  return Qrels.fromJudgements([...all, ...extra], 'last');
}

describe('HoleRanges on SciFact (three shared runs)', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const qrels = readQrels(join(SCIFACT, 'qrels/test.tsv'));
  const runs = new Map<string, Run>(FILES.map((f) => [f, readRun(join(RUNS, f))]));
  const columns = Object.keys(RANGED);

  test('every shown score lies in its range, per query and as a mean; the range is a point where no hole is left', () => {
    const h = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const f of FILES) {
      const s = scoreRun(qrels, runs.get(f)!, { complete: true, relevanceLevel: 1 });
      for (const c of columns) {
        const mi = RESULT_MEASURES.findIndex((m) => m.key === c);
        const per = h.perQuery(f, c);
        const pos = new Map(prepareHoles(qrels, [runs.get(f)!]).queries.map((q, i) => [q.qid, i]));
        s.queries.forEach((qid, i) => {
          const qi = pos.get(qid)!;
          const v = s.columns[mi][i];
          assert.ok(per.lo[qi] - EPS <= v && v <= per.hi[qi] + EPS, `${f} ${c} ${qid}: ${v} not in [${per.lo[qi]}, ${per.hi[qi]}]`);
          if (per.holes[qi] === 0) assert.ok(Math.abs(per.hi[qi] - per.lo[qi]) < EPS);
        });
        const r = h.range(f, c, s.queries);
        assert.ok(r.lo - EPS <= s.means[mi] && s.means[mi] <= r.hi + EPS, `${f} ${c}: mean ${s.means[mi]} not in [${r.lo}, ${r.hi}]`);
        assert.ok(r.holes > 0 && r.hi - r.lo > 0.01, 'SciFact top 10s have holes: the range is not a point');
      }
    }
  });

  test('build() prepares the pool a slice at a time, yielding between slices, into the ranges the constructor gives', () => {
    const input = { qrels, runs, scale: [0, 1], relevanceLevel: 1 };
    const steps = HoleRanges.build(input);
    let yields = 0;
    let r = steps.next();
    for (; !r.done; r = steps.next()) yields++;
    // 300 queries, 200 a slice: one pause (a 10,000-query split has 49, instead of one 0.3-0.7 s piece).
    assert.equal(yields, Math.ceil(qrels.queryIds().length / 200) - 1);
    const sync = new HoleRanges(input);
    for (const c of ['ndcg_cut_10', 'map']) assert.deepEqual(r.value.range(FILES[0], c), sync.range(FILES[0], c));
  });

  test('the judged-only figure of each range is trec_eval -J (-c) on the same qrels; MRR@10 has none (-J comes after -M)', () => {
    const h = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const f of FILES) {
      const e = evaluate(qrels, runs.get(f)!, { complete: true, judgedOnly: true, measures: ['ndcg_cut.10', 'recall.100', 'map', 'P.10'] });
      for (const [column, name] of [['ndcg_cut_10', 'ndcg_cut_10'], ['recall_100', 'recall_100'], ['map', 'map'], ['P_10', 'P_10']]) {
        const c = e.columns.findIndex((x) => x.name === name);
        const r = h.range(f, column, e.queries);
        assert.ok(Math.abs(r.judgedOnly! - e.summary[c]) < 1e-9, `${f} ${column}: ${r.judgedOnly} vs -J ${e.summary[c]}`);
      }
      assert.equal(h.range(f, 'recip_rank_10').judgedOnly, undefined);
    }
  });

  test('a judgement re-ranges only its query, and gives what a fresh computation on the new qrels gives', () => {
    const h = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const c of columns) for (const f of FILES) h.perQuery(f, c);
    for (const c of columns) h.verdict(FILES[1], FILES[0], c);
    // Judge the first two holes of the first query that has any: one relevant, one not.
    const set = prepareHoles(qrels, [...runs.values()]);
    const q = set.queries.find((x) => x.holes.length >= 2)!;
    const next = withJudgements(qrels, [
      { qid: q.qid, docid: q.holes[0], grade: 1 },
      { qid: q.qid, docid: q.holes[1], grade: 0 },
    ]);
    assert.equal(h.update(next), 1);
    assert.equal(h.update(next), 0, 'the same qrels again: nothing to do');
    const fresh = new HoleRanges({ qrels: next, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const c of columns) {
      for (const f of FILES) assert.deepEqual(h.range(f, c), fresh.range(f, c), `${f} ${c}`);
      assert.deepEqual(h.verdict(FILES[1], FILES[0], c), fresh.verdict(FILES[1], FILES[0], c), c);
    }
    // And back (an undo): the ranges of the original qrels.
    assert.equal(h.update(qrels), 1);
    const orig = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const c of columns) assert.deepEqual(h.verdict(FILES[1], FILES[0], c), orig.verdict(FILES[1], FILES[0], c), c);
    // Told which query changed (qrels changed in place): the same as a fresh computation.
    const told = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    for (const c of columns) told.verdict(FILES[1], FILES[0], c);
    told.updateQueries(next, [q.qid]);
    for (const c of columns) {
      assert.deepEqual(told.verdict(FILES[1], FILES[0], c), fresh.verdict(FILES[1], FILES[0], c), c);
      assert.deepEqual(told.range(FILES[2], c), fresh.range(FILES[2], c), c);
    }
  });

  test('a verdict is kept until a delta of its pair changes; judgements give what a fresh computation gives, significance included', () => {
    const h = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    const before = h.verdict(FILES[1], FILES[0], 'ndcg_cut_10');
    assert.equal(h.verdict(FILES[1], FILES[0], 'ndcg_cut_10'), before, 'asked again: the kept answer');
    // Summed from the kept columns: what the per-query deltas themselves give, in the same order.
    const ds = h.queryDeltas(FILES[1], FILES[0], 'ndcg_cut_10');
    const sum = (f: (d: (typeof ds)[number]) => number) => ds.reduce((acc, d) => acc + f(d) / ds.length, 0);
    const open = ds.filter((d) => d.hi - d.lo > 1e-12);
    assert.deepEqual(
      [before.delta, before.lo, before.hi, before.holes, before.exact, before.openQueries, before.openHoles],
      [sum((d) => d.value), sum((d) => d.lo), sum((d) => d.hi), ds.reduce((acc, d) => acc + d.holes, 0), ds.every((d) => d.exact), open.length, open.reduce((acc, d) => acc + d.holes, 0)],
    );
    const ordered = prepareHoles(qrels, [...runs.values()]).queries.map((q) => q.qid).reverse();
    const inOrder = h.verdict(FILES[1], FILES[0], 'ndcg_cut_10', ordered);
    assert.notEqual(inOrder, before, 'other queries (or another order of the sums) are another question');
    assert.equal(h.verdict(FILES[1], FILES[0], 'ndcg_cut_10'), before, 'both questions are kept');
    const asked = () => columns.flatMap((c) => [h.verdict(FILES[1], FILES[0], c), h.verdict(FILES[1], FILES[0], c, ordered)]);
    const first = asked();
    // Every hole of the pool judged, a query at a time (as the judge goes): the kept deltas, their columns and
    // the verdicts follow each step, until no hole is left and the ranges are points.
    const extra: { qid: string; docid: string; grade: number }[] = [];
    let next = qrels;
    for (const q of prepareHoles(qrels, [...runs.values()]).queries) {
      if (q.holes.length === 0) continue;
      q.holes.forEach((docid, i) => extra.push({ qid: q.qid, docid, grade: i % 3 === 0 ? 1 : 0 }));
      next = withJudgements(qrels, extra);
      h.updateQueries(next, [q.qid]);
      asked();
    }
    const fresh = new HoleRanges({ qrels: next, runs, scale: [0, 1], relevanceLevel: 1 });
    const last = asked();
    assert.deepEqual(last, columns.flatMap((c) => [fresh.verdict(FILES[1], FILES[0], c), fresh.verdict(FILES[1], FILES[0], c, ordered)]));
    // The judgements moved the figures, and significance at the extremes with them: with no hole left nothing can
    // be lost or gained (so the lows and highs the t-tests read were kept in step with the deltas).
    assert.notDeepEqual(last, first);
    assert.ok(first.some((v) => v.canLose || v.canGain));
    for (const v of last) assert.deepEqual([v.lo, v.hi, v.canLose, v.canGain], [v.delta, v.delta, false, false]);
  });

  test('verdicts: a run minus itself is settled at 0; MiniLM vs BM25 on nDCG@10 is open over SciFact\'s holes', () => {
    const h = new HoleRanges({ qrels, runs, scale: [0, 1], relevanceLevel: 1 });
    const self = h.verdict(FILES[0], FILES[0], 'ndcg_cut_10');
    assert.deepEqual([self.verdict, self.lo, self.hi, self.openQueries], ['settled', 0, 0, 0]);
    const v = h.verdict(FILES[1], FILES[0], 'ndcg_cut_10');
    assert.equal(v.verdict, 'open');
    assert.ok(v.lo < 0 && v.delta > 0 && v.hi > v.delta, JSON.stringify(v));
    assert.ok(v.openQueries > 0 && v.openHoles >= v.openQueries && v.openHoles <= v.holes);
    // Significant now (t-test), and the lowest grading makes MiniLM worse: the significance can be lost.
    assert.ok(v.significant && v.canLose && !v.canGain, JSON.stringify(v));
  });
});

test('MRR@10 difference ranges equal brute force over shared assignments (random small cases)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const { qrels, runs } = randomCase(seed, [0, 1, 2]);
    const map = new Map(runs.map((r, i) => [`r${i}`, r]));
    const h = new HoleRanges({ qrels, runs: map, scale: [0, 1, 2], relevanceLevel: 1, poolDepth: 12 });
    const set = prepareHoles(qrels, runs, { poolDepth: 12 });
    const s = new HoleScorer('recip_rank', [0, 1, 2]);
    const cut = (x: number) => (x >= 0.1 ? x : 0);
    const ds = h.queryDeltas('r0', 'r1', 'recip_rank_10');
    set.queries.forEach((q, qi) => {
      const bf = bruteForce(q, [0, 1, 2], (g) => cut(s.score(q, 0, g)) - cut(s.score(q, 1, g)));
      assert.ok(Math.abs(ds[qi].lo - bf.lo) < EPS && Math.abs(ds[qi].hi - bf.hi) < EPS, `seed ${seed} ${q.qid}: [${ds[qi].lo}, ${ds[qi].hi}] vs [${bf.lo}, ${bf.hi}]`);
      const one = bruteForce(q, [0, 1, 2], (g) => cut(s.score(q, 0, g)));
      const per = h.perQuery('r0', 'recip_rank_10');
      assert.ok(Math.abs(per.lo[qi] - one.lo) < EPS && Math.abs(per.hi[qi] - one.hi) < EPS, `seed ${seed} ${q.qid} interval`);
    });
  }
});

describe('ImpactJudging', () => {
  // a ranks the relevant document first on q1; b puts holes z1 and w1 around it, which could make b better.
  // q2's lists are the same, so its holes cannot move the difference. Only z1 and w1 decide.
  const qrels = Qrels.fromJudgements([
    { qid: 'q1', docid: 'r1', grade: 1 },
    { qid: 'q2', docid: 'r2', grade: 1 },
  ]);
  const a = readToy('a', [['q1', ['r1', 'x1', 'y1']], ['q2', ['r2', 'x2', 'y2']]]);
  const b = readToy('b', [['q1', ['z1', 'r1', 'w1']], ['q2', ['r2', 'x2', 'y2']]]);

  test('follows the judgements and undos of the qrels, never names a run, settles', () => {
    const j = new ImpactJudging(qrels, 'a', 'b', [a, b], 3, [0, 1], 1);
    const first = j.items();
    assert.deepEqual(new Set(first.map((p) => `${p.queryId}/${p.docId}`)), new Set(['q1/x1', 'q1/y1', 'q1/z1', 'q1/w1', 'q2/x2', 'q2/y2']));
    for (const p of first) assert.deepEqual(Object.keys(p).sort(), ['docId', 'queryId'], 'blind: no run, no impact');
    assert.equal(j.verdict().verdict, 'open');
    // Judge in impact order, each hole non-relevant, until settled.
    const judged: { qid: string; docid: string; grade: number }[] = [];
    while (j.verdict().verdict === 'open') {
      const next = j.items()[0];
      judged.push({ qid: next.queryId, docid: next.docId, grade: 0 });
      j.sync(withJudgements(qrels, judged));
      assert.equal(j.judged, judged.length);
      assert.ok(!j.items().some((p) => p.queryId === next.queryId && p.docId === next.docId), 'a judged hole leaves the queue');
    }
    assert.deepEqual(new Set(judged.map((x) => x.docid)), new Set(['z1', 'w1']), 'the two holes that decide, first');
    assert.equal(j.verdict().direction, 1);
    // An undo (the qrels without the last judgement) reopens or keeps it, and counts one fewer.
    j.sync(withJudgements(qrels, judged.slice(0, -1)));
    assert.equal(j.judged, judged.length - 1);
    assert.equal(j.verdict().verdict, 'open', 'the last judgement was the one that settled it');
  });
});

function readToy(tag: string, lists: [string, string[]][]): Run {
  return Run.fromRankings(tag, lists.map(([q, docs]) => [q, docs, docs.map((_, i) => 10 - i)]));
}

test('session: results rows and the diff carry ranges and verdicts, the impact queue a meter', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSession({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(s, FILES.map((f) => join(RUNS, f)));
  const base = join(RUNS, FILES[0]);
  const m = s.results(base, { skipped: [], untrusted: false });
  for (const r of m.rows) {
    assert.equal(r.intervals!.length, m.measures.length);
    m.measures.forEach((c, mi) => {
      const iv = r.intervals![mi];
      if (!(c.key in RANGED)) return assert.equal(iv, null);
      assert.ok(iv!.lo - EPS <= r.means[mi] && r.means[mi] <= iv!.hi + EPS, `${r.label} ${c.label}`);
    });
    if (r.key === base) assert.equal(r.settled, null);
    else assert.ok(r.settled!.some((v) => v?.verdict === 'open'));
  }
  const d = s.diff(base, join(RUNS, FILES[1]));
  assert.equal(d.perQuery!.lo.length, d.queries.length);
  d.deltas.forEach((x, i) => assert.ok(d.perQuery!.lo[i] - EPS <= x && x <= d.perQuery!.hi[i] + EPS, d.queries[i]));
  const byQid = new Map(s.holeRanges().queryDeltas(join(RUNS, FILES[1]), base, 'ndcg_cut_10').map((x) => [x.qid, x]));
  assert.deepEqual(d.perQuery, { lo: d.queries.map((q) => byQid.get(q)!.lo), hi: d.queries.map((q) => byQid.get(q)!.hi) }, 'each query its own range, in the diff\'s order');
  assert.ok(Math.abs(d.range!.delta - (d.meanB - d.meanA)) < 1e-9);
  assert.ok(d.intervalA!.lo <= d.meanA && d.meanA <= d.intervalA!.hi);
  // The diff's RBO per query is the similarity module's (top 100, p = 0.9), a run against itself is 1.
  const sim = runSimilarity(s.run(base), s.run(join(RUNS, FILES[1])), 'rbo', 100).perQuery;
  d.queries.forEach((q, i) => assert.equal(d.rbo![i], sim.get(q), q));
  assert.ok(Math.abs(d.rboMean! - d.rbo!.reduce((x, y) => x + y, 0) / d.rbo!.length) < 1e-12);
  assert.ok(s.diff(base, base).rbo!.every((x) => Math.abs(x - 1) < 1e-9), 'a run is its own RBO 1');
  const q = s.impactQueue([base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10)!;
  assert.equal(q.meter.judged, 0);
  assert.equal(q.meter.verdict.verdict, 'open');
  assert.deepEqual(q.meter.a.key, base);
  assert.equal(new Set(q.items.map((p) => `${p.queryId}\t${p.docId}`)).size, q.items.length, 'no pair twice');
  assert.equal(q.items.length, s.pool([base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10).length, 'the whole pool: impact order first, then the third run\'s holes');
  // Judging the first item moves the meter and takes it out of the queue.
  const first = q.items[0];
  s.judge(first.queryId, first.docId, 1);
  const after = s.impactQueue([base, join(RUNS, FILES[1]), join(RUNS, FILES[2])], 10)!;
  assert.equal(after.meter.judged, 1);
  assert.ok(!after.items.some((p) => p.queryId === first.queryId && p.docId === first.docId));
  assert.deepEqual(s.impactMeter([base, join(RUNS, FILES[1])], 10), after.meter);
  assert.equal(s.impactQueue([base], 10), null, 'one run: nothing to compare');
});

test('ranges computed in background slices, with judgements in between, equal ranges computed at once', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const files = FILES.map((f) => join(RUNS, f));
  const sliced = await loadSession({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(sliced, files);
  const pool = sliced.pool(files, 10);
  const steps = sliced.trustSteps(files[0], [[files[0], files[1]]]);
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
    sliced.trustPending(files[0], [[files[0], files[1]]]);
  }
  assert.ok(n > 2000, `${n} slices`);
  assert.equal(sliced.trustPending(files[0], [[files[0], files[1]]]), false);
  const once = await loadSession({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(once, files);
  for (const p of at.values()) once.judge(p.queryId, p.docId, 1);
  const strip = (m: ReturnType<typeof once.results>) => m.rows.map((r) => [r.intervals, r.settled]);
  assert.deepEqual(strip(sliced.results(files[0], { skipped: [] })), strip(once.results(files[0], { skipped: [] })));
  const d = (s: typeof once) => s.diff(files[0], files[1]);
  assert.deepEqual([d(sliced).range, d(sliced).perQuery], [d(once).range, d(once).perQuery]);
});
