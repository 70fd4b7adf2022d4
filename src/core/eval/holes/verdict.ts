/**
 * The verdict of a comparison from its estimate's interval (Δ = b - a): a sign when the interval excludes 0,
 * else "within" when it lies inside ±margin (the runs differ by less than the margin), else undecided. A
 * sign comes first: an interval inside (0, margin] says b is better, by less than the margin.
 */
export type EstimateVerdict = 'a better' | 'b better' | 'within' | 'undecided';

/** Differences smaller than this are "within" by default: 0.01 of a measure in [0, 1]. */
export const WITHIN = 0.01;

export function estimateVerdict(lo: number, hi: number, margin = WITHIN): EstimateVerdict {
  if (lo > 0) return 'b better';
  if (hi < 0) return 'a better';
  if (lo >= -margin && hi <= margin) return 'within';
  return 'undecided';
}

/**
 * The same verdict from the distribution function of the estimate (cdf(x): the chance the value is at most
 * x) without computing the interval: lo > 0 when cdf(0) < 2.5 %, and so on.
 */
export function verdictFromCdf(cdf: (x: number) => number, margin = WITHIN, level = 0.95): EstimateVerdict {
  const tail = (1 - level) / 2;
  const atZero = cdf(0);
  if (atZero < tail) return 'b better';
  if (atZero > 1 - tail) return 'a better';
  if (cdf(-margin) <= tail && cdf(margin) >= 1 - tail) return 'within';
  return 'undecided';
}
