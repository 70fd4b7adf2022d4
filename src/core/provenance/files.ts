import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { hashFile } from '../retrieval/dense/fingerprint';

/**
 * An input file as a run's provenance records it: where it was, its SHA-256, size and modification time. The
 * hash says whether a later file is the same data; size and time only let a check skip re-hashing a file that
 * is evidently untouched.
 */
export interface FileRecord {
  path: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
}

/** Records a file; `sha256` when the caller hashed it already (the index cache key hashes the corpus). */
export async function describeFile(path: string, signal?: AbortSignal, sha256?: string): Promise<FileRecord> {
  const abs = resolve(path);
  const st = statSync(abs);
  return { path: abs, sha256: sha256 ?? (await hashFile(abs, signal)), bytes: st.size, mtimeMs: st.mtimeMs };
}

/**
 * Whether the file at `path` now holds what `record` describes. A different size answers at once; the same size
 * and modification time are taken as the same file (as make and rsync do); otherwise the file is hashed.
 * A missing file is not the same.
 */
export async function sameContent(record: FileRecord, path: string): Promise<{ same: boolean; sha256: string | null }> {
  let st;
  try {
    st = statSync(path);
  } catch {
    return { same: false, sha256: null };
  }
  if (st.size !== record.bytes) return { same: false, sha256: null };
  if (st.mtimeMs === record.mtimeMs && resolve(path) === record.path) return { same: true, sha256: record.sha256 };
  const sha256 = await hashFile(path);
  return { same: sha256 === record.sha256, sha256 };
}

/** The first 12 hex digits of a hash: enough to tell files apart in a message or a caption. */
export const shortHash = (sha256: string): string => sha256.slice(0, 12);
