/** Checks that two per-query score lists pair the same queries; returns their length. */
export function checkPaired(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`paired test: ${a.length} values against ${b.length}; pair the same queries`);
  if (a.length === 0) throw new Error('paired test: no queries to compare');
  return a.length;
}

/** a[i] - b[i] for each query. */
export function differences(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  const n = checkPaired(a, b);
  const d = new Float64Array(n);
  for (let i = 0; i < n; i++) d[i] = a[i] - b[i];
  return d;
}
