/**
 * An interval's ends rounded outward to `decimals` places, so the printed interval holds the computed one
 * (the CLI, the exports and the panels print ranges and intervals this way). A billionth of the last digit is
 * floating-point noise (0.61 stored as 0.6099999999), not a value past the printed one; zero has no sign.
 */
export function outwardEnds(lo: number, hi: number, decimals: number): [number, number] {
  const f = 10 ** decimals;
  const end = (r: number) => (Object.is(r, -0) ? 0 : r);
  return [end(Math.floor(lo * f + 1e-9) / f), end(Math.ceil(hi * f - 1e-9) / f)];
}
