import { differences } from './paired';

/**
 * Standardised effect of a paired comparison (Cohen's d_z): the mean per-query difference a - b over the
 * sample standard deviation (n - 1) of the differences. 0 when the runs agree everywhere; ±Infinity when
 * every query moves by the same non-zero amount; NaN for a single query.
 */
export function effectSize(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = differences(a, b);
  const n = d.length;
  let sum = 0;
  for (const v of d) sum += v;
  const mean = sum / n;
  if (n < 2) return NaN;
  let ss = 0;
  for (const v of d) ss += (v - mean) * (v - mean);
  const sd = Math.sqrt(ss / (n - 1));
  if (sd === 0 || sd < Math.abs(mean) * 1e-14) return mean === 0 ? 0 : mean > 0 ? Infinity : -Infinity;
  return mean / sd;
}
