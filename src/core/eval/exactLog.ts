/**
 * The natural logarithm rounded correctly to the nearest double, as glibc's log gives it in practice.
 * V8's Math.log (fdlibm) is up to 1 ulp off, which matters where trec_eval's output depends on exact
 * cancellation: yaap of two queries with AP ratios x and 1/x averages to exactly 0 in trec_eval, and to
 * -2.8e-17 (printed "-0.0000") with Math.log. glibc is itself off in about 1 case in 2,000 (it promises 0.52 ulp),
 * where this keeps the correctly rounded value. Computed in 192-bit fixed point with BigInt, so it is only
 * for per-query values, not per document.
 */
const P = 192n;
const ONE = 1n << P;

/** 2 * atanh(z) = ln((1 + z) / (1 - z)) for fixed-point |z| <= 1/3, by its series. */
function twoAtanh(z: bigint): bigint {
  const z2 = (z * z) >> P;
  let term = z;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * z2) >> P;
  }
  return 2n * sum;
}

const LN2 = twoAtanh(ONE / 3n);

export function exactLog(x: number): number {
  if (!(x > 0) || x === Infinity) return Math.log(x);
  // x = m * 2^e with m in [1, 2): both exact for a normal double.
  let e = Math.floor(Math.log2(x));
  // Math.log2 may be off by one near a power of two.
  if (x / 2 ** e >= 2) e++;
  else if (x / 2 ** e < 1) e--;
  const m = x / 2 ** e;
  const ms = BigInt(m * 2 ** 52) << (P - 52n);
  // ln m = 2 atanh((m - 1) / (m + 1)).
  const fixed = twoAtanh(((ms - ONE) << P) / (ms + ONE)) + BigInt(e) * LN2;
  // Number(bigint) rounds to nearest once; dividing by a power of two is then exact.
  return Number(fixed) / 2 ** Number(P);
}
