import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultTmpPath, removeQuietly, writeAllSync } from './runWriter';

/**
 * Cache files that are never trusted blindly: a magic prefix, the content, then the SHA-256 of everything
 * before it. Written atomically (temporary file, then rename), so a crash never leaves half a file under the
 * final name; read back only if the magic and the checksum match.
 */
const SUM_BYTES = 32;

/** The file without its checksum trailer, or why it cannot be used. */
export function readChecked(path: string, magic: Buffer): Buffer | 'absent' | 'corrupt' {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return 'absent';
  }
  if (file.length < magic.length + SUM_BYTES || !file.subarray(0, magic.length).equals(magic)) return 'corrupt';
  const body = file.subarray(0, file.length - SUM_BYTES);
  return createHash('sha256').update(body).digest().equals(file.subarray(body.length)) ? body : 'corrupt';
}

/** Writes `parts` (the first of which starts with the magic) and their checksum to `path`, atomically. */
export function writeChecked(path: string, parts: readonly Uint8Array[]): void {
  mkdirSync(dirname(path), { recursive: true });
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  const sum = h.digest();
  const tmp = defaultTmpPath(path);
  try {
    const fd = openSync(tmp, 'wx');
    try {
      for (const p of [...parts, sum]) writeAllSync(fd, p);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    removeQuietly(tmp);
    throw e;
  }
}
