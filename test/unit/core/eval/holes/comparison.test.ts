import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  comparePairsUnderHoles,
  compareUnderHoles,
  holeFigures,
  HoleScorer,
  meter,
  prepareHoles,
  queryDelta,
  queryInterval,
  QueryListValues,
  runIntervals,
  significanceOf,
  significanceUnderHoles,
  summarise,
  type HoleQuery,
  type QueryDelta,
} from '../../../../../src/core/eval/holes';
import { PAIRED_TESTS } from '../../../../../src/core/eval/stats';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';
import { needsShared, SHARED } from '../../../support/paths';
import { join } from 'node:path';
import { bruteForce, randomCase } from './bruteForce';

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-12;

for (const grades of [[1], [0, 1, 2]]) {
  test(`range of a - b equals brute force over shared assignments (grades ${grades.join(',')})`, () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 4 });
      for (const spec of ['ndcg_cut.5', 'ndcg', 'P.5', 'recall.10', 'recall_cap.5', 'map', 'recip_rank']) {
        const s = new HoleScorer(spec, set.scale);
        for (const [a, b] of [[0, 1], [1, 2], [2, 0]]) {
          for (const q of set.queries) {
            const got = queryDelta(q, a, b, s);
            const want = bruteForce(q, s.scale, (g) => s.score(q, a, g) - s.score(q, b, g));
            const where = `seed ${seed} ${spec} ${a}-${b} ${q.qid}`;
            assert.ok(got.exact, where);
            assert.ok(near(got.lo, want.lo) && near(got.hi, want.hi), `${where}: [${got.lo}, ${got.hi}] vs [${want.lo}, ${want.hi}]`);
            // Sound but looser: the two runs' own intervals.
            const ia = queryInterval(q, a, s);
            const ib = queryInterval(q, b, s);
            assert.ok(ia.lo - ib.hi <= got.lo + 1e-12 && got.hi <= ia.hi - ib.lo + 1e-12, where);
          }
        }
      }
    }
  });
}

/** Brute force: the free holes of q whose grade changes f under some grading of the other free holes. */
function bruteMovers(q: HoleQuery, scale: readonly number[], f: (g: Int32Array) => number): number {
  const free: number[] = [];
  q.grades.forEach((g, h) => g < 0 && free.push(h));
  const grades = Int32Array.from(q.grades);
  let n = 0;
  for (const h of free) {
    const others = free.filter((o) => o !== h);
    let moves = false;
    for (let k = 0; k < scale.length ** others.length && !moves; k++) {
      let x = k;
      for (const o of others) {
        grades[o] = scale[x % scale.length];
        x = Math.floor(x / scale.length);
      }
      grades[h] = scale[0];
      const v0 = f(grades);
      moves = scale.some((g) => ((grades[h] = g), Math.abs(f(grades) - v0) > 1e-12));
    }
    if (moves) n++;
  }
  return n;
}

for (const grades of [[1], [0, 1, 2]]) {
  test(`holes that can move a - b: exactly those brute force finds, per measure (grades ${grades.join(',')})`, () => {
    let counted = 0;
    let excluded = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 4 });
      for (const spec of ['ndcg_cut.5', 'ndcg', 'P.5', 'recall.10', 'recall_cap.5', 'map', 'recip_rank']) {
        const s = new HoleScorer(spec, set.scale);
        for (const [a, b] of [[0, 1], [1, 2], [2, 0]]) {
          for (const q of set.queries) {
            const want = bruteMovers(q, s.scale, (g) => s.score(q, a, g) - s.score(q, b, g));
            const where = `seed ${seed} ${spec} ${a}-${b} ${q.qid}`;
            // Without the exhaustive search (budget 0): never fewer; for the measures linear in the gains and
            // recip_rank the weights and the witnesses alone decide every case here (map has coincidences).
            const quick = queryDelta(q, a, b, s, undefined, undefined, 0).movers;
            if (spec === 'map') assert.ok(quick >= want, `${where} (no search): ${quick} < ${want}`);
            else assert.equal(quick, want, `${where} (no search)`);
            assert.equal(queryDelta(q, a, b, s).movers, want, where);
            counted += want;
            excluded += q.grades.filter((g) => g < 0).length - want;
          }
        }
      }
    }
    assert.ok(counted > 100 && excluded > 100, `both kinds of holes occur: ${counted} can move it, ${excluded} cannot`);
  });
}

test('P@k: a hole in both top k cannot move the difference, one in a single top k can', () => {
  const qrels = Qrels.fromJudgements([{ qid: 'q', docid: 'r', grade: 1 }]);
  // h1 in both top 2, h2 only in a's, h3 only in b's.
  const a = Run.fromRankings('a', [['q', ['h1', 'h2', 'r'], [3, 2, 1]]]);
  const b = Run.fromRankings('b', [['q', ['h3', 'h1', 'r'], [3, 2, 1]]]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 2 });
  const q = set.queries[0];
  const p2 = queryDelta(q, 0, 1, new HoleScorer('P.2', set.scale));
  assert.deepEqual([p2.holes, p2.movers, p2.lo, p2.hi], [3, 2, -0.5, 0.5]);
  // nDCG@2 gives h1 different discounts in a (rank 1) and b (rank 2): it can move that difference.
  assert.equal(queryDelta(q, 0, 1, new HoleScorer('ndcg_cut.2', set.scale)).movers, 3);
});

test('over budget the range falls back to the runs\' intervals: sound, marked inexact', () => {
  const { qrels, runs } = randomCase(7, [0, 1]);
  const set = prepareHoles(qrels, runs, { poolDepth: 6 });
  const s = new HoleScorer('map', set.scale);
  for (const q of set.queries.filter((x) => x.holes.length > 1)) {
    const got = queryDelta(q, 0, 1, s, 1);
    const want = bruteForce(q, s.scale, (g) => s.score(q, 0, g) - s.score(q, 1, g));
    assert.equal(got.exact, false);
    assert.ok(got.lo <= want.lo + 1e-12 && want.hi <= got.hi + 1e-12);
  }
});

test('verdict: settled when no assignment flips the sign, else open with the queries and holes that keep it open', () => {
  // q1: a finds the relevant document first, b second; q2: one hole each side.
  const qrels = Qrels.fromJudgements([
    { qid: 'q1', docid: 'r', grade: 1 },
    { qid: 'q2', docid: 'r', grade: 1 },
  ]);
  const a = Run.fromRankings('a', [['q1', ['r', 'x'], [2, 1]], ['q2', ['r', 'h'], [2, 1]]]);
  const b = Run.fromRankings('b', [['q1', ['x', 'r'], [2, 1]], ['q2', ['r', 'k'], [2, 1]]]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 2 });
  const s = new HoleScorer('P.1', set.scale);
  let c = compareUnderHoles(set, 0, 1, s);
  // P@1: q1 a - b = 1 unless x is relevant (then 0); q2 always 0. Mean range [0, 0.5]: a tie is possible.
  assert.deepEqual([c.lo, c.hi, c.mean, c.verdict, c.direction, c.openQueries, c.openHoles], [0, 0.5, 0.5, 'open', 0, 1, 1]);
  assert.equal(meter(c), 'comparison open: 1 holes in 1 queries can still flip it');
  set.queries[0].grades[set.queries[0].holes.indexOf('x')] = 0;
  c = compareUnderHoles(set, 0, 1, s);
  assert.deepEqual([c.lo, c.hi, c.verdict, c.direction, c.openQueries], [0.5, 0.5, 'settled', 1, 0]);
  assert.equal(meter(c, 1), 'settled: a better under every judgement of the holes (after 1 judgements)');
});

test('significance under holes: lost or gained at an extreme assignment', () => {
  const mk = (v: number[], lo: number[], hi: number[]): QueryDelta[] => v.map((x, i) => ({ qid: `q${i}`, value: x, lo: lo[i], hi: hi[i], exact: true, holes: 1, movers: 1 }));
  const set = { runIds: ['a', 'b'], poolDepth: 10, scale: [0, 1], queries: [] };
  const n = 12;
  const up = Array.from({ length: n }, (_, i) => 0.1 + 0.01 * i);
  const c = summarise(set, 0, 1, 'P_10', mk(up, up.map((x, i) => (i % 2 ? -x : x)), up));
  const sig = significanceUnderHoles(c, PAIRED_TESTS.t);
  assert.ok(sig.significant && sig.pAtLo > 0.05 && sig.canLose && !sig.canGain, JSON.stringify(sig));
  const flat = up.map((x, i) => (i % 2 ? -x : x));
  const c2 = summarise(set, 0, 1, 'P_10', mk(flat, flat, up));
  const sig2 = significanceUnderHoles(c2, PAIRED_TESTS.t);
  assert.ok(!sig2.significant && sig2.canGain && !sig2.canLose, JSON.stringify(sig2));
  // Significant at both extremes, but the other way round at the lower one: the win can be lost.
  const c3 = summarise(set, 0, 1, 'P_10', mk(up, up.map((x) => -x), up));
  const sig3 = significanceUnderHoles(c3, PAIRED_TESTS.t);
  assert.ok(sig3.significant && sig3.pAtLo <= 0.05 && sig3.pAtHi <= 0.05 && sig3.canLose, JSON.stringify(sig3));
});

test('what judging can do to significance is judged on the corrected p, with the seed given (issue 23 item 4)', () => {
  // Differences with a t-test p of about 0.04: significant raw, not after a correction that triples it.
  const value = Float64Array.from({ length: 20 }, (_, i) => 0.1 + (i % 2 ? 0.2 : -0.2));
  const perQuery = { value, lo: value, hi: value };
  const c = { mean: 0.1, lo: 0.1, hi: 0.1 };
  const raw = significanceOf(c, perQuery, PAIRED_TESTS.t, 0.05);
  assert.ok(raw.significant && raw.p < 0.05, `raw p ${raw.p}`);
  const corrected = significanceOf(c, perQuery, PAIRED_TESTS.t, 0.05, { adjust: (p) => Math.min(1, 3 * p) });
  assert.equal(corrected.significant, false);
  assert.ok(Math.abs(corrected.p - 3 * raw.p) < 1e-12);
  // The extremes are corrected too: one extreme significant raw but not corrected gains nothing.
  const hi = Float64Array.from(value, (x) => x + 0.02);
  const gain = significanceOf({ mean: 0.1, lo: 0.1, hi: 0.12 }, { value, lo: value, hi }, PAIRED_TESTS.t, 0.05, { adjust: (p) => Math.min(1, 3 * p) });
  assert.equal(gain.canGain, false);
  // The randomization test takes the seed given, not always 1.
  const r = (seed: number) => significanceOf(c, perQuery, PAIRED_TESTS.randomization, 0.05, { seed }).p;
  const zeros = new Float64Array(20);
  assert.equal(r(7), PAIRED_TESTS.randomization.p(value, zeros, { seed: 7 }));
  assert.notEqual(r(7), r(8));
});

/** A scorer that says it reads every rank a list retrieves: each raised hole's value is its own, never shared. */
class ReadsAll extends HoleScorer {
  override reads(_list: unknown, rank: number): boolean {
    return rank >= 0;
  }
}

/** queryDelta as it is against the same with no list value shared between holes: equal to the bit. */
function assertSameDeltas(set: ReturnType<typeof prepareHoles>, pairs: readonly (readonly [number, number])[], specs: readonly string[], what: string): number {
  let checked = 0;
  for (const spec of specs) {
    const s = new HoleScorer(spec, set.scale);
    const slow = new ReadsAll(spec, set.scale);
    for (const [a, b] of pairs) {
      for (const q of set.queries) {
        assert.deepEqual(queryDelta(q, a, b, s), queryDelta(q, a, b, slow), `${what} ${spec} ${a}-${b} ${q.qid}`);
        checked++;
      }
    }
  }
  return checked;
}

test('a - b and its movers are the same with a list\'s value shared by the holes it does not read (random cases, some holes judged)', () => {
  for (const grades of [[1], [0, 1, 2]]) {
    for (let seed = 1; seed <= 20; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 3 + (seed % 4) });
      set.queries.forEach((q) => q.holes.forEach((_, h) => (h + seed) % 4 === 0 && (q.grades[h] = grades[h % grades.length])));
      assertSameDeltas(set, [[0, 1], [1, 2], [2, 0]], ['ndcg_cut.3', 'ndcg', 'P.3', 'recall.5', 'recall_cap.3', 'map', 'map_cut.5', 'recip_rank', 'Rprec', 'success.3'], `seed ${seed}`);
    }
  }
});

test('SciFact: a - b and its movers are the same with a list\'s value shared by the holes it does not read (3 shared runs, depth 10)', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const qrels = readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv'));
  const runs = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => readRun(join(SHARED, 'runs/scifact', f)));
  const set = prepareHoles(qrels, runs, { poolDepth: 10 });
  assert.equal(assertSameDeltas(set, [[1, 0], [2, 0]], ['ndcg_cut.10', 'P.10', 'recall.100', 'recip_rank'], 'SciFact'), 4 * 2 * 300);
});

test('comparePairsUnderHoles and holeFigures: every pair (and run) at once, a query\'s list values shared between them, is each pair and run alone to the bit (random cases, some holes judged)', () => {
  let compared = 0;
  for (const grades of [[1], [0, 1, 2]]) {
    for (let seed = 1; seed <= 15; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 3 + (seed % 4) });
      set.queries.forEach((q) => q.holes.forEach((_, h) => (h + seed) % 5 === 0 && (q.grades[h] = grades[h % grades.length])));
      const pairs: [number, number][] = [[0, 1], [1, 2], [2, 0], [1, 0], [2, 1]];
      for (const spec of ['ndcg_cut.3', 'ndcg', 'P.3', 'recall.5', 'map', 'recip_rank', 'Rprec']) {
        const s = new HoleScorer(spec, set.scale);
        const together = comparePairsUnderHoles(set, pairs, s);
        const figures = holeFigures(set, [2, 0, 1], pairs, s);
        pairs.forEach(([a, b], i) => {
          assert.deepEqual(together[i], compareUnderHoles(set, a, b, s), `seed ${seed} ${spec} ${a}-${b}`);
          assert.deepEqual(figures.pairs[i], compareUnderHoles(set, a, b, s), `seed ${seed} ${spec} ${a}-${b}, with the runs' intervals`);
          compared++;
        });
        [2, 0, 1].forEach((r, k) => assert.deepEqual(figures.runs[k], runIntervals(set, r, s), `seed ${seed} ${spec} run ${r}`));
      }
    }
  }
  assert.equal(compared, 2 * 15 * 7 * 5);
});

test('queryDelta refuses list values remembered for another query or measure, or before a judgement', () => {
  const { qrels, runs } = randomCase(3, [1]);
  const set = prepareHoles(qrels, runs, { poolDepth: 4 });
  const s = new HoleScorer('P.3', set.scale);
  const [q1, q2] = set.queries;
  assert.throws(() => queryDelta(q1, 0, 1, s, undefined, undefined, undefined, new QueryListValues(s, q2)), /another query/);
  assert.throws(() => queryDelta(q1, 0, 1, s, undefined, undefined, undefined, new QueryListValues(new HoleScorer('P.3', set.scale), q1)), /another measure/);
  const values = new QueryListValues(s, q1);
  assert.deepEqual(queryDelta(q1, 0, 1, s, undefined, undefined, undefined, values), queryDelta(q1, 0, 1, s));
  // Its values with one hole raised hold for the judgements it was made under only.
  q1.grades[0] = 1;
  assert.throws(() => queryDelta(q1, 0, 1, s, undefined, undefined, undefined, values), /before a judgement/);
});

test('SciFact: every run and pair of four runs at once is each alone, to the bit (depth 10)', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const qrels = readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv'));
  const runs = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec', 'neural-rerank.kirloxious.tsv'].map((f) => readRun(join(SHARED, 'runs/scifact', f)));
  const set = prepareHoles(qrels, runs, { poolDepth: 10 });
  const pairs: [number, number][] = [[1, 0], [2, 0], [3, 0], [2, 1], [3, 1], [3, 2]];
  for (const spec of ['ndcg_cut.10', 'recall.100', 'map']) {
    const s = new HoleScorer(spec, set.scale);
    const together = holeFigures(set, [0, 1, 2, 3], pairs, s);
    pairs.forEach(([a, b], i) => assert.deepEqual(together.pairs[i], compareUnderHoles(set, a, b, s), `SciFact ${spec} ${a}-${b}`));
    [0, 1, 2, 3].forEach((r) => assert.deepEqual(together.runs[r], runIntervals(set, r, s), `SciFact ${spec} run ${r}`));
  }
});
