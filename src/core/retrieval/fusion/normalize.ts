/**
 * Score normalizations applied to one query's list (its first `depth` results) before fusion. `x` are the
 * scores in rank order (best first), n = x.length, r = 1-based rank:
 *
 *   none     x
 *   min-max  (x - min) / (max - min); 1 for every result when max = min      (the OpenSearch study, sklearn)
 *   max      x / max; 0 when max = 0                                          (ranx "max")
 *   sum      (x - min) / Σ(x - min); 1/n each when all are equal               (Montague & Aslam 2001 "Sum")
 *   l2       x / ‖x‖₂; 0 when ‖x‖₂ = 0                                        (the OpenSearch study)
 *   z-score  (x - mean) / std, population std; 0 when std = 0                  (Montague & Aslam "ZMUV")
 *   rank     1 - (r - 1) / n: 1 for the top result, 1/n for the last          (ranx "rank")
 *
 * A document that a list does not contain counts 0 for that list, whatever the normalization.
 *
 * Run files may hold `inf`/`-inf` scores (trec_eval reads them and ranks them first/last). Before any
 * normalization, +Infinity becomes the list's largest finite score plus its finite span and -Infinity its smallest
 * minus that span (span 1 when there is at most one finite value), so every formula stays finite and the list keeps
 * the order trec_eval gives it; equal infinities stay equal.
 */
export const NORMALIZATIONS = ['none', 'min-max', 'max', 'sum', 'l2', 'z-score', 'rank'] as const;
export type Normalization = (typeof NORMALIZATIONS)[number];

/** Writes the normalized scores of x[0, n) into out[0, n). */
export function normalizeList(norm: Normalization, scores: ArrayLike<number>, n: number, out: Float64Array): void {
  const x = finite(scores, n);
  switch (norm) {
    case 'none':
      for (let i = 0; i < n; i++) out[i] = x[i];
      return;
    case 'min-max': {
      const [min, max] = range(x, n);
      const span = max - min;
      for (let i = 0; i < n; i++) out[i] = span > 0 ? (x[i] - min) / span : 1;
      return;
    }
    case 'max': {
      const max = range(x, n)[1];
      for (let i = 0; i < n; i++) out[i] = max !== 0 ? x[i] / max : 0;
      return;
    }
    case 'sum': {
      const min = range(x, n)[0];
      let total = 0;
      for (let i = 0; i < n; i++) total += x[i] - min;
      for (let i = 0; i < n; i++) out[i] = total > 0 ? (x[i] - min) / total : 1 / n;
      return;
    }
    case 'l2': {
      let sq = 0;
      for (let i = 0; i < n; i++) sq += x[i] * x[i];
      const norm2 = Math.sqrt(sq);
      for (let i = 0; i < n; i++) out[i] = norm2 > 0 ? x[i] / norm2 : 0;
      return;
    }
    case 'z-score': {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += x[i];
      mean /= n;
      let v = 0;
      for (let i = 0; i < n; i++) v += (x[i] - mean) * (x[i] - mean);
      const std = Math.sqrt(v / n);
      for (let i = 0; i < n; i++) out[i] = std > 0 ? (x[i] - mean) / std : 0;
      return;
    }
    case 'rank':
      for (let i = 0; i < n; i++) out[i] = 1 - i / n;
      return;
  }
}

function range(x: ArrayLike<number>, n: number): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
  }
  return [min, max];
}

/** `x` itself when its first n scores are finite, else a copy with the infinities replaced (see above). */
function finite(x: ArrayLike<number>, n: number): ArrayLike<number> {
  let lo = Infinity;
  let hi = -Infinity;
  let all = true;
  for (let i = 0; i < n; i++) {
    const v = x[i];
    if (v === Infinity || v === -Infinity) all = false;
    else {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (all) return x;
  if (lo > hi) lo = hi = 0; // no finite score at all
  const span = hi > lo ? hi - lo : 1;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = x[i] === Infinity ? hi + span : x[i] === -Infinity ? lo - span : x[i];
  return out;
}
