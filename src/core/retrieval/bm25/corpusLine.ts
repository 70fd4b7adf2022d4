/**
 * The index build's reader of ordinary corpus.jsonl lines: it checks a line's JSON in its bytes and decodes the
 * "title" and "text" strings straight into one reused array of UTF-16 code units, which the analyser tokenizes
 * (Analyzer.termIdsOf): no line string, no parsed object, no title and text strings, no flat "title text"
 * concatenation. Reading and analysing SciFact this way is the largest part of a cold `irw run`.
 *
 * It takes only what it can decide exactly as the general reader (formats/beir.ts: JSON.parse of the line) would:
 * one JSON object with a non-empty string "_id" without whitespace, a string "text", a string or null "title"
 * (or none), any other members (validated, skipped), no member twice, keys without escapes, and valid UTF-8 in
 * the three strings. Any other line (bad JSON, a missing or mistyped field, a duplicate key, invalid UTF-8, a
 * blank line, nesting deeper than MAX_DEPTH) is left to the general reader, which reads it, skips it or reports
 * it as it always has.
 */
export class CorpusLineScanner {
  /** The document's code units: title at [0, titleEnd), then a space, then text at [textStart, textEnd). */
  units = new Uint16Array(1 << 16);
  id = '';
  titleEnd = 0;
  textStart = 0;
  textEnd = 0;
  /** The flat text, title + " " + text as flatText() makes it, is units[flatStart, textEnd). */
  flatStart = 0;
  private idUnits = new Uint16Array(256);
  private buf: Uint8Array = new Uint8Array(0);
  private at = 0;
  private end = 0;

  /** Scans one line, bytes [start, end) of `buf`; true when it is an ordinary document (see above). */
  scan(buf: Uint8Array, start: number, end: number): boolean {
    this.buf = buf;
    this.at = start;
    this.end = end;
    // The most a line can decode to: one code unit per byte (and the space after the title).
    if (this.units.length < end - start + 1) this.units = new Uint16Array(Math.max(end - start + 1, 2 * this.units.length));
    if (this.idUnits.length < end - start) this.idUnits = new Uint16Array(Math.max(end - start, 2 * this.idUnits.length));
    return this.object();
  }

  private object(): boolean {
    const buf = this.buf;
    this.ws();
    if (this.at >= this.end || buf[this.at] !== 0x7b) return false;
    this.at++;
    // The title and the text are decoded where they come, one after the other (a free unit after each, for the
    // space of the flat text); NONE: not seen, NULL_TITLE: a null title.
    let titleStart = NONE;
    let textStart = NONE;
    let idSeen = false;
    let cursor = 0;
    for (;;) {
      this.ws();
      const key = this.key();
      if (key === BAD) return false;
      this.ws();
      if (this.at >= this.end || buf[this.at] !== 0x3a) return false;
      this.at++;
      this.ws();
      if (key === OTHER) {
        if (!this.skipValue(0)) return false;
      } else if (key === ID) {
        if (idSeen || !this.decodeId()) return false;
        idSeen = true;
      } else if (key === TITLE) {
        if (titleStart !== NONE) return false;
        if (this.isNull()) titleStart = NULL_TITLE;
        else {
          const end = this.decode(cursor);
          if (end < 0) return false;
          titleStart = cursor;
          this.titleEnd = end;
          cursor = end + 1;
        }
      } else {
        if (textStart !== NONE) return false;
        const end = this.decode(cursor);
        if (end < 0) return false;
        textStart = cursor;
        this.textEnd = end;
        cursor = end + 1;
      }
      this.ws();
      if (this.at >= this.end) return false;
      const c = buf[this.at++];
      if (c === 0x7d) break;
      if (c !== 0x2c) return false;
    }
    this.ws();
    if (this.at !== this.end || !idSeen || textStart === NONE) return false;
    if (titleStart < 0) {
      // No title, or null: the text alone, at 0.
      this.titleEnd = 0;
      this.textStart = textStart;
    } else if (titleStart < textStart) this.textStart = textStart;
    else this.titleFirst(titleStart);
    if (this.titleEnd > 0) this.units[this.titleEnd] = 0x20;
    this.flatStart = this.titleEnd > 0 ? 0 : this.textStart;
    return true;
  }

  /** A text decoded before its title (at 0) and the title after it become title, free unit, text. */
  private titleFirst(titleStart: number): void {
    const u = this.units;
    const text = u.slice(0, this.textEnd);
    const n = this.titleEnd - titleStart;
    u.copyWithin(0, titleStart, this.titleEnd);
    this.titleEnd = n;
    u.set(text, n + 1);
    this.textStart = n + 1;
    this.textEnd = n + 1 + text.length;
  }

  private ws(): void {
    const buf = this.buf;
    while (this.at < this.end) {
      const c = buf[this.at];
      if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return;
      this.at++;
    }
  }

  /** A member's key: ID, TITLE, TEXT, OTHER, or BAD (not a string, or one with an escape or a control byte). */
  private key(): number {
    const buf = this.buf;
    if (this.at >= this.end || buf[this.at] !== 0x22) return BAD;
    const start = ++this.at;
    while (this.at < this.end) {
      const c = buf[this.at];
      if (c === 0x22) {
        const len = this.at++ - start;
        if (len === 3 && buf[start] === 0x5f && buf[start + 1] === 0x69 && buf[start + 2] === 0x64) return ID; // _id
        if (len === 4 && buf[start] === 0x74 && buf[start + 1] === 0x65 && buf[start + 2] === 0x78 && buf[start + 3] === 0x74) return TEXT;
        if (len === 5 && buf[start] === 0x74 && buf[start + 1] === 0x69 && buf[start + 2] === 0x74 && buf[start + 3] === 0x6c && buf[start + 4] === 0x65) return TITLE;
        return OTHER;
      }
      if (c === 0x5c || c < 0x20) return BAD;
      this.at++;
    }
    return BAD;
  }

  private isNull(): boolean {
    const buf = this.buf;
    const a = this.at;
    if (a + 4 <= this.end && buf[a] === 0x6e && buf[a + 1] === 0x75 && buf[a + 2] === 0x6c && buf[a + 3] === 0x6c) {
      this.at += 4;
      return true;
    }
    return false;
  }

  /** The "_id" string: non-empty, no whitespace (else the general reader reports it); decoded into idUnits. */
  private decodeId(): boolean {
    const units = this.units;
    this.units = this.idUnits;
    const to = this.decode(0);
    this.idUnits = this.units;
    this.units = units;
    if (to <= 0) return false;
    const u = this.idUnits;
    let ascii = true;
    for (let i = 0; i < to; i++) {
      const c = u[i];
      if (c <= 0x20) return false; // whitespace or a control character
      if (c >= 0x80) ascii = false;
    }
    this.id = String.fromCharCode.apply(null, u.subarray(0, to) as unknown as number[]);
    return ascii || !/\s/.test(this.id);
  }

  /**
   * Decodes the JSON string at `at` (its opening quote) into units[from..] and moves past it; returns where the
   * decoded units end, or -1 when it is no valid JSON string or holds invalid UTF-8 (the general reader decodes
   * that as U+FFFD: left to it). `units` has room: a string decodes to at most one code unit per byte.
   */
  private decode(from: number): number {
    const buf = this.buf;
    const end = this.end;
    const u = this.units;
    let i = this.at;
    if (i >= end || buf[i] !== 0x22) return -1;
    i++;
    let o = from;
    for (;;) {
      if (i >= end) return -1;
      const c = buf[i];
      if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) {
        u[o++] = c;
        i++;
        continue;
      }
      if (c === 0x22) break;
      if (c < 0x20) return -1;
      if (c === 0x5c) {
        if (i + 1 >= end) return -1;
        const e = buf[i + 1];
        i += 2;
        if (e === 0x75) {
          if (i + 4 > end) return -1;
          const v = (hex(buf[i]) << 12) | (hex(buf[i + 1]) << 8) | (hex(buf[i + 2]) << 4) | hex(buf[i + 3]);
          if (v < 0) return -1;
          u[o++] = v;
          i += 4;
        } else {
          const v = e < 128 ? ESCAPED[e] : 0;
          if (v === 0) return -1;
          u[o++] = v;
        }
        continue;
      }
      // UTF-8: only well-formed sequences (RFC 3629); anything else is left to the general reader.
      if (c >= 0xc2 && c <= 0xdf) {
        if (i + 1 >= end || !cont(buf[i + 1])) return -1;
        u[o++] = ((c & 0x1f) << 6) | (buf[i + 1] & 0x3f);
        i += 2;
      } else if (c >= 0xe0 && c <= 0xef) {
        if (i + 2 >= end) return -1;
        const c1 = buf[i + 1];
        const lo = c === 0xe0 ? 0xa0 : 0x80;
        const hi = c === 0xed ? 0x9f : 0xbf;
        if (c1 < lo || c1 > hi || !cont(buf[i + 2])) return -1;
        u[o++] = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (buf[i + 2] & 0x3f);
        i += 3;
      } else if (c >= 0xf0 && c <= 0xf4) {
        if (i + 3 >= end) return -1;
        const c1 = buf[i + 1];
        const lo = c === 0xf0 ? 0x90 : 0x80;
        const hi = c === 0xf4 ? 0x8f : 0xbf;
        if (c1 < lo || c1 > hi || !cont(buf[i + 2]) || !cont(buf[i + 3])) return -1;
        const cp = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((buf[i + 2] & 0x3f) << 6) | (buf[i + 3] & 0x3f);
        u[o++] = 0xd800 + ((cp - 0x10000) >> 10);
        u[o++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        i += 4;
      } else return -1;
    }
    this.at = i + 1;
    return o;
  }

  /** Skips one JSON value, checking it (any bytes of 0x80 and above inside strings: JSON.parse accepts them all). */
  private skipValue(depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const buf = this.buf;
    const end = this.end;
    if (this.at >= end) return false;
    const c = buf[this.at];
    if (c === 0x22) {
      let i = this.at + 1;
      for (;;) {
        if (i >= end) return false;
        const b = buf[i];
        if (b === 0x22) break;
        if (b < 0x20) return false;
        if (b === 0x5c) {
          if (i + 1 >= end) return false;
          const e = buf[i + 1];
          if (e === 0x75) {
            if (i + 6 > end || (hex(buf[i + 2]) | hex(buf[i + 3]) | hex(buf[i + 4]) | hex(buf[i + 5])) < 0) return false;
            i += 6;
          } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
          else return false;
        } else i++;
      }
      this.at = i + 1;
      return true;
    }
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? 0x7d : 0x5d;
      this.at++;
      this.ws();
      if (this.at < end && buf[this.at] === close) {
        this.at++;
        return true;
      }
      for (;;) {
        this.ws();
        if (c === 0x7b) {
          if (this.at >= end || buf[this.at] !== 0x22 || !this.skipValue(depth + 1)) return false;
          this.ws();
          if (this.at >= end || buf[this.at] !== 0x3a) return false;
          this.at++;
          this.ws();
        }
        if (!this.skipValue(depth + 1)) return false;
        this.ws();
        if (this.at >= end) return false;
        const d = buf[this.at++];
        if (d === close) return true;
        if (d !== 0x2c) return false;
      }
    }
    if (c === 0x74) return this.literal(TRUE);
    if (c === 0x66) return this.literal(FALSE);
    if (c === 0x6e) return this.literal(NULL);
    return this.number();
  }

  private literal(word: Uint8Array): boolean {
    if (this.at + word.length > this.end) return false;
    for (let k = 0; k < word.length; k++) if (this.buf[this.at + k] !== word[k]) return false;
    this.at += word.length;
    return true;
  }

  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  private number(): boolean {
    const buf = this.buf;
    const end = this.end;
    let i = this.at;
    if (i < end && buf[i] === 0x2d) i++;
    if (i >= end) return false;
    if (buf[i] === 0x30) i++;
    else if (buf[i] >= 0x31 && buf[i] <= 0x39) while (i < end && isDigit(buf[i])) i++;
    else return false;
    if (i < end && buf[i] === 0x2e) {
      i++;
      if (i >= end || !isDigit(buf[i])) return false;
      while (i < end && isDigit(buf[i])) i++;
    }
    if (i < end && (buf[i] === 0x65 || buf[i] === 0x45)) {
      i++;
      if (i < end && (buf[i] === 0x2b || buf[i] === 0x2d)) i++;
      if (i >= end || !isDigit(buf[i])) return false;
      while (i < end && isDigit(buf[i])) i++;
    }
    this.at = i;
    return true;
  }
}

const NONE = -1;
const NULL_TITLE = -2;
const BAD = -1;
const OTHER = 0;
const ID = 1;
const TITLE = 2;
const TEXT = 3;
/** Deeper metadata is left to the general reader (JSON.parse has no such limit; recursion here has). */
const MAX_DEPTH = 64;
const TRUE = Uint8Array.of(0x74, 0x72, 0x75, 0x65);
const FALSE = Uint8Array.of(0x66, 0x61, 0x6c, 0x73, 0x65);
const NULL = Uint8Array.of(0x6e, 0x75, 0x6c, 0x6c);

/** The code unit of a one-letter escape, by its letter; 0 for any other letter (not JSON). */
const ESCAPED = new Uint16Array(128);
ESCAPED[0x22] = 0x22; // \"
ESCAPED[0x5c] = 0x5c; // \\
ESCAPED[0x2f] = 0x2f; // \/
ESCAPED[0x62] = 0x08; // \b
ESCAPED[0x66] = 0x0c; // \f
ESCAPED[0x6e] = 0x0a; // \n
ESCAPED[0x72] = 0x0d; // \r
ESCAPED[0x74] = 0x09; // \t

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function cont(c: number): boolean {
  return (c & 0xc0) === 0x80;
}

/** A hex digit's value, or -65536 (negative whatever it is or-ed with). */
function hex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -65536;
}
