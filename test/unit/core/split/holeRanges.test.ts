// HoleRanges, the per-query bookkeeping of ranges under holes (src/core/split/holeRanges.ts). A
// judgement re-ranges only its query and gives what a fresh computation gives; MRR@10 differences match brute
// force; the scores the views show lie in their ranges on real SciFact runs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { RESULT_MEASURES, scoreRun } from '../../../../src/core/split/scores';
import { HoleRanges, RANGED } from '../../../../src/core/split/holeRanges';
import { evaluate } from '../../../../src/core/eval';
import { HoleScorer, prepareHoles } from '../../../../src/core/eval/holes';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun, Run } from '../../../../src/core/formats/run';
import { bruteForce, randomCase } from '../eval/holes/bruteForce';
import { needsShared, SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const FILES = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'];
const EPS = 1e-12;

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
    const next = qrels.withJudgements([
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
      next = qrels.withJudgements(extra);
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
