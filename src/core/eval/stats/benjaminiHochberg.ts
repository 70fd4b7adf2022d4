/**
 * Benjamini–Hochberg adjusted p-values (q-values), in the input's order: the i-th smallest (1-based) of m is
 * p * m / i, made monotone from the largest down (the minimum over all larger ranks) and capped at 1, as
 * R's p.adjust(method = "BH") and scipy.stats.false_discovery_control. Controls the false discovery rate.
 */
export function benjaminiHochbergAdjust(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((_, i) => i).sort((x, y) => p[y] - p[x]);
  const out = new Array<number>(m);
  let running = 1;
  order.forEach((idx, k) => {
    running = Math.min(running, (p[idx] * m) / (m - k));
    out[idx] = running;
  });
  return out;
}
