/**
 * Holm–Bonferroni step-down adjusted p-values, in the input's order: the i-th smallest (0-based) of m
 * is multiplied by m - i, capped at 1, and made monotone (an adjusted p-value is never below that of a
 * smaller raw one). Reject where adjusted p <= alpha. Controls the family-wise error rate.
 */
export function holmAdjust(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((_, i) => i).sort((x, y) => p[x] - p[y]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p[idx]));
    out[idx] = running;
  });
  return out;
}
