import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { unwritable } from './formats/errors';

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

/** writeSync until every byte is written: one call may write less (a nearly full disk writes what fits, then fails). */
export function writeAllSync(fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // absent already
  }
}

/**
 * `.<name>.<pid>.<random>.partial` beside `path`: hidden, on the same file system (the rename is atomic), and
 * naming the process that writes it, so a later write can tell a leftover of a killed process (see removeLeftovers).
 */
export function defaultTmpPath(path: string, pid = process.pid): string {
  return join(dirname(path), `.${basename(path)}.${pid}.${randomBytes(4).toString('hex')}.partial`);
}

/**
 * Removes the temporary files of earlier writes to `path` whose process is gone (SIGKILL cannot be caught, so a
 * killed writer leaves its `.partial` behind). A file whose process still runs is left alone: it may be writing.
 */
export function removeLeftovers(path: string): string[] {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.partial')) continue;
    const m = /^(\d+)\.[0-9a-f]+\.partial$/.exec(name.slice(prefix.length));
    if (!m || processAlive(Number(m[1]))) continue;
    removeQuietly(join(dir, name));
    removed.push(name);
  }
  return removed;
}

/** Whether process `pid` runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A file that replaces `path` whole or not at all: bytes go to a temporary file beside it (checked: a short
 * write is continued or fails), and commit() syncs that file, renames it over `path` and syncs the folder. On
 * any failure (disk full, I/O error, a folder where the file should be) the temporary file is removed and the
 * error, naming `path` and what to do, is thrown: `path` keeps its previous content.
 */
export class AtomicFile {
  private fd: number | null;

  private constructor(
    readonly path: string,
    readonly tmp: string,
    fd: number,
    private readonly untouched: string,
  ) {
    this.fd = fd;
  }

  /**
   * `tmp`: where to write until commit (a parent process may choose it, to clean up after a killed child).
   * `untouched`: what a failure's message says was left (default: the file was not changed).
   */
  static open(path: string, tmp = defaultTmpPath(path), untouched = 'the file was not changed'): AtomicFile {
    try {
      mkdirSync(dirname(path), { recursive: true });
      removeLeftovers(path);
      return new AtomicFile(path, tmp, openSync(tmp, 'wx'), untouched);
    } catch (e) {
      throw unwritable(path, e, untouched);
    }
  }

  write(data: Uint8Array | string): void {
    try {
      writeAllSync(this.openFd(), typeof data === 'string' ? Buffer.from(data) : data);
    } catch (e) {
      this.abort();
      throw unwritable(this.path, e, this.untouched);
    }
  }

  /** Syncs the data, moves it over `path` and syncs the folder: when this returns the new file survives a crash. */
  commit(): void {
    try {
      const fd = this.openFd();
      fsyncSync(fd);
      this.fd = null;
      closeSync(fd);
      renameSync(this.tmp, this.path);
    } catch (e) {
      this.abort();
      throw unwritable(this.path, e, this.untouched);
    }
    fsyncDir(dirname(this.path));
  }

  /** Discards what was written: nothing is left but `path` as it was. Safe to call more than once. */
  abort(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // already failed: removing the file is what matters
      }
      this.fd = null;
    }
    removeQuietly(this.tmp);
  }

  private openFd(): number {
    if (this.fd === null) throw new Error(`${this.path}: the file was already committed or aborted`);
    return this.fd;
  }
}

/** Replaces `path` with `data` atomically and durably (see AtomicFile): a crash or a full disk leaves the old content or the new, never a mix. */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const f = AtomicFile.open(path);
  f.write(data);
  f.commit();
}
