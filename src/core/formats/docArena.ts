import { avalanche, decodeId, encodeId, FNV_OFFSET, FNV_PRIME, hashBytes, type DocIds } from './idTable';
import { isSpace } from './lines';

/**
 * Document ids of a run, one entry per line, as bytes in one growing buffer (no string per line, no global
 * hash table: the ids are written and read in file order, which keeps a 10-million-line run cache-friendly).
 * A hash of each id is kept so per-query lookups (judgements, duplicates) never re-read the bytes.
 * Ids compare in byte order, which is trec_eval's strcmp order.
 */
export class DocArena implements DocIds {
  private bytes: Buffer;
  private used = 0;
  private starts: Int32Array; // starts[i] .. starts[i + 1] are entry i's bytes
  private hashes: Int32Array;
  private count = 0;
  // The field read by scanField(), until commit().
  private scannedEnd = 0;
  private scannedHash = 0;

  constructor(capacity = 1024) {
    this.starts = new Int32Array(capacity + 1);
    this.hashes = new Int32Array(capacity);
    this.bytes = Buffer.allocUnsafe(Math.max(4096, capacity * 12));
  }

  get size(): number {
    return this.count;
  }

  /** The arena's storage, to hand it to another thread (the buffers can be transferred, not copied). */
  toParts(): ArenaParts {
    return { bytes: this.bytes, used: this.used, starts: this.starts, hashes: this.hashes, count: this.count };
  }

  static fromParts(p: ArenaParts): DocArena {
    const a = new DocArena(0);
    a.bytes = Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
    a.used = p.used;
    a.starts = p.starts;
    a.hashes = p.hashes;
    a.count = p.count;
    return a;
  }

  /** Appends another arena's entries (a part of the same file read by another thread); they get ids size.. */
  append(p: ArenaParts): void {
    const base = this.used;
    const first = this.count;
    this.reserve(p.used, p.count);
    this.bytes.set(p.bytes.subarray(0, p.used), base);
    for (let i = 1; i <= p.count; i++) this.starts[first + i] = p.starts[i] + base;
    this.hashes.set(p.hashes.subarray(0, p.count), first);
    this.used += p.used;
    this.count += p.count;
  }

  /** Makes room for `entries` more entries of `bytes` bytes in all. */
  private reserve(bytes: number, entries: number): void {
    if (this.used + bytes > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + bytes));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    if (this.count + entries >= this.starts.length) {
      const n = Math.max(Math.ceil(this.starts.length * 1.5), this.count + entries);
      const s = new Int32Array(n + 1);
      s.set(this.starts);
      const h = new Int32Array(n);
      h.set(this.hashes);
      this.starts = s;
      this.hashes = h;
    }
  }

  add(buf: Buffer, start: number, end: number): number {
    const len = end - start;
    if (this.used + len > this.bytes.length || this.count + 1 >= this.starts.length) this.reserve(len, 1);
    const id = this.count++;
    // A byte loop: ids are short, and Buffer.copy's per-call cost dominated profiles of 10M-line runs.
    const bytes = this.bytes;
    const at = this.used;
    for (let i = 0; i < len; i++) bytes[at + i] = buf[start + i];
    this.used += len;
    this.starts[id + 1] = this.used;
    this.hashes[id] = hashBytes(buf, start, end);
    return id;
  }

  /**
   * add() for a field whose end is not known yet: copies and hashes buf[start..] up to the first whitespace
   * byte (or `end`) in one pass, and returns where the field ends. The entry becomes the next id only on
   * commit() (a line found bad afterwards leaves the arena as it was).
   */
  scanField(buf: Buffer, start: number, end: number): number {
    if (this.used + (end - start) > this.bytes.length || this.count + 1 >= this.starts.length) this.reserve(end - start, 1);
    const bytes = this.bytes;
    let at = this.used;
    let h = FNV_OFFSET;
    let i = start;
    for (; i < end; i++) {
      const c = buf[i];
      if (isSpace(c)) break;
      h = Math.imul(h ^ c, FNV_PRIME);
      bytes[at++] = c;
    }
    this.scannedEnd = at;
    this.scannedHash = avalanche(h);
    return i;
  }

  /** Adds the field read by the last scanField(); returns its id. */
  commit(): number {
    const id = this.count++;
    this.used = this.scannedEnd;
    this.starts[id + 1] = this.used;
    this.hashes[id] = this.scannedHash;
    return id;
  }

  addString(s: string): number {
    const b = encodeId(s);
    return this.add(b, 0, b.length);
  }

  string(id: number): string {
    return decodeId(this.bytes, this.starts[id], this.starts[id + 1]);
  }

  hash(id: number): number {
    return this.hashes[id];
  }

  /** The buffer holding the bytes, and where entry `id` starts and ends in it (valid until the next add). */
  get buffer(): Buffer {
    return this.bytes;
  }

  start(id: number): number {
    return this.starts[id];
  }

  end(id: number): number {
    return this.starts[id + 1];
  }

  /** strcmp-style comparison of two entries' bytes. */
  compare(a: number, b: number): number {
    const bytes = this.bytes;
    let i = this.starts[a];
    const ea = this.starts[a + 1];
    let j = this.starts[b];
    const eb = this.starts[b + 1];
    for (; i < ea && j < eb; i++, j++) {
      if (bytes[i] !== bytes[j]) return bytes[i] - bytes[j];
    }
    return ea - i - (eb - j);
  }

  equals(a: number, b: number): boolean {
    if (this.hashes[a] !== this.hashes[b]) return false;
    return this.equalsBytes(a, this.bytes, this.starts[b], this.starts[b + 1]);
  }

  /** True if entry `id` holds exactly buf[start, end). */
  equalsBytes(id: number, buf: Buffer, start: number, end: number): boolean {
    const s = this.starts[id];
    if (this.starts[id + 1] - s !== end - start) return false;
    const bytes = this.bytes;
    for (let i = 0; i < end - start; i++) if (bytes[s + i] !== buf[start + i]) return false;
    return true;
  }
}

export interface ArenaParts {
  bytes: Uint8Array;
  used: number;
  starts: Int32Array;
  hashes: Int32Array;
  count: number;
}

/**
 * A small reusable hash set of arena entries (one query's documents at a time): open addressing over the first
 * power-of-two slots of a reused table, sized to the query, so emptying it is one fill of those slots.
 */
export class EntrySet {
  private slots = new Int32Array(2048);
  private mask = 15;

  /** Empties the set and makes room for n entries. */
  reset(n: number): void {
    // At most 1/8 full: most probes then hit an empty slot at once (finish() of the bench:eval run ~5-10 % faster than 1/2).
    let size = 16;
    while (size < n * 8) size <<= 1;
    if (size > this.slots.length) this.slots = new Int32Array(size);
    else this.slots.fill(0, 0, size);
    this.mask = size - 1;
  }

  /** Adds entry `id`; returns the id of an equal entry already present, or -1. */
  add(arena: DocArena, id: number): number {
    let slot = arena.hash(id) & this.mask;
    for (;;) {
      const v = this.slots[slot];
      if (v === 0) {
        this.slots[slot] = id + 1;
        return -1;
      }
      if (arena.equals(v - 1, id)) return v - 1;
      slot = (slot + 1) & this.mask;
    }
  }
}
