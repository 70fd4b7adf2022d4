/** Jaccard similarity of the top k of two rankings: shared documents over all documents; 1 for two empty tops. */
export function jaccardAt(a: readonly string[], b: readonly string[], k: number): number {
  const A = new Set(a.slice(0, k));
  const B = new Set(b.slice(0, k));
  let shared = 0;
  for (const d of A) if (B.has(d)) shared++;
  const union = A.size + B.size - shared;
  return union === 0 ? 1 : shared / union;
}
