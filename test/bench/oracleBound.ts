import { queryDelta, summarise, type HoleScorer, type HoleSet, type QueryDelta } from '../../src/core/eval/holes';
import { holeRanks } from '../../src/core/eval/holes/interval';

/** Where a hole sits: in the top k of the run that truly leads only, of the trailing run only, or of both. */
export type Place = 'leader' | 'trailer' | 'both';

export function places(set: HoleSet, leader: number): Place[][] {
  const depth = set.poolDepth;
  return set.queries.map((q) => {
    const rl = holeRanks(q, leader);
    const rt = holeRanks(q, 1 - leader);
    return q.holes.map((_, h) => {
      const inL = rl[h] >= 0 && rl[h] < depth;
      const inT = rt[h] >= 0 && rt[h] < depth;
      return inL && inT ? 'both' : inL ? 'leader' : 'trailer';
    });
  });
}

/** Holes of one query the oracle bound enumerates (2^CLASS_CAP subsets at most). */
const CLASS_CAP = 12;

/**
 * A lower bound on the judgements ANY order needs, even one that knows the hidden grades (an oracle). A set S of
 * judged holes settles only if the decisive end of the range (the lower end when the leader in truth is a) has
 * the leader's sign, and that end is at most the difference under any one assignment of the unjudged holes.
 * Take this one: every hole gets its true grade, except the "contested" holes left unjudged, which get the
 * grade that hurts the true leader: the top grade for a hole the trailing run ranks higher (alone, or above
 * the leader), 0 for a relevant hole the leader ranks higher. With g_q(m) the largest leader-minus-trailer
 * difference of query q over every choice of m contested holes left unjudged (all subsets; a query with more
 * than CLASS_CAP contested holes keeps the CLASS_CAP with the largest weight difference, the rest get their
 * true grade, which only weakens the bound), S settles only if the per-query choices have a positive sum; the
 * bound is the number of contested holes minus the most that can be left unjudged with a positive sum (a
 * multiple-choice knapsack, by dynamic programming over the count left). Sound (test/unit/bench/oracleBound.test.ts
 * checks it against the exhaustive minimum on small cases); the weights that choose the adverse grade are
 * nDCG's discounts, which for other measures only weakens the bound. The two runs are lists 0 and 1 of `set`.
 */
export function oracleLowerBound(set: HoleSet, s: HoleScorer, truth: (qid: string, docId: string) => number, leader: number): number {
  const top = s.scale[s.scale.length - 1];
  const sign = leader === 0 ? 1 : -1;
  const w = (k: number) => (k >= 0 && k < set.poolDepth ? 1 / Math.log2(k + 2) : 0);
  let best = new Float64Array([0]);
  let total = 0;
  for (const q of set.queries) {
    const grades = Int32Array.from(q.holes, (d) => truth(q.qid, d));
    const rl = holeRanks(q, leader);
    const rt = holeRanks(q, 1 - leader);
    const contested: { h: number; adverse: number; weight: number }[] = [];
    q.holes.forEach((_, h) => {
      const d = w(rt[h]) - w(rl[h]);
      const adverse = d > 0 ? top : d < 0 ? 0 : grades[h];
      if (adverse !== grades[h]) contested.push({ h, adverse, weight: Math.abs(d) * Math.abs(adverse - grades[h]) });
    });
    contested.sort((x, y) => y.weight - x.weight);
    const cls = contested.slice(0, CLASS_CAP);
    const g = new Float64Array(cls.length + 1).fill(-Infinity);
    for (let mask = 0; mask < 1 << cls.length; mask++) {
      let m = 0;
      cls.forEach((c, i) => {
        const on = (mask >> i) & 1;
        grades[c.h] = on ? c.adverse : truth(q.qid, q.holes[c.h]);
        m += on;
      });
      const v = sign * (s.score(q, 0, grades) - s.score(q, 1, grades));
      if (v > g[m]) g[m] = v;
    }
    const next = new Float64Array(total + cls.length + 1).fill(-Infinity);
    for (let i = 0; i <= total; i++) for (let m = 0; m <= cls.length; m++) next[i + m] = Math.max(next[i + m], best[i] + g[m]);
    best = next;
    total += cls.length;
  }
  let left = -1;
  best.forEach((v, m) => {
    if (v > 1e-12) left = m;
  });
  // No choice has a positive sum: the runs tie in truth (or within float noise), and the bound says nothing.
  return left < 0 ? 0 : total - left;
}


/**
 * The other side of the bracket: a greedy oracle that knows the hidden grades and judges next the hole whose
 * true grade moves the deciding end most (ties: the hole the adverse assignment leans on most). The judgements
 * it needs are an upper bound on the fewest any order needs, so the true minimum lies between the two.
 */
export function oracleGreedy(set: HoleSet, s: HoleScorer, truth: (qid: string, docId: string) => number, leader: number): number {
  const sign = leader === 0 ? 1 : -1;
  const w = (k: number) => (k >= 0 && k < set.poolDepth ? 1 / Math.log2(k + 2) : 0);
  const end = (d: QueryDelta) => (sign > 0 ? d.lo : -d.hi);
  const deltas = set.queries.map((q) => queryDelta(q, 0, 1, s));
  const lean = set.queries.map((q) => {
    const rl = holeRanks(q, leader);
    const rt = holeRanks(q, 1 - leader);
    return q.holes.map((_, h) => Math.abs(w(rt[h]) - w(rl[h])));
  });
  const moves = (qi: number) => {
    const q = set.queries[qi];
    const now = end(deltas[qi]);
    return q.holes.map((d, h) => {
      if (q.grades[h] >= 0) return -Infinity;
      q.grades[h] = truth(q.qid, d);
      const m = end(queryDelta(q, 0, 1, s)) - now;
      q.grades[h] = -1;
      return m;
    });
  };
  const gain = set.queries.map((_, qi) => moves(qi));
  let judged = 0;
  while (summarise(set, 0, 1, s.name, deltas).verdict === 'open') {
    let bq = -1;
    let bh = -1;
    gain.forEach((g, qi) =>
      g.forEach((m, h) => {
        if (m === -Infinity) return;
        if (bq < 0 || m > gain[bq][bh] + 1e-15 || (m > gain[bq][bh] - 1e-15 && lean[qi][h] > lean[bq][bh])) [bq, bh] = [qi, h];
      }),
    );
    if (bq < 0) break;
    const q = set.queries[bq];
    q.grades[bh] = truth(q.qid, q.holes[bh]);
    judged++;
    deltas[bq] = queryDelta(q, 0, 1, s);
    gain[bq] = moves(bq);
  }
  return judged;
}
