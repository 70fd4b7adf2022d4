/**
 * Rank-biased overlap, extrapolated (Webber, Moffat and Zobel, "A similarity measure for indefinite rankings",
 * TOIS 2010, eq. 32): with S the shorter list (s documents) and L the longer (l), X_d the overlap of their top
 * d (for d > s, all of S against the top d of L) and persistence p,
 *
 *   RBO_ext = (1 - p) / p * ( sum_{d=1..l} X_d / d * p^d + sum_{d=s+1..l} X_s (d - s) / (s d) * p^d )
 *             + ( (X_l - X_s) / l + X_s / s ) * p^l,
 *
 * which assumes the agreement seen at depth s continues (a list that is a prefix of the other scores 1).
 *
 * Ties as the paper treats them (section 4.3; Corsi and Urbano, SIGIR 2024, call it RBO^w): a tied group
 * enters the prefix whole at its first rank, and the agreement at depth d is 2 X_d / (|S:d| + |L:d|), which
 * is X_d / d without ties; past s the extrapolated overlap X_d + (d - s) A_s is taken against d + |L:d|.
 * Two empty rankings score 1, one empty ranking 0. Documents are assumed distinct (a run's are).
 */
export function rboTies(a: readonly (readonly string[])[], b: readonly (readonly string[])[], p = 0.9): number {
  if (!(p > 0 && p < 1)) throw new Error(`rbo: persistence p must be in (0, 1), got ${p}`);
  const fa = flatten(a);
  const fb = flatten(b);
  const [S, L] = fa.size < fb.size ? [fa, fb] : [fb, fa];
  const s = S.size;
  const l = L.size;
  if (l === 0) return 1;
  if (s === 0) return 0;
  // How many documents of S, of L and of both have entered the prefix by each depth (0-based).
  const nS = new Float64Array(l);
  const nL = new Float64Array(l);
  const X = new Float64Array(l);
  for (const [doc, t] of S.top) {
    nS[t]++;
    const u = L.top.get(doc);
    if (u !== undefined) X[Math.max(t, u)]++;
  }
  for (const t of L.top.values()) nL[t]++;
  for (let d = 1; d < l; d++) {
    nS[d] += nS[d - 1];
    nL[d] += nL[d - 1];
    X[d] += X[d - 1];
  }
  let sum = 0;
  let pd = 1;
  let As = 0;
  for (let d = 0; d < l; d++) {
    pd *= p;
    let A: number;
    if (d < s) {
      A = (2 * X[d]) / (nS[d] + nL[d]);
      if (d === s - 1) As = A;
    } else A = (2 * (X[d] + (d - s + 1) * As)) / (d + 1 + nL[d]);
    sum += A * pd;
  }
  const tail = ((X[l - 1] + (l - s) * As) / l) * ((pd * p) / (1 - p));
  return ((1 - p) / p) * (sum + tail);
}

/** RBO of two strict rankings (no ties), e.g. runs in trec_eval's order. */
export function rbo(a: readonly string[], b: readonly string[], p = 0.9): number {
  return rboTies(a.map((d) => [d]), b.map((d) => [d]), p);
}

/** Groups a ranking's documents with equal scores (adjacent, as a ranking sorted by score has them). */
export function tieGroups(docs: readonly string[], scores: ArrayLike<number>): string[][] {
  const out: string[][] = [];
  docs.forEach((d, i) => (i > 0 && scores[i] === scores[i - 1] ? out[out.length - 1].push(d) : out.push([d])));
  return out;
}

function flatten(groups: readonly (readonly string[])[]): { size: number; top: Map<string, number> } {
  const top = new Map<string, number>();
  let rank = 0;
  for (const g of groups) {
    for (const d of g) top.set(d, rank);
    rank += g.length;
  }
  return { size: rank, top };
}
