/** Bonferroni adjusted p-values: each p times the number of tests, capped at 1 (family-wise error rate). */
export function bonferroniAdjust(p: readonly number[]): number[] {
  return p.map((v) => Math.min(1, v * p.length));
}
