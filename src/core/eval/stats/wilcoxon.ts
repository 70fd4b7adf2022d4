import erfc from '@stdlib/math-base-special-erfc';
import { differences } from './paired';

export interface Wilcoxon {
  /** min(W+, W-): scipy's two-sided statistic. */
  statistic: number;
  /** Sum of the ranks of positive differences. */
  wPlus: number;
  /** Differences left after dropping zeros. */
  n: number;
  /** Two-sided. */
  p: number;
  exact: boolean;
}

/**
 * Differences are compared at 12 significant digits, and below 1e-12 they are zero: per-query scores carry
 * float noise (0.3 - 0.1 is not 0.7 - 0.5 in binary, and 0.3 - 0.1 - 0.2 is not 0).
 */
const key = (v: number): number => (Math.abs(v) <= 1e-12 ? 0 : Number(Math.abs(v).toPrecision(12)));

/**
 * Wilcoxon signed-rank test of a against b, two-sided, as scipy.stats.wilcoxon with its defaults
 * (zero_method 'wilcox': zero differences are dropped; no continuity correction). The p-value is exact
 * (the distribution of W+ by dynamic programming) when at most 50 differences remain and none are zero or
 * tied, otherwise the normal approximation with scipy's tie correction of the variance. (scipy 1.10 also
 * uses its exact table with ties and truncates W+; newer scipy switches to the approximation as here.)
 * Identical runs give p = 1 (scipy raises).
 */
export function wilcoxon(a: ArrayLike<number>, b: ArrayLike<number>): Wilcoxon {
  const all = differences(a, b);
  const d = all.filter((v) => key(v) !== 0);
  const n = d.length;
  if (n === 0) return { statistic: 0, wPlus: 0, n: 0, p: 1, exact: false };
  const order = Array.from(d.keys()).sort((x, y) => key(d[x]) - key(d[y]));
  const ranks = new Float64Array(n);
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && key(d[order[j + 1]]) === key(d[order[i]])) j++;
    const t = j - i + 1;
    for (let k = i; k <= j; k++) ranks[order[k]] = (i + j) / 2 + 1;
    tieTerm += t * t * t - t;
    i = j + 1;
  }
  let wPlus = 0;
  for (let i = 0; i < n; i++) if (d[i] > 0) wPlus += ranks[i];
  const total = (n * (n + 1)) / 2;
  const statistic = Math.min(wPlus, total - wPlus);
  const exact = n <= 50 && n === all.length && tieTerm === 0;
  let p: number;
  if (exact) {
    const pmf = signedRankPmf(n);
    if (2 * wPlus === total) p = 1;
    else {
      let less = 0;
      for (let s = 0; s <= wPlus; s++) less += pmf[s];
      let greater = 0;
      for (let s = wPlus; s <= total; s++) greater += pmf[s];
      p = Math.min(1, 2 * Math.min(less, greater));
    }
  } else {
    const mean = (n * (n + 1)) / 4;
    const se = Math.sqrt((n * (n + 1) * (2 * n + 1) - 0.5 * tieTerm) / 24);
    const z = se > 0 ? (statistic - mean) / se : 0;
    p = Math.min(1, erfc(Math.abs(z) / Math.SQRT2));
  }
  return { statistic, wPlus, n, p, exact };
}

/** P(W+ = s) for n untied, non-zero differences: each rank 1..n joins the positive sum with probability 1/2. */
function signedRankPmf(n: number): Float64Array {
  const total = (n * (n + 1)) / 2;
  let pmf = new Float64Array(total + 1);
  pmf[0] = 1;
  for (let r = 1; r <= n; r++) {
    const next = new Float64Array(total + 1);
    for (let s = 0; s <= total - r; s++) {
      if (pmf[s] === 0) continue;
      next[s] += pmf[s] / 2;
      next[s + r] += pmf[s] / 2;
    }
    pmf = next;
  }
  return pmf;
}
