import hypergeometricPmf from '@stdlib/stats-base-dists-hypergeometric-pmf';
import type { HoleEstimator, HoleScorer } from '../../src/core/eval/holes';

/** What withinFloor() finds for one pair. */
export interface WithinFloor {
  /** The floor knowing each cell's true rates. */
  withRates: number;
  /** The floor for verdicts that hold whatever the rates. */
  exchangeable: number;
  /** Unjudged holes whose relevance moves Δ. */
  moving: number;
}

/**
 * How few judgements a "within ±w" verdict on a pair's mean Δ can take, two ways (bench:holes --mode floor).
 * Both are first-order: a hole's effect on Δ is taken with every other hole at its true grade.
 *
 * withRates: a method told each cell's true mix of grades (the cells are the relevance model's: a hole's ranks
 * and its query's relevant count). The unjudged holes of a cell are then exchangeable draws from its mix, so
 * they leave a variance no such method removes; a 95 % interval is at least ±z sqrt(V) and "within ±w" needs
 * z sqrt(V) <= w at best. The fewest judgements that get there take the holes of largest variance first.
 *
 * exchangeable: a method whose verdicts hold whatever the rates (a wrong "within" in at most 5 % of the trials
 * of any world), with nothing to tell unjudged holes apart but their effects. Take G, the N unjudged holes
 * whose relevance would move Δ by at least e towards one end, R of them relevant in truth, and the world W
 * where K of G are relevant, K the least that puts Δ past the end with probability >= 97.7 % (expected sum
 * minus two standard deviations, the K drawn at random). Judged in any order, the holes of G show a count of
 * relevant ones whose law is hypergeometric in both worlds (the truth taken as R at random), and nothing else
 * tells them apart. A method that says "within" in at least half of the truth's trials, and in at most
 * 5 % + 2.3 % of W's, must have drawn information KL(truth || W) >= kl(1/2, 0.073) = 0.653 nats from them
 * (the change-of-measure inequality: Kaufmann, Cappé and Garivier, JMLR 2016, lemma 1); with m of G judged
 * that KL is that of the two hypergeometric counts. The fewest such m, the largest over e and added over the
 * two ends (their holes are apart), is the floor. Judging fewer, a method must be assuming the rates (a
 * relevance model), and holds only as far as they do.
 */
export function withinFloor(
  est: HoleEstimator,
  s: HoleScorer,
  truth: (qid: string, docId: string) => number,
  trueDelta: number,
  w = 0.01,
): WithinFloor {
  const set = est.set;
  const cellOf = (qi: number, h: number) => est.slotCells[est.offsets[qi] + h];
  const n = set.queries.length || 1;
  const grades = set.queries.map((q) => Int32Array.from(q.holes, (d) => truth(q.qid, d)));
  const lowest = set.scale.find((g) => g > 0) ?? 1;
  // Each cell's mix of grades over its unjudged holes.
  const mix = new Map<number, Map<number, number>>();
  set.queries.forEach((q, qi) => q.holes.forEach((_, h) => {
    if (q.grades[h] >= 0) return;
    const m = mix.get(cellOf(qi, h)) ?? new Map<number, number>();
    m.set(grades[qi][h], (m.get(grades[qi][h]) ?? 0) + 1);
    mix.set(cellOf(qi, h), m);
  }));
  const variances: number[] = [];
  /** Per unjudged hole that moves Δ: its effect on the sum over queries when relevant, and whether it is. */
  const movers: { effect: number; relevant: boolean }[] = [];
  set.queries.forEach((q, qi) => {
    const g = grades[qi];
    const delta = () => s.score(q, 1, g) - s.score(q, 0, g);
    q.holes.forEach((_, h) => {
      if (q.grades[h] >= 0) return;
      const kept = g[h];
      g[h] = 0;
      const none = delta();
      const effectOf = (grade: number) => {
        g[h] = grade;
        return delta() - none;
      };
      const m = mix.get(cellOf(qi, h))!;
      let total = 0;
      for (const k of m.values()) total += k;
      let mean = 0;
      let square = 0;
      for (const [grade, k] of m) {
        const e = effectOf(grade);
        mean += (k / total) * e;
        square += (k / total) * e * e;
      }
      const relevantEffect = effectOf(lowest);
      g[h] = kept;
      const v = Math.max(0, square - mean * mean) / (n * n);
      if (v > 0) variances.push(v);
      if (relevantEffect !== 0) movers.push({ effect: relevantEffect, relevant: kept > 0 });
    });
  });
  variances.sort((x, y) => y - x);
  // What is left after judging the i largest, summed from the smallest up (no rounding from subtracting).
  const left = new Float64Array(variances.length + 1);
  for (let i = variances.length - 1; i >= 0; i--) left[i] = left[i + 1] + variances[i];
  const z = 1.959963984540054;
  let withRates = 0;
  while (withRates < variances.length && left[withRates] > (w / z) ** 2) withRates++;
  const toward = (sign: 1 | -1) => endFloor(movers.filter((x) => sign * x.effect > 0).map((x) => ({ effect: sign * x.effect, relevant: x.relevant })), (w - sign * trueDelta) * n);
  return { withRates, exchangeable: toward(1) + toward(-1), moving: movers.length };
}

/** kl(1/2, 0.05 + 0.023) in nats: what a test telling the truth from W must learn (see withinFloor). */
const NEEDED = 0.5 * Math.log(0.5 / 0.073) + 0.5 * Math.log(0.5 / 0.927);

/** KL between the relevant counts of m draws from N holes holding R and K relevant ones (hypergeometric). */
export function countKl(N: number, R: number, K: number, m: number): number {
  let kl = 0;
  for (let c = Math.max(0, m - (N - R)); c <= Math.min(m, R); c++) {
    const p = hypergeometricPmf(c, N, R, m);
    if (p > 0) kl += p * Math.log(p / hypergeometricPmf(c, N, K, m));
  }
  return kl;
}

/**
 * The floor at one end: holes that move Δ towards it (effects > 0 on the sum over queries), `budget` how far
 * the sum may move before Δ passes the end. The largest, over thresholds e (every 1 % quantile of the
 * effects), of the fewest judgements among the holes of effect >= e that tell the truth from W (withinFloor).
 */
export function endFloor(holes: readonly { effect: number; relevant: boolean }[], budget: number): number {
  if (budget <= 0) return Infinity;
  const sorted = [...holes].sort((x, y) => y.effect - x.effect);
  let best = 0;
  for (let step = 1; step <= 100; step++) {
    const N = Math.ceil((sorted.length * step) / 100);
    if (N < 2) continue;
    const G = sorted.slice(0, N);
    const mean = G.reduce((a, x) => a + x.effect, 0) / N;
    const variance = G.reduce((a, x) => a + (x.effect - mean) ** 2, 0) / (N - 1);
    const R = G.filter((x) => x.relevant).length;
    const trueSum = G.reduce((a, x) => a + (x.relevant ? x.effect : 0), 0);
    // The least K whose sum, K of G at random, passes the truth's by more than the budget at two sd.
    let K = R + 1;
    const past = (k: number) => k * mean - 2 * Math.sqrt((k * variance * (N - k)) / (N - 1)) > budget + trueSum;
    while (K <= N && !past(K)) K++;
    if (K > N) continue;
    if (countKl(N, R, K, N) < NEEDED) continue;
    let lo = 0;
    let hi = N;
    while (hi - lo > 1) {
      const m = (lo + hi) >> 1;
      if (countKl(N, R, K, m) >= NEEDED) hi = m;
      else lo = m;
    }
    best = Math.max(best, hi);
  }
  return best;
}
