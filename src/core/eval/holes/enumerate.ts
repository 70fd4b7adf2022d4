/**
 * The assignments of grades to free holes that the interval search visits. Holes whose position does not
 * matter (a run does not retrieve them) are interchangeable: only how many get each grade counts.
 */

/**
 * Every way to give `n` interchangeable holes grades from a scale of `size`: visits each count vector in `c`
 * (c[i] holes get scale[i]), the first grade's count from n down. A loop of calls, not a generator: the
 * interval searches visit millions of vectors, and each generator step allocated (~15 % of irw compare's time
 * went to collecting that garbage).
 */
function forEachCountVector(n: number, size: number, c: Int32Array, visit: () => void): void {
  const rec = (i: number, left: number): void => {
    if (i === size - 1) {
      c[i] = left;
      visit();
      return;
    }
    for (let k = left; k >= 0; k--) {
      c[i] = k;
      rec(i + 1, left - k);
    }
  };
  if (size > 0) rec(0, n);
}

/** Number of count vectors forEachCountVector(n, size) visits: C(n + size - 1, size - 1). */
export function countVectors(n: number, size: number): number {
  let r = 1;
  for (let i = 1; i < size; i++) r = (r * (n + i)) / i;
  return Math.round(r);
}

/**
 * Visits every assignment of `scale` grades to the `ordered` holes (all combinations) times every count
 * vector over the `pooled` holes (which get grades in their listed order), writing into `grades`.
 */
export function forEachAssignment(
  ordered: readonly number[],
  pooled: readonly number[],
  scale: readonly number[],
  grades: Int32Array,
  visit: () => void,
): void {
  const s = scale.length;
  const c = new Int32Array(s);
  const rec = (i: number): void => {
    if (i === ordered.length) {
      forEachCountVector(pooled.length, s, c, () => {
        let at = 0;
        for (let g = 0; g < s; g++) for (let k = 0; k < c[g]; k++) grades[pooled[at++]] = scale[g];
        visit();
      });
      return;
    }
    for (const g of scale) {
      grades[ordered[i]] = g;
      rec(i + 1);
    }
  };
  rec(0);
}

/** Assignments forEachAssignment visits. */
export function assignmentCount(ordered: number, pooled: number, scale: number): number {
  return scale ** ordered * countVectors(pooled, scale);
}

/**
 * For each count vector over `holes` (sorted best position first), the two rearranged assignments: highest
 * grades to the first holes (`high`), and highest grades to the last (`low`).
 */
export function forEachSortedAssignment(
  holes: readonly number[],
  scale: readonly number[],
  grades: Int32Array,
  visit: () => void,
): void {
  const s = scale.length;
  const c = new Int32Array(s);
  forEachCountVector(holes.length, s, c, () => {
    let at = 0;
    for (let g = s - 1; g >= 0; g--) for (let k = 0; k < c[g]; k++) grades[holes[at++]] = scale[g];
    visit();
    at = 0;
    for (let g = 0; g < s; g++) for (let k = 0; k < c[g]; k++) grades[holes[at++]] = scale[g];
    visit();
  });
}
