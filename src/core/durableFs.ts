import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes a rename or a file creation in `dir` durable (POSIX: the directory entry needs its own fsync). */
export function fsyncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return; // platforms (Windows) that cannot open a directory have no such step
  }
  try {
    fsyncSync(fd);
  } catch {
    // some file systems refuse fsync on a directory; the rename itself was still atomic
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `data` atomically: temp file, fsync, rename, fsync of the folder. A crash leaves the
 * old content or the new, never a mix.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    if (typeof data === 'string') writeSync(fd, data);
    else for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}
