import { bootstrapMeanCI, PAIRED_TESTS, type Interval } from '../eval/stats';
import { differences } from '../eval/stats/paired';
import { uniform } from '../random';

/**
 * Honest tuning: k-fold cross-validation over queries. Given every setting's per-query score on one measure
 * (a matrix: settings x queries), the queries are shuffled (seeded) into k folds; for each fold the setting with
 * the best mean on the other folds is chosen and scored on the fold it never saw. The held-out gain over the
 * default setting is the mean, over all queries, of (chosen setting's score - default's score) where each
 * query's chosen setting is its own fold's; it comes with a paired bootstrap interval and a paired test. The
 * tuning-fold gain (how much the chosen settings beat the default on the queries they were chosen on) above the
 * held-out interval's upper end means the choice fits the tuning queries' noise: a warning, not a result.
 * Tuning on all queries and reporting on the same queries (as ranx's optimize_fusion does) reports the
 * tuning-fold gain; this reports the held-out one.
 */
export interface CvOptions {
  folds: number;
  seed: number;
  /** Bootstrap resamples (default 10,000) and paired test (a PAIRED_TESTS name, default 't'). */
  resamples?: number;
  test?: string;
}

export interface FoldResult {
  /** Indexes (into the query list) of the fold's held-out queries. */
  queries: number[];
  /** The setting chosen on the other folds. */
  chosen: number;
  /** Means on the other folds (the tuning queries): the chosen setting's and the default's. */
  tuning: number;
  tuningDefault: number;
  /** Means on this fold (held out): the chosen setting's and the default's. */
  heldOut: number;
  heldOutDefault: number;
}

export interface CvReport {
  folds: FoldResult[];
  queries: number;
  /** Mean over queries of (held-out chosen - default), its paired bootstrap interval and paired test's p. */
  heldOutGain: number;
  ci: Interval;
  p: number;
  test: string;
  /** Mean over folds of (tuning - tuningDefault): the gain a report on the tuning queries would claim. */
  tuningGain: number;
  /** The tuning-fold gain exceeds the held-out gain by more than its interval (it lies above ci.hi). */
  overfit: boolean;
  /** The setting the tuned run uses: the best mean over all queries, with its mean and the default's. */
  chosenOnAll: number;
  allScore: number;
  allDefault: number;
}

/** Query indexes 0..n-1 dealt into k folds after a seeded shuffle (Fisher-Yates, mulberry32). */
export function foldsOf(n: number, k: number, seed: number): number[][] {
  const order = Array.from({ length: n }, (_, i) => i);
  const next = uniform(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const folds: number[][] = Array.from({ length: k }, () => []);
  order.forEach((q, i) => folds[i % k].push(q));
  for (const f of folds) f.sort((a, b) => a - b);
  return folds;
}

const meanOver = (row: ArrayLike<number>, queries: readonly number[]) => queries.reduce((s, q) => s + row[q], 0) / queries.length;

/** The setting with the best mean over `queries`; ties go to the default, then to the earlier setting. */
export function bestSetting(matrix: readonly ArrayLike<number>[], queries: readonly number[], defaultIndex: number): number {
  let best = defaultIndex;
  let bestMean = meanOver(matrix[defaultIndex], queries);
  matrix.forEach((row, s) => {
    const m = meanOver(row, queries);
    if (m > bestMean) {
      best = s;
      bestMean = m;
    }
  });
  return best;
}

export function crossValidate(matrix: readonly ArrayLike<number>[], defaultIndex: number, options: CvOptions): CvReport {
  const n = matrix[0]?.length ?? 0;
  const k = options.folds;
  if (!Number.isInteger(k) || k < 2) throw new Error(`cross-validation needs at least 2 folds (got ${k})`);
  if (n < k) throw new Error(`${n} queries cannot make ${k} folds`);
  const test = PAIRED_TESTS[options.test ?? 't'];
  if (!test) throw new Error(`unknown paired test '${options.test}' (available: ${Object.keys(PAIRED_TESTS).join(', ')})`);
  const all = Array.from({ length: n }, (_, i) => i);
  const tuned = new Float64Array(n);
  const base = new Float64Array(n);
  const folds = foldsOf(n, k, options.seed).map((held): FoldResult => {
    const inFold = new Set(held);
    const train = all.filter((q) => !inFold.has(q));
    const chosen = bestSetting(matrix, train, defaultIndex);
    for (const q of held) {
      tuned[q] = matrix[chosen][q];
      base[q] = matrix[defaultIndex][q];
    }
    return {
      queries: held,
      chosen,
      tuning: meanOver(matrix[chosen], train),
      tuningDefault: meanOver(matrix[defaultIndex], train),
      heldOut: meanOver(matrix[chosen], held),
      heldOutDefault: meanOver(matrix[defaultIndex], held),
    };
  });
  const gains = differences(tuned, base);
  const heldOutGain = gains.reduce((s, x) => s + x, 0) / n;
  const ci = bootstrapMeanCI(gains, { resamples: options.resamples ?? 10_000, seed: options.seed });
  const tuningGain = folds.reduce((s, f) => s + f.tuning - f.tuningDefault, 0) / k;
  const chosenOnAll = bestSetting(matrix, all, defaultIndex);
  return {
    folds,
    queries: n,
    heldOutGain,
    ci,
    p: test.p(tuned, base, { seed: options.seed }),
    test: test.label,
    tuningGain,
    // Beyond rounding: equal gains computed over different query sets differ in their last bits.
    overfit: tuningGain - ci.hi > 1e-9 * Math.max(1, Math.abs(ci.hi)),
    chosenOnAll,
    allScore: meanOver(matrix[chosenOnAll], all),
    allDefault: meanOver(matrix[defaultIndex], all),
  };
}
