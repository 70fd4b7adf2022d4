import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readChecked, writeChecked } from '../../formats/checkedFile';

/**
 * Corpus embeddings on disk, one file per (model content + document settings, corpus content), so a second run
 * with the same model and dataset skips encoding, and any change to either makes a new file.
 *
 * Layout: "IRWEMB1\n", u32 header length, JSON header ({ key, count, dim, docIdsSha256 }), zero padding to a
 * multiple of 4, float32 little-endian [count, dim], then the SHA-256 of everything before it (formats/checkedFile.ts). A file failing
 * any check is re-encoded, never trusted.
 */
const MAGIC = Buffer.from('IRWEMB1\n', 'latin1');

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
  const body = readChecked(path, MAGIC);
  if (typeof body === 'string') return body;
  try {
    if (body.length < MAGIC.length + 4) return 'corrupt';
    const headerLen = body.readUInt32LE(MAGIC.length);
    const headerStart = MAGIC.length + 4;
    const header = JSON.parse(body.toString('utf8', headerStart, headerStart + headerLen)) as Header;
    if (header.key !== key || header.count !== docIds.length || header.docIdsSha256 !== docIdsDigest(docIds)) return 'corrupt';
    const dataStart = align4(headerStart + headerLen);
    const bytes = header.count * header.dim * 4;
    if (dataStart + bytes !== body.length) return 'corrupt';
    // Copy into an aligned buffer of its own (the file buffer may sit at any offset of Node's pool).
    const data = new Float32Array(header.count * header.dim);
    new Uint8Array(data.buffer).set(body.subarray(dataStart, dataStart + bytes));
    return { dim: header.dim, data };
  } catch {
    return 'corrupt';
  }
}

/** Writes atomically (temporary file, then rename), so a crash never leaves a half file under the final name. */
export function saveEmbeddings(path: string, key: string, docIds: readonly string[], dim: number, data: Float32Array): void {
  const header: Header = { key, count: docIds.length, dim, docIdsSha256: docIdsDigest(docIds) };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const pad = Buffer.alloc(align4(MAGIC.length + 4 + json.length) - (MAGIC.length + 4 + json.length));
  writeChecked(path, [MAGIC, len, json, pad, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

function align4(n: number): number {
  return (n + 3) & ~3;
}
