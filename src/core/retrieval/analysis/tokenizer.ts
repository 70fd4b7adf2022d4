/**
 * Word segmentation close to Lucene's StandardTokenizer (Unicode UAX#29 word boundaries), written over
 * character classes rather than Intl.Segmenter: on the BEIR corpora the segmenter is several times slower and
 * also returns punctuation and spaces that have to be filtered (see test/bench/bm25.ts, which measures both).
 *
 * Rules implemented (UAX#29 numbering):
 *  - letters and digits join (WB5, WB8, WB9, WB10): "p53", "covid19";
 *  - a letter, then MidLetter / MidNumLet / apostrophe, then a letter stays one word (WB6, WB7):
 *    "don't", "e.g" (a final "." is not part of the word), "u.s.a", "a:b";
 *  - a digit, then MidNum / MidNumLet / apostrophe, then a digit stays one word (WB11, WB12): "3.14", "1,000";
 *  - Katakana runs (WB13); connector punctuation such as "_" joins words and numbers (WB13a/b);
 *  - combining marks and format characters (soft hyphen, ZWJ) are ignored inside a word (WB4);
 *  - every Han ideograph and every Hiragana character is a token by itself, as StandardTokenizer emits them;
 *    runs of Thai, Lao, Myanmar and Khmer letters stay one token (no dictionary segmentation, like Lucene);
 *  - everything else (spaces, hyphens, symbols, emoji) separates words and is dropped.
 * Tokens longer than 255 UTF-16 code units are split into pieces of at most 255, like Lucene's maxTokenLength.
 * Known differences: Hebrew-letter-specific rules (WB7a-c) and regional-indicator/emoji tokens are not modelled.
 */
export const MAX_TOKEN_LENGTH = 255;

const enum C {
  Other = 0,
  ALetter,
  Numeric,
  Katakana,
  ExtendNumLet,
  MidLetter,
  MidNum,
  MidNumLet, // includes the ASCII apostrophe (Single_Quote), which the rules treat the same way
  Extend, // Extend and Format: ignored inside words
  Ideo, // Han ideographs and Hiragana: one token per character
  SA, // South-East Asian scripts: a run is one token
  Unknown = 255,
}

const MID_LETTER = new Set([0x3a, 0xb7, 0x387, 0x5f4, 0x2027, 0xfe13, 0xfe55, 0xff1a]);
const MID_NUM_LET = new Set([0x27, 0x2e, 0x2018, 0x2019, 0x2024, 0xfe52, 0xff07, 0xff0e]);
const MID_NUM = new Set([
  0x2c, 0x3b, 0x37e, 0x589, 0x60c, 0x60d, 0x66c, 0x7f8, 0x2044, 0xfe10, 0xfe14, 0xfe50, 0xfe54, 0xff0c, 0xff1b,
]);

const RE_EXTEND = /[\p{M}\p{Cf}]/u;
const RE_IDEO = /[\p{Script=Han}\p{Script=Hiragana}]/u;
const RE_KATAKANA = /[\p{Script=Katakana}\u3031-\u3035\u309b\u309c\u30a0\u30fc\uff70]/u;
const RE_SA = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]/u;
const RE_NUMERIC = /\p{Nd}/u;
const RE_ALETTER = /[\p{Alphabetic}]/u;
const RE_CONNECTOR = /[\p{Pc}\u202f]/u;

function classifySlow(cp: number): C {
  if (MID_NUM_LET.has(cp)) return C.MidNumLet;
  if (MID_LETTER.has(cp)) return C.MidLetter;
  if (MID_NUM.has(cp)) return C.MidNum;
  if (cp === 0x200b) return C.Other; // ZERO WIDTH SPACE is a format character that still separates words
  const ch = String.fromCodePoint(cp);
  if (RE_EXTEND.test(ch)) return C.Extend;
  if (RE_KATAKANA.test(ch)) return C.Katakana;
  if (RE_IDEO.test(ch)) return C.Ideo;
  if (RE_SA.test(ch)) return C.SA;
  if (RE_NUMERIC.test(ch)) return C.Numeric;
  if (RE_ALETTER.test(ch)) return C.ALetter;
  if (RE_CONNECTOR.test(ch)) return C.ExtendNumLet;
  return C.Other;
}

// Basic Multilingual Plane classes, filled lazily (regex tests are slow; each code unit is classified once).
const BMP = new Uint8Array(0x10000).fill(C.Unknown);
for (let cp = 0; cp < 128; cp++) BMP[cp] = classifySlow(cp);
/** ASCII letters and digits: a run of them is one word (WB5, WB8-10). */
const ASCII_ALNUM = Uint8Array.from({ length: 128 }, (_, cp) => (BMP[cp] === C.ALetter || BMP[cp] === C.Numeric ? 1 : 0));
/** ASCII characters that end a word whatever surrounds them (not Mid*, not "_"). */
const ASCII_BREAK = Uint8Array.from({ length: 128 }, (_, cp) => (BMP[cp] === C.Other ? 1 : 0));

/** Class of the code point starting at u[i] (u[.. end) the text); sets `width` to its length in code units. */
let width = 1;
function classAt(u: Uint16Array, i: number, end: number): C {
  const c0 = u[i];
  if (c0 >= 0xd800 && c0 <= 0xdbff && i + 1 < end) {
    const c1 = u[i + 1];
    if (c1 >= 0xdc00 && c1 <= 0xdfff) {
      width = 2;
      return classifySlow((c0 - 0xd800) * 0x400 + (c1 - 0xdc00) + 0x10000);
    }
  }
  width = 1;
  let c = BMP[c0];
  if (c === C.Unknown) c = BMP[c0] = classifySlow(c0);
  return c;
}

function isWordClass(c: C): boolean {
  return c === C.ALetter || c === C.Numeric || c === C.Katakana || c === C.ExtendNumLet;
}

/** Whether `a` followed directly by `b` stays in one word (WB5, WB8-10, WB13, WB13a/b). */
function joins(a: C, b: C): boolean {
  if (a === C.ExtendNumLet) return b === C.ALetter || b === C.Numeric || b === C.Katakana || b === C.ExtendNumLet;
  if (b === C.ExtendNumLet) return a === C.ALetter || a === C.Numeric || a === C.Katakana;
  if (a === C.Katakana || b === C.Katakana) return a === b;
  return (a === C.ALetter || a === C.Numeric) && (b === C.ALetter || b === C.Numeric);
}

/** Skips Extend/Format characters from `i`; returns the index of the next other character (or `end`). */
function skipExtend(u: Uint16Array, i: number, end: number): number {
  while (i < end) {
    const c = classAt(u, i, end);
    if (c !== C.Extend) return i;
    i += width;
  }
  return i;
}

/** Token windows [start, end) of the last tokenized text, as pairs in a reused growable array. */
export class Spans {
  data = new Int32Array(512);
  count = 0;
  push(start: number, end: number): void {
    if (2 * this.count + 2 > this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[2 * this.count] = start;
    this.data[2 * this.count + 1] = end;
    this.count++;
  }
}

/**
 * Segments the UTF-16 code units u[from, to) into words: fills `out` with their windows (indexes into `u`), in
 * order, and returns how many. Code units rather than a string: the index build decodes corpus lines straight
 * into a reused array (corpusLine.ts), so no string is made per document; no strings are created here either.
 */
export function tokenizeUnits(u: Uint16Array, from: number, to: number, out: Spans): number {
  out.count = 0;
  const n = to;
  let i = from;
  while (i < n) {
    const start = i;
    // Fast path for the common case: a run of ASCII letters/digits ended by space or plain punctuation.
    const c0 = u[i];
    if (c0 < 128) {
      if (ASCII_ALNUM[c0] === 1) {
        let j = i + 1;
        let v = 0;
        while (j < n && (v = u[j]) < 128 && ASCII_ALNUM[v] === 1) j++;
        if (j >= n || (v < 128 && ASCII_BREAK[v] === 1)) {
          emit(start, j, out);
          i = j + 1;
          continue;
        }
      } else if (ASCII_BREAK[c0] === 1) {
        i++;
        continue;
      }
    }
    const c = classAt(u, i, n);
    i += width;
    if (c === C.Ideo) {
      i = skipExtend(u, i, n);
      emit(start, i, out);
      continue;
    }
    if (c === C.SA) {
      for (;;) {
        i = skipExtend(u, i, n);
        if (i >= n || classAt(u, i, n) !== C.SA) break;
        i += width;
      }
      emit(start, i, out);
      continue;
    }
    if (!isWordClass(c)) continue;
    let prev: C = c;
    let hasCore = c !== C.ExtendNumLet;
    let end: number;
    for (;;) {
      if (i >= n) {
        end = n;
        break;
      }
      const next = classAt(u, i, n);
      const w = width;
      if (next === C.Extend) {
        i += w; // WB4: part of the word so far
        continue;
      }
      end = i;
      if (joins(prev, next)) {
        prev = next;
        if (next !== C.ExtendNumLet) hasCore = true;
        i += w;
        continue;
      }
      const midOk =
        (prev === C.ALetter && (next === C.MidLetter || next === C.MidNumLet)) ||
        (prev === C.Numeric && (next === C.MidNum || next === C.MidNumLet));
      if (!midOk) break;
      const j = skipExtend(u, i + w, n);
      if (j >= n || classAt(u, j, n) !== prev) break;
      i = j + width;
    }
    if (hasCore) emit(start, end, out);
    i = end;
  }
  return out.count;
}

/** A string's UTF-16 code units, in a reused array that grows as needed. */
export class Units {
  data = new Uint16Array(1024);
  /** Copies `s` into `data` (from index 0); returns its length. */
  set(s: string): number {
    const n = s.length;
    if (this.data.length < n) this.data = new Uint16Array(Math.max(n, 2 * this.data.length));
    const d = this.data;
    for (let i = 0; i < n; i++) d[i] = s.charCodeAt(i);
    return n;
  }
}

const scratch = new Units();

/** Segments the string `s` into words (see tokenizeUnits): windows into `s`. */
export function tokenize(s: string, out: Spans): number {
  const n = scratch.set(s);
  return tokenizeUnits(scratch.data, 0, n, out);
}

function emit(start: number, end: number, out: Spans): void {
  while (end - start > MAX_TOKEN_LENGTH) {
    out.push(start, start + MAX_TOKEN_LENGTH);
    start += MAX_TOKEN_LENGTH;
  }
  out.push(start, end);
}

/** The words of `s` as strings (convenience for tests and short texts). */
export function words(s: string): string[] {
  const spans = new Spans();
  const n = tokenize(s, spans);
  const out: string[] = [];
  for (let k = 0; k < n; k++) out.push(s.slice(spans.data[2 * k], spans.data[2 * k + 1]));
  return out;
}
