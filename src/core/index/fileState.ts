import { statSync } from 'node:fs';
import { sha256File } from '../fileHash';
import type { Database } from 'sql.js';

/** A file's version as the engine's caches key it: `size:mtimeMs` (a write changes one or both). */
export function fileStamp(st: { size: number; mtimeMs: number }): string {
  return `${st.size}:${st.mtimeMs}`;
}

export interface FileState {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
}

/**
 * What changed about `path` since it was last indexed. Size and mtime decide when they match the record;
 * otherwise the content is hashed, so a touched but identical file (a checkout, a copy) is not re-indexed.
 * `knownHash` gives the hash of the file as it is now (`size:mtimeMs`) when another thread already read it.
 * Returns undefined for a file that does not exist.
 */
export async function checkFile(
  db: Database,
  path: string,
  knownHash?: (stamp: string) => string | undefined,
): Promise<{ state: FileState; changed: boolean } | undefined> {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  const row = db.exec('SELECT size, mtime_ms, hash FROM files WHERE path = ?', [path])[0]?.values[0];
  if (row && row[0] === st.size && row[1] === st.mtimeMs) {
    return { state: { path, size: st.size, mtimeMs: st.mtimeMs, hash: String(row[2]) }, changed: false };
  }
  const hash = knownHash?.(fileStamp(st)) ?? (await sha256File(path));
  return { state: { path, size: st.size, mtimeMs: st.mtimeMs, hash }, changed: !row || row[2] !== hash };
}

/**
 * After the store itself appended to `path` (a judgement): records the file's new size and mtime, so the
 * next indexing (and the watcher it triggers) does not re-read it, but only if the database had seen the
 * file as it was just before the append (`before` undefined: the store has just created the file, which the
 * database must not know yet); otherwise someone else changed it too and it must be re-read.
 * The hash is left empty (unknown): hashing per judgement would cost the whole file each time, and an empty
 * hash never matches, so any later change of size or mtime re-reads the file.
 */
export function recordOwnAppend(db: Database, path: string, before: { size: number; mtimeMs: number } | undefined): void {
  const row = db.exec('SELECT size, mtime_ms FROM files WHERE path = ?', [path])[0]?.values[0];
  const inSync = before === undefined ? row === undefined : row !== undefined && row[0] === before.size && row[1] === before.mtimeMs;
  if (!inSync) return;
  const st = statSync(path);
  recordFile(db, { path, size: st.size, mtimeMs: st.mtimeMs, hash: '' });
}

/** Whether `path` still has the size and mtime the database recorded for it (false when unknown or gone). */
export function isCurrent(db: Database, path: string): boolean {
  const row = db.exec('SELECT size, mtime_ms FROM files WHERE path = ?', [path])[0]?.values[0];
  if (!row) return false;
  try {
    const st = statSync(path);
    return row[0] === st.size && row[1] === st.mtimeMs;
  } catch {
    return false;
  }
}

/** The sha256 of `path` as the database last read it; undefined when unknown (never read, or the store's own append). */
export function recordedHash(db: Database, path: string): string | undefined {
  const hash = db.exec('SELECT hash FROM files WHERE path = ?', [path])[0]?.values[0]?.[0];
  return typeof hash === 'string' && hash !== '' ? hash : undefined;
}

export function recordFile(db: Database, s: FileState): void {
  db.run('INSERT OR REPLACE INTO files (path, size, mtime_ms, hash) VALUES (?, ?, ?, ?)', [s.path, s.size, s.mtimeMs, s.hash]);
}

export function forgetFile(db: Database, path: string): void {
  db.run('DELETE FROM files WHERE path = ?', [path]);
  db.run('DELETE FROM problems WHERE file = ?', [path]);
}
