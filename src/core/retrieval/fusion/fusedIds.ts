import { decodeId, type DocIds } from '../../formats/idTable';

/**
 * The document ids of a fused run: the output lines' id bytes gathered from the input runs' arenas into one
 * buffer in a single pass (byte loops: ids are short, and Buffer.copy per line would cost more than the
 * fusion), with the inputs' precomputed hashes carried over.
 */
export class FusedIds implements DocIds {
  readonly buffer: Buffer;
  private readonly starts: Int32Array;
  private readonly hashes: Int32Array;

  /** Entry j is entry entries[j] of sources[from[j]]. */
  constructor(sources: readonly DocIds[], from: Int32Array, entries: Int32Array, count: number) {
    this.starts = new Int32Array(count + 1);
    this.hashes = new Int32Array(count);
    let total = 0;
    for (let j = 0; j < count; j++) {
      const s = sources[from[j]];
      total += s.end(entries[j]) - s.start(entries[j]);
    }
    const out = Buffer.allocUnsafe(Math.max(1, total));
    let at = 0;
    for (let j = 0; j < count; j++) {
      const s = sources[from[j]];
      const e = entries[j];
      const src = s.buffer;
      for (let i = s.start(e), end = s.end(e); i < end; i++) out[at++] = src[i];
      this.starts[j + 1] = at;
      this.hashes[j] = s.hash(e);
    }
    this.buffer = out;
  }

  get size(): number {
    return this.hashes.length;
  }

  start(id: number): number {
    return this.starts[id];
  }

  end(id: number): number {
    return this.starts[id + 1];
  }

  hash(id: number): number {
    return this.hashes[id];
  }

  string(id: number): string {
    return decodeId(this.buffer, this.starts[id], this.starts[id + 1]);
  }

  compare(a: number, b: number): number {
    return compareRange(this.buffer, this.starts[a], this.starts[a + 1], this.buffer, this.starts[b], this.starts[b + 1]);
  }

  equalsBytes(id: number, buf: Buffer, start: number, end: number): boolean {
    return compareRange(this.buffer, this.starts[id], this.starts[id + 1], buf, start, end) === 0;
  }
}

/** strcmp of two byte ranges. */
export function compareRange(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): number {
  for (; as < ae && bs < be; as++, bs++) if (a[as] !== b[bs]) return a[as] - b[bs];
  return ae - as - (be - bs);
}
