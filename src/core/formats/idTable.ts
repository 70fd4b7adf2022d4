/** What a run needs of its document ids: strings on demand, byte order, and per-entry hashes and bytes. */
export interface DocIds {
  readonly size: number;
  string(id: number): string;
  compare(a: number, b: number): number;
  hash(id: number): number;
  equalsBytes(id: number, buf: Buffer, start: number, end: number): boolean;
  readonly buffer: Buffer;
  start(id: number): number;
  end(id: number): number;
}

/** FNV-1a over bytes with a final avalanche, so the low bits index small tables well. */
export function hashBytes(buf: Buffer, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], FNV_PRIME);
  return avalanche(h);
}

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

export function avalanche(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 0;
}

/**
 * Interns byte strings (ids read from files) as dense integers without making a JavaScript string per line:
 * an open-addressing hash table over a growing byte arena. Ids compare in byte order, which is trec_eval's
 * strcmp order (and, for UTF-8, code-point order).
 */
export class IdTable implements DocIds {
  private arena: Buffer;
  private used = 0;
  private starts: Int32Array;
  private ends: Int32Array;
  private slots: Int32Array; // pairs (id + 1, hash); id + 1 = 0 marks an empty slot
  private mask: number;
  private count = 0;
  private decoded: (string | undefined)[] = [];

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size <<= 1;
    this.slots = new Int32Array(2 * size);
    this.mask = size - 1;
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.arena = Buffer.allocUnsafe(Math.max(4096, capacity * 16));
  }

  get size(): number {
    return this.count;
  }

  /** The id of buf[start, end), adding it if new. */
  intern(buf: Buffer, start: number, end: number): number {
    const h = hashBytes(buf, start, end);
    const slots = this.slots;
    let slot = h & this.mask;
    for (;;) {
      const v = slots[2 * slot];
      if (v === 0) break;
      // Comparing the stored hash first avoids touching the arena for most non-matching probes.
      if (slots[2 * slot + 1] === h && this.equals(v - 1, buf, start, end)) return v - 1;
      slot = (slot + 1) & this.mask;
    }
    const id = this.count++;
    this.store(id, buf, start, end);
    slots[2 * slot] = id + 1;
    slots[2 * slot + 1] = h;
    if (this.count * 2 > this.mask) this.rehash();
    return id;
  }

  /** The id of buf[start, end), or -1 if it was never interned. */
  find(buf: Buffer, start: number, end: number): number {
    const h = hashBytes(buf, start, end);
    let slot = h & this.mask;
    for (;;) {
      const v = this.slots[2 * slot];
      if (v === 0) return -1;
      if (this.slots[2 * slot + 1] === h && this.equals(v - 1, buf, start, end)) return v - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  internString(s: string): number {
    const b = encodeId(s);
    return this.intern(b, 0, b.length);
  }

  /** The id as a string (decoded once, then cached). */
  string(id: number): string {
    let s = this.decoded[id];
    if (s === undefined) {
      s = decodeId(this.arena, this.starts[id], this.ends[id]);
      this.decoded[id] = s;
    }
    return s;
  }

  /** strcmp-style comparison of two ids' bytes: negative, zero or positive. */
  compare(a: number, b: number): number {
    if (a === b) return 0;
    return Buffer.compare(
      this.arena.subarray(this.starts[a], this.ends[a]),
      this.arena.subarray(this.starts[b], this.ends[b]),
    );
  }

  hash(id: number): number {
    return hashBytes(this.arena, this.starts[id], this.ends[id]);
  }

  get buffer(): Buffer {
    return this.arena;
  }

  start(id: number): number {
    return this.starts[id];
  }

  end(id: number): number {
    return this.ends[id];
  }

  equalsBytes(id: number, buf: Buffer, start: number, end: number): boolean {
    return this.equals(id, buf, start, end);
  }

  private equals(id: number, buf: Buffer, start: number, end: number): boolean {
    const s = this.starts[id];
    const len = this.ends[id] - s;
    if (len !== end - start) return false;
    const arena = this.arena;
    for (let i = 0; i < len; i++) if (arena[s + i] !== buf[start + i]) return false;
    return true;
  }

  private store(id: number, buf: Buffer, start: number, end: number): void {
    const len = end - start;
    if (this.used + len > this.arena.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.arena.length * 2, this.used + len));
      this.arena.copy(grown, 0, 0, this.used);
      this.arena = grown;
    }
    if (id >= this.starts.length) {
      const n = this.starts.length * 2;
      const s = new Int32Array(n);
      s.set(this.starts);
      const e = new Int32Array(n);
      e.set(this.ends);
      this.starts = s;
      this.ends = e;
    }
    buf.copy(this.arena, this.used, start, end);
    this.starts[id] = this.used;
    this.used += len;
    this.ends[id] = this.used;
  }

  private rehash(): void {
    const old = this.slots;
    const size = (this.mask + 1) * 2;
    this.slots = new Int32Array(2 * size);
    this.mask = size - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0) continue;
      let slot = old[i + 1] & this.mask;
      while (this.slots[2 * slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[2 * slot] = old[i];
      this.slots[2 * slot + 1] = old[i + 1];
    }
  }
}

/**
 * Ids are bytes to trec_eval, and need not be UTF-8. An id becomes a string losslessly: valid UTF-8 decodes as
 * usual, and each byte that is not part of valid UTF-8 becomes a lone surrogate U+DC80..U+DCFF (Python's
 * "surrogateescape"), which valid UTF-8 never produces; so `\xe9` matches itself and `\xff` and `\xfe` stay
 * distinct. encodeId() gives the bytes back.
 */
export function decodeId(buf: Buffer, start: number, end: number): string {
  let i = start;
  while (i < end && buf[i] < 0x80) i++;
  if (i === end) return buf.toString('latin1', start, end);
  const s = buf.toString('utf8', start, end);
  // U+FFFD in the output means either a real U+FFFD (EF BF BD) or an invalid byte; only then decode by hand.
  if (!s.includes('\ufffd')) return s;
  return escapeDecode(buf, start, end);
}

function escapeDecode(buf: Buffer, start: number, end: number): string {
  const units: number[] = [];
  let i = start;
  while (i < end) {
    const b = buf[i];
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let cp = n === 1 ? b : n === 2 ? b & 0x1f : n === 3 ? b & 0x0f : b & 0x07;
    let ok = n > 0 && i + n <= end;
    for (let k = 1; ok && k < n; k++) {
      const c = buf[i + k];
      if ((c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not valid UTF-8.
    if (ok && ((n === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n === 4 && (cp < 0x10000 || cp > 0x10ffff)))) ok = false;
    if (!ok) {
      units.push(0xdc00 + b);
      i++;
      continue;
    }
    if (cp >= 0x10000) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
    else units.push(cp);
    i += n;
  }
  let out = '';
  for (let k = 0; k < units.length; k += 4096) out += String.fromCharCode(...units.slice(k, k + 4096));
  return out;
}

/** A lone low surrogate in U+DC80..U+DCFF: an escaped byte from decodeId(). */
const ESCAPED_BYTE = /(?<![\ud800-\udbff])[\udc80-\udcff]/;

/** The bytes of an id made by decodeId() (UTF-8, with escaped bytes restored). */
export function encodeId(s: string): Buffer {
  if (!ESCAPED_BYTE.test(s)) return Buffer.from(s, 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff && !(i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff)) {
      parts.push(Buffer.from(s.slice(from, i), 'utf8'), Buffer.of(c - 0xdc00));
      from = i + 1;
    }
  }
  parts.push(Buffer.from(s.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/** Writes encodeId(s) into buf at `at` (room for 3 bytes per code unit needed); returns where the bytes end. */
export function encodeIdInto(s: string, buf: Buffer, at: number): number {
  // ASCII (nearly every id) byte by byte: for short ids cheaper than the escaped-byte test and a native write.
  let i = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    buf[at + i] = c;
  }
  if (i === s.length) return at + i;
  if (!ESCAPED_BYTE.test(s)) return at + buf.write(s, at, 'utf8');
  const b = encodeId(s);
  b.copy(buf, at);
  return at + b.length;
}

/** Compares two ids in byte order (strcmp's; for UTF-8, code-point order), escaped bytes included. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        const pairTail = i > 0 && a.charCodeAt(i - 1) >= 0xd800 && a.charCodeAt(i - 1) <= 0xdbff;
        if (!pairTail && ((x >= 0xdc80 && x <= 0xdcff) || (y >= 0xdc80 && y <= 0xdcff))) {
          return Buffer.compare(encodeId(a), encodeId(b));
        }
        // UTF-16 puts surrogates (astral code points) below U+E000..U+FFFF; UTF-8 puts them above.
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Sorts ids in byte order (compareBytes), in place. Without surrogates (astral characters, escaped bytes),
 * UTF-16 code-unit order is code-point order, which is UTF-8 byte order: the engine's own sort then does it.
 */
export function sortBytes(ids: string[]): string[] {
  for (const id of ids) if (SURROGATE.test(id)) return ids.sort(compareBytes);
  return ids.sort();
}
