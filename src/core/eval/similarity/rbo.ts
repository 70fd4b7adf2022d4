/**
 * Rank-biased overlap, extrapolated (Webber, Moffat and Zobel, "A similarity measure for indefinite rankings",
 * TOIS 2010, eq. 32): with S the shorter list (length s) and L the longer (length l), X_d the overlap of their
 * top d (for d > s, all of S against the top d of L), and persistence p,
 *
 *   RBO_ext = (1 - p) / p * ( sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s (d - s) / (s d) * p^d )
 *             + ( (X_l - X_s) / l + X_s / s ) * p^l
 *
 * which assumes the agreement seen at the end continues (for s = l it is eq. 30's point estimate). A list
 * that is a prefix of the other scores 1. Rankings arrive in trec_eval's order, where ties are already
 * broken by document id, so the paper's treatment of tied ranks does not arise. Two empty lists score 1,
 * one empty list 0. Documents are assumed distinct within a list (a run's are).
 */
export function rbo(a: readonly string[], b: readonly string[], p = 0.9): number {
  if (!(p > 0 && p < 1)) throw new Error(`rbo: persistence p must be in (0, 1), got ${p}`);
  const [S, L] = a.length <= b.length ? [a, b] : [b, a];
  const s = S.length;
  const l = L.length;
  if (l === 0) return 1;
  if (s === 0) return 0;
  const seenS = new Set<string>();
  const seenL = new Set<string>();
  let x = 0;
  let xs = 0;
  let sum = 0;
  let pd = 1;
  for (let d = 1; d <= l; d++) {
    pd *= p;
    const fromL = L[d - 1];
    if (d <= s) {
      const fromS = S[d - 1];
      if (fromS === fromL) x++;
      else {
        if (seenL.has(fromS)) x++;
        if (seenS.has(fromL)) x++;
      }
      seenS.add(fromS);
      seenL.add(fromL);
      if (d === s) xs = x;
    } else {
      if (seenS.has(fromL)) x++;
      sum += ((xs * (d - s)) / (s * d)) * pd;
    }
    sum += (x / d) * pd;
  }
  return ((1 - p) / p) * sum + ((x - xs) / l + xs / s) * pd;
}
