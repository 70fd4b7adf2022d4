import { isSpace } from './lines';
/**
 * Number parsing straight from bytes. Scores must come out exactly as C's atof/strtod gives them (ties in
 * score decide rankings), so the fast path is used only where it is provably exact (Clinger's: an integer
 * mantissa below 2^53 scaled by an exactly representable power of ten); everything else goes through
 * JavaScript's correctly rounded parser.
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
  if ((e === end || isSpace(buf[e])) && !Number.isNaN(v)) {
    fieldEnd = e;
    return v;
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

/**
 * The common number, [+-]digits[.digits], read where it is provably exact (Clinger's fast path: an integer
 * mantissa below 2^53 scaled by an exactly representable power of ten); NaN for anything else. Sets
 * decimalEnd to where the digits stop.
 */
function readDecimal(buf: Buffer, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (i < end && (buf[i] === 45 || buf[i] === 43)) {
    neg = buf[i] === 45;
    i++;
  }
  let mantissa = 0;
  let digits = 0;
  let exp10 = 0;
  while (i < end && buf[i] >= 48 && buf[i] <= 57) {
    mantissa = mantissa * 10 + (buf[i] - 48);
    digits++;
    i++;
  }
  if (i < end && buf[i] === 46) {
    i++;
    while (i < end && buf[i] >= 48 && buf[i] <= 57) {
      mantissa = mantissa * 10 + (buf[i] - 48);
      digits++;
      exp10--;
      i++;
    }
  }
  decimalEnd = i;
  if (digits === 0 || mantissa >= MAX_EXACT || digits > 15 || exp10 < -22) return NaN;
  const v = exp10 === 0 ? mantissa : mantissa / POW10[-exp10];
  return neg ? -v : v;
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
