import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { checkPaired } from './paired';

/** Paired t-test; the t distribution comes from @stdlib. */

export interface PairedTTest {
  /** Mean of a - b. */
  meanDiff: number;
  t: number;
  df: number;
  /** Two-sided. */
  p: number;
}

/**
 * Paired (dependent-samples) t-test of a against b, two-sided, as scipy.stats.ttest_rel. When every
 * difference is the same, the variance is 0: p is 1 if that difference is 0 (identical runs) and 0
 * otherwise (scipy answers NaN for both).
 */
export function pairedTTest(a: ArrayLike<number>, b: ArrayLike<number>): PairedTTest {
  const n = checkPaired(a, b);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i] - b[i];
  const meanDiff = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const dev = a[i] - b[i] - meanDiff;
    ss += dev * dev;
  }
  const df = n - 1;
  if (df === 0) return { meanDiff, t: NaN, df, p: 1 };
  const se = Math.sqrt(ss / df / n);
  if (se === 0 || se < Math.abs(meanDiff) * 1e-14) {
    return meanDiff === 0 ? { meanDiff, t: 0, df, p: 1 } : { meanDiff, t: meanDiff > 0 ? Infinity : -Infinity, df, p: 0 };
  }
  const t = meanDiff / se;
  const p = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { meanDiff, t, df, p };
}
