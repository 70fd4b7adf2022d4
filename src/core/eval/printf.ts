/**
 * printf("%.<digits>f") for doubles. JavaScript's toFixed rounds exact halves up, C rounds them to even; a
 * double x is exactly halfway at `digits` decimals only when x * 2^(digits+1) is an odd integer.
 */
export function formatFixed(x: number, digits: number, positiveNaN = false): string {
  // trec_eval's NaNs come from 0.0 / 0.0, which x86 makes negative: glibc prints "-nan".
  if (!Number.isFinite(x)) return Number.isNaN(x) ? (positiveNaN ? 'nan' : '-nan') : x > 0 ? 'inf' : '-inf';
  const t = Math.abs(x) * 2 ** (digits + 1);
  if (Number.isInteger(t) && t % 2 === 1 && t < 2 ** 53) {
    const scale = 10 ** digits;
    let n = Math.floor(Math.abs(x) * scale);
    if (n % 2 === 1) n++;
    const s = String(n).padStart(digits + 1, '0');
    const body = digits ? `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}` : s;
    return x < 0 ? `-${body}` : body;
  }
  return x.toFixed(digits);
}
