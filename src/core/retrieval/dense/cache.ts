import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { defaultTmpPath, removeQuietly, writeAllSync } from '../../formats/runWriter';

/**
 * Corpus embeddings on disk, one file per (model content + document settings, corpus content), so a second run
 * with the same model and dataset skips encoding, and any change to either makes a new file.
 *
 * Layout: "IRWEMB1\n", u32 header length, JSON header ({ key, count, dim, docIdsSha256 }), zero padding to a
 * multiple of 4, float32 little-endian [count, dim], then the SHA-256 of everything before it. A file failing
 * any check is re-encoded, never trusted.
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
  for (const id of ids) h.update(id).update('\n');
  return h.digest('hex');
}

/** The cached matrix, or `absent` / `corrupt` (the caller re-encodes). */
export function loadEmbeddings(path: string, key: string, docIds: readonly string[]): { dim: number; data: Float32Array } | 'absent' | 'corrupt' {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return 'absent';
  }
  try {
    if (file.length < MAGIC.length + 4 + SUM_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return 'corrupt';
    const body = file.subarray(0, file.length - SUM_BYTES);
    if (!createHash('sha256').update(body).digest().equals(file.subarray(body.length))) return 'corrupt';
    const headerLen = file.readUInt32LE(MAGIC.length);
    const headerStart = MAGIC.length + 4;
    const header = JSON.parse(file.toString('utf8', headerStart, headerStart + headerLen)) as Header;
    if (header.key !== key || header.count !== docIds.length || header.docIdsSha256 !== docIdsDigest(docIds)) return 'corrupt';
    const dataStart = align4(headerStart + headerLen);
    const bytes = header.count * header.dim * 4;
    if (dataStart + bytes !== body.length) return 'corrupt';
    // Copy into an aligned buffer of its own (the file buffer may sit at any offset of Node's pool).
    const data = new Float32Array(header.count * header.dim);
    new Uint8Array(data.buffer).set(file.subarray(dataStart, dataStart + bytes));
    return { dim: header.dim, data };
  } catch {
    return 'corrupt';
  }
}

/** Writes atomically (temporary file, then rename), so a crash never leaves a half file under the final name. */
export function saveEmbeddings(path: string, dir: string, key: string, docIds: readonly string[], dim: number, data: Float32Array): void {
  mkdirSync(dir, { recursive: true });
  const header: Header = { key, count: docIds.length, dim, docIdsSha256: docIdsDigest(docIds) };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const pad = Buffer.alloc(align4(MAGIC.length + 4 + json.length) - (MAGIC.length + 4 + json.length));
  const matrix = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const sum = createHash('sha256').update(MAGIC).update(len).update(json).update(pad).update(matrix).digest();
  const tmp = defaultTmpPath(path);
  const fd = openSync(tmp, 'wx');
  try {
    for (const part of [MAGIC, len, json, pad, matrix, sum]) writeAllSync(fd, part);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    removeQuietly(tmp);
    throw e;
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
