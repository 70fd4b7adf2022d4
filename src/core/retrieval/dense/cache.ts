import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { AtomicFile } from '../../durableFs';
import { encodeId } from '../../formats/idTable';

/**
 * Corpus embeddings on disk, one file per (model content + document settings, corpus content), so a second run
 * with the same model and dataset skips encoding, and any change to either makes a new file. Written and read
 * a block of rows at a time, so the matrix never has to be in memory whole.
 *
 * Layout: "IRWEMB1\n", u32 header length, JSON header ({ key, count, dim, docIdsSha256 }), zero padding to a
 * multiple of 4, float32 little-endian [count, dim], then the SHA-256 of everything before it (the layout of
 * formats/checkedFile.ts, hashed as it streams). A file failing any check is re-encoded, never trusted: its
 * checksum, and also a header that does not describe this run (another key, other ids, a dimension the model
 * does not make, a size that does not match), since a checksum proves only that the file is whole.
 */
const MAGIC = Buffer.from('IRWEMB1\n', 'latin1');
const SUM_BYTES = 32;

interface Header {
  key: string;
  count: number;
  dim: number;
  docIdsSha256: string;
}

export function embeddingKey(modelKey: string, corpusSha256: string): string {
  return createHash('sha256').update(`emb1\0${modelKey}\0${corpusSha256}`).digest('hex');
}

export function embeddingFile(dir: string, key: string): string {
  return join(dir, `dense-${key.slice(0, 40)}.emb`);
}

export function docIdsDigest(ids: readonly string[]): string {
  const h = createHash('sha256');
  for (const id of ids) h.update(encodeId(id)).update('\n');
  return h.digest('hex');
}

function headerBytes(header: Header): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const pad = Buffer.alloc(align4(MAGIC.length + 4 + json.length) - (MAGIC.length + 4 + json.length));
  return Buffer.concat([MAGIC, len, json, pad]);
}

/**
 * Reads a cache file's rows in order. `open` checks everything but the checksum, which covers the whole file
 * and is known only once every row has been read: the caller must not use what it read unless `verify()`
 * says true at the end.
 */
export class EmbeddingCacheReader {
  private at: number;
  private readonly hash: Hash;
  private closed = false;

  private constructor(
    private readonly fd: number,
    readonly count: number,
    readonly dim: number,
    dataStart: number,
    head: Buffer,
  ) {
    this.at = dataStart;
    this.hash = createHash('sha256').update(head);
  }

  /** The reader, `absent`, or `corrupt` (including a header that does not fit this corpus and model). */
  static open(path: string, key: string, docIds: readonly string[], dim: number): EmbeddingCacheReader | 'absent' | 'corrupt' {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return 'absent';
    }
    try {
      const size = fstatSync(fd).size;
      const pre = Buffer.alloc(MAGIC.length + 4);
      if (readSync(fd, pre, 0, pre.length, 0) !== pre.length || !pre.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error();
      const headerLen = pre.readUInt32LE(MAGIC.length);
      const dataStart = align4(pre.length + headerLen);
      if (dataStart > size) throw new Error();
      const head = Buffer.alloc(dataStart);
      if (readSync(fd, head, 0, dataStart, 0) !== dataStart) throw new Error();
      const header = JSON.parse(head.toString('utf8', pre.length, pre.length + headerLen)) as Header;
      const fits =
        header.key === key &&
        header.count === docIds.length &&
        header.dim === dim &&
        Number.isInteger(dim) &&
        dim > 0 &&
        header.docIdsSha256 === docIdsDigest(docIds) &&
        size === dataStart + docIds.length * dim * 4 + SUM_BYTES;
      if (!fits) throw new Error();
      return new EmbeddingCacheReader(fd, header.count, header.dim, dataStart, head);
    } catch {
      closeSync(fd);
      return 'corrupt';
    }
  }

  /** The next `rows` rows into `out` (float32, row-major). */
  read(rows: number, out: Float32Array): void {
    const bytes = new Uint8Array(out.buffer, out.byteOffset, rows * this.dim * 4);
    let off = 0;
    while (off < bytes.length) {
      const n = readSync(this.fd, bytes, off, bytes.length - off, this.at + off);
      if (n === 0) throw new Error('embedding cache file shrank while being read');
      off += n;
    }
    this.at += off;
    this.hash.update(bytes);
  }

  /** Whether the file's checksum matches what was read (call once, after the last row). */
  verify(): boolean {
    const sum = Buffer.alloc(SUM_BYTES);
    return readSync(this.fd, sum, 0, SUM_BYTES, this.at) === SUM_BYTES && this.hash.digest().equals(sum);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Writes a cache file block by block to a temporary file (AtomicFile); `commit` adds the checksum and moves it into place. */
export class EmbeddingCacheWriter {
  private readonly hash = createHash('sha256');

  private constructor(private readonly file: AtomicFile) {}

  /** Throws (ENOSPC, EACCES, ENOTDIR, ... as an error naming the file) if the folder cannot take the file. */
  static create(path: string, key: string, docIds: readonly string[], dim: number): EmbeddingCacheWriter {
    const w = new EmbeddingCacheWriter(AtomicFile.open(path));
    w.write(headerBytes({ key, count: docIds.length, dim, docIdsSha256: docIdsDigest(docIds) }));
    return w;
  }

  append(rows: Float32Array): void {
    this.write(new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
  }

  /** On failure the caller calls abort(). */
  commit(): void {
    this.file.write(this.hash.digest());
    this.file.commit();
  }

  /** Leaves nothing behind (the final name is never touched before commit). */
  abort(): void {
    this.file.abort();
  }

  /** A failed write removes the temporary file itself (AtomicFile). */
  private write(bytes: Uint8Array): void {
    this.file.write(bytes);
    this.hash.update(bytes);
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
