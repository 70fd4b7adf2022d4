import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { AtomicFile } from '../durableFs';

/**
 * Cache files that are never trusted blindly: a magic prefix, the content, then the SHA-256 of everything
 * before it. Written atomically and durably (AtomicFile), so a crash or a full disk never leaves half a file
 * under the final name; read back only if the magic and the checksum match.
 */
const SUM_BYTES = 32;

/**
 * Bytes per read call. A file is read and hashed a chunk at a time into the sections its reader asks for, never
 * whole: Node refuses to read more than 2 GiB in one call (readFileSync fails on such files), and a cached index
 * of a corpus of 4M+ documents is larger than that.
 */
const CHUNK_BYTES = 1 << 26;

/**
 * Reads a checked file's content front to back in sections, hashing every byte as it goes. Nothing it returns
 * may be used before `verify()` has said true: the checksum covers the whole file and is known only at the end.
 */
export class CheckedReader {
  private at = 0;
  private readonly hash: Hash = createHash('sha256');
  private fd: number | null;

  private constructor(
    fd: number,
    /** Length of the content (the file without its checksum). */
    readonly bodyBytes: number,
    private readonly chunkBytes: number,
  ) {
    this.fd = fd;
  }

  /** The reader, positioned after the magic; `absent` if there is no file, `corrupt` if it cannot be this kind. */
  static open(path: string, magic: Buffer, chunkBytes = CHUNK_BYTES): CheckedReader | 'absent' | 'corrupt' {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return 'absent';
    }
    let reader: CheckedReader | null = null;
    try {
      const size = fstatSync(fd).size;
      if (size < magic.length + SUM_BYTES) throw new Error('shorter than magic and checksum');
      reader = new CheckedReader(fd, size - SUM_BYTES, chunkBytes);
      if (!reader.read(magic.length).equals(magic)) throw new Error('other magic');
      return reader;
    } catch {
      if (reader) reader.close();
      else closeSync(fd);
      return 'corrupt';
    }
  }

  /** Offset in the file of the next byte `read` returns. */
  get position(): number {
    return this.at;
  }

  /**
   * The next `n` bytes, in a buffer of their own (offset 0 of its own ArrayBuffer, so typed arrays can view it
   * at any alignment). Throws when the content has fewer bytes left.
   */
  read(n: number): Buffer {
    if (!Number.isSafeInteger(n) || n < 0 || n > this.bodyBytes - this.at) throw new Error(`a section of ${n} bytes at ${this.at} runs past the end of the content`);
    const out = Buffer.from(new ArrayBuffer(n));
    this.fill(out);
    return out;
  }

  /**
   * Reads the rest of the content and compares the checksum; closes the file. True when the whole file is what
   * its writer wrote, so what `read` returned may be used.
   */
  verify(): boolean {
    try {
      const rest = this.bodyBytes - this.at;
      const scratch = Buffer.allocUnsafe(Math.min(rest, this.chunkBytes));
      while (this.at < this.bodyBytes) this.fill(scratch.subarray(0, Math.min(scratch.length, this.bodyBytes - this.at)));
      const sum = Buffer.alloc(SUM_BYTES);
      if (readSync(this.fdOrThrow(), sum, 0, SUM_BYTES, this.at) !== SUM_BYTES) return false;
      return this.hash.digest().equals(sum);
    } catch {
      return false;
    } finally {
      this.close();
    }
  }

  /** Closes the file (safe to call more than once). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private fill(out: Buffer): void {
    const fd = this.fdOrThrow();
    for (let off = 0; off < out.length; ) {
      const got = readSync(fd, out, off, Math.min(this.chunkBytes, out.length - off), this.at);
      if (got === 0) throw new Error('the file ended early (changed while being read?)');
      this.hash.update(out.subarray(off, off + got));
      off += got;
      this.at += got;
    }
  }

  private fdOrThrow(): number {
    if (this.fd === null) throw new Error('checked file reader is closed');
    return this.fd;
  }
}

/** Writes `parts` (the first of which starts with the magic) and their checksum to `path`, atomically (see AtomicFile). */
export function writeChecked(path: string, parts: readonly Uint8Array[]): void {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  const file = AtomicFile.open(path);
  for (const p of [...parts, h.digest()]) file.write(p);
  file.commit();
}
