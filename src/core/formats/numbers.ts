import { isSpace } from './lines';
/**
 * Number parsing straight from bytes. Scores must come out exactly as C's atof/strtod gives them (ties in
 * score decide rankings), so the fast paths are used only where they are provably exact (see readDecimal);
 * everything else goes through JavaScript's correctly rounded parser.
 */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const MAX_EXACT = 2 ** 53;

/** Parses a decimal or exponent float (also inf/infinity). Returns NaN if the bytes are not exactly a number. */
export function parseFloatBytes(buf: Buffer, start: number, end: number): number {
  const v = readDecimal(buf, start, end);
  return decimalEnd === end && !Number.isNaN(v) ? v : slowParse(buf.toString('latin1', start, end));
}

/**
 * parseFloatBytes() of the field starting at `start` (up to whitespace or `end`), for a reader that has not
 * found the field's end yet: reads it in the same pass. floatFieldEnd() then tells where the field ends.
 */
export function parseFloatField(buf: Buffer, start: number, end: number): number {
  const v = readDecimal(buf, start, end);
  let e = decimalEnd;
  if (e === end || isSpace(buf[e])) {
    fieldEnd = e;
    if (!Number.isNaN(v)) return v;
    // Plain digits, too many for the exact fast path (a score printed with 17 digits, as Python's repr does):
    // JavaScript's parser, skipping slowParse's syntax check (~a third of the cold reading of such a run).
    if (decimalDigits > 0) return Number(buf.toString('latin1', start, e));
  }
  while (e < end && !isSpace(buf[e])) e++;
  fieldEnd = e;
  return slowParse(buf.toString('latin1', start, e));
}

/** Where the field read by the last parseFloatField() ends. */
export function floatFieldEnd(): number {
  return fieldEnd;
}

let fieldEnd = 0;
let decimalEnd = 0;
/** Digits read by the last readDecimal(). */
let decimalDigits = 0;

/**
 * The common number, [+-]digits[.digits], read where it is provably exact; NaN for anything else. Sets
 * decimalEnd to where the digits stop. Up to 2^53 the mantissa and a power of ten up to 1e22 are exact
 * doubles and one division rounds correctly (Clinger's fast path); longer mantissas (the 16-17 digits of
 * Python's repr of a float, the most common score there is) go through longDecimal(). 20 digits or more, or
 * more than 22 after the point: NaN (the caller's exact parser).
 */
function readDecimal(buf: Buffer, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (i < end && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  // The mantissa as head * 10^tail + rest: head its first 15 digits, rest the `tail` digits after them (both
  // exact integers), read in one pass.
  let head = 0;
  let rest = 0;
  let digits = 0;
  let exp10 = 0;
  let fraction = false;
  for (; i < end; i++) {
    const c = buf[i];
    if (c === 46 && !fraction) {
      fraction = true;
      continue;
    }
    if (c < 48 || c > 57) break;
    if (digits < 15) head = head * 10 + (c - 48);
    else rest = rest * 10 + (c - 48);
    digits++;
    if (fraction) exp10--;
  }
  decimalEnd = i;
  decimalDigits = digits;
  if (digits === 0 || exp10 < -22 || digits > 19) return NaN;
  const tail = digits > 15 ? digits - 15 : 0;
  // Exact when below 2^53 (head * 10^tail is then below it too).
  const mantissa = tail === 0 ? head : head * POW10[tail] + rest;
  const v = mantissa < MAX_EXACT ? (exp10 === 0 ? mantissa : mantissa / POW10[-exp10]) : longDecimal(head, POW10[tail], rest, -exp10);
  return neg ? -v : v;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Index of the high (sign, exponent) word of f64 in u32. */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const halfF64 = new Float64Array(1);
const half = new Uint32Array(halfF64.buffer);
let productHi = 0;
let productLo = 0;

/** x * y exactly, as productHi + productLo (Dekker's product: JavaScript has no fused multiply-add). */
function twoProduct(x: number, y: number): void {
  const p = x * y;
  let c = 134217729 * x; // 2^27 + 1: Veltkamp's split
  const xh = c - (c - x);
  const xl = x - xh;
  c = 134217729 * y;
  const yh = c - (c - y);
  const yl = y - yh;
  productHi = p;
  productLo = xh * yh - p + xh * yl + xl * yh + xl * yl;
}

/**
 * (head * scale + rest) / 10^k correctly rounded, as strtod gives it, for a mantissa M = head * scale + rest of
 * 2^53 or more (up to 19 digits: scale = 10^(digits - 15), rest < scale) and k <= 22; NaN (the caller then uses
 * JavaScript's parser) where this cannot tell at once. A candidate q (an ulp or two off at most) is the double
 * nearest M / 10^k exactly when |M - q * 10^k| is less than half an ulp of q times 10^k: both sides are computed
 * exactly but for one rounding far below the margin kept (1 %), M as x + y + rest (x + y = head * scale), q *
 * 10^k as productHi + productLo. x - productHi is exact (Sterbenz: the two are within a factor of 2) and an
 * integer (doubles past 2^52 are), as are y and rest.
 */
function longDecimal(head: number, scale: number, rest: number, k: number): number {
  const p = POW10[k];
  twoProduct(head, scale);
  const x = productHi;
  const y = productLo;
  let q = (x + (y + rest)) / p;
  for (let step = 0; step < 3; step++) {
    f64[0] = q;
    const hi = u32[HI];
    const biased = (hi >>> 20) & 0x7ff;
    // A power of two has a smaller ulp below it than above: left to the exact parser, as are extremes.
    if (biased < 60 || biased > 2000 || ((hi & 0xfffff) === 0 && u32[1 - HI] === 0)) return NaN;
    // Half an ulp of q, 2^(biased - 1076), built from its bits (Math.pow was a third of reading a score).
    half[HI] = (biased - 53) << 20;
    const halfUlpTimesP = halfF64[0] * p;
    twoProduct(q, p);
    const e = x - productHi + y + rest - productLo;
    if (Math.abs(e) < 0.99 * halfUlpTimesP) return q;
    if (Math.abs(e) > 4 * halfUlpTimesP) return NaN;
    // The neighbouring double towards M / 10^k (q is positive: its bits count up with its value).
    if (e > 0) {
      if (u32[1 - HI] === 0xffffffff) u32[HI]++;
      u32[1 - HI]++;
    } else {
      if (u32[1 - HI] === 0) u32[HI]--;
      u32[1 - HI]--;
    }
    q = f64[0];
  }
  return NaN;
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INF_RE = /^[+-]?inf(inity)?$/i;

function slowParse(s: string): number {
  if (NUMBER_RE.test(s)) return Number(s);
  if (INF_RE.test(s)) return s[0] === '-' ? -Infinity : Infinity;
  return NaN;
}

/** Parses an optionally signed decimal integer; returns NaN for anything else (including "1.5"). */
export function parseIntBytes(buf: Buffer, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (i < end && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  if (i === end) return NaN;
  let v = 0;
  for (; i < end; i++) {
    const c = buf[i];
    if (c < 48 || c > 57) return NaN;
    v = v * 10 + (c - 48);
  }
  if (v > Number.MAX_SAFE_INTEGER) return NaN;
  return neg ? -v : v;
}
