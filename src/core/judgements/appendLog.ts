import { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { fsyncDir } from '../durableFs';
import { FileLock, type LockRecord } from './fileLock';

/** What opening or appending found at the end of the file and did about it. */
export interface Recovery {
  /** Bytes cut: only ones this program (or another instance of it) wrote and never confirmed. */
  cutBytes: number;
  /** An unterminated last line that was kept and given its '\n'; `valid` says whether it parses. */
  kept?: { line: number; text: string; valid: boolean };
}

/**
 * A durable append-only text file shared by processes: append() returns only once the line is on disk
 * (write + fsync), and a line is never glued onto bytes that are not a complete line.
 *
 * Why append + fsync rather than write-temp + rename: a rename rewrites the whole file for every judgement,
 * so a judging session becomes quadratic; an append costs the same for the 10th line and the 10,000th.
 *
 * Every append holds the file's lock (FileLock: two windows and the CLI may write the same file) and records
 * in it the offset and bytes it is about to write. Then:
 *   - a write or fsync that fails (disk full, I/O error) is rolled back to that offset before the error is
 *     reported, so nothing of it remains; if even the rollback fails, the lock is left marked abandoned and
 *     the next append (by anyone) cuts those bytes first;
 *   - a crash (power loss, SIGKILL) leaves the lock behind, with the bytes in flight: the next holder cuts the
 *     tail only where it is a prefix of those bytes (or NUL bytes some file systems leave);
 *   - any other unterminated last line (a hand edit, another tool, another line-ending convention) is never
 *     cut: it is kept, terminated with '\n', and reported when it does not parse.
 * A new file is created complete with its header (temp file + link, which fails if the file exists), so two
 * processes creating it at once leave exactly one header.
 */
export class AppendLog {
  private constructor(
    private readonly fd: number,
    readonly path: string,
    private readonly header: string,
    private readonly isValidLine: (line: string) => boolean,
    /** What recovery did when the file was opened. */
    readonly recovered: Recovery,
  ) {}

  /**
   * Opens `path` for appending, creating it with `header` (a full line, '\n'-terminated, may be empty) when
   * missing. `isValidLine` tells whether a kept unterminated line parses (it is reported when not).
   */
  static open(path: string, header: string, isValidLine: (line: string) => boolean): AppendLog {
    createWithHeader(path, header);
    const fd = openSync(path, 'a+');
    try {
      const lock = FileLock.acquire(path);
      let recovered: Recovery;
      try {
        recovered = repair(fd, header, isValidLine, lock.tookOver);
      } catch (e) {
        lock.abandon();
        throw e;
      }
      lock.release();
      return new AppendLog(fd, path, header, isValidLine, recovered);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /**
   * Appends `line` (without its '\n') and syncs it; when this returns the line survives a crash. When it
   * throws, nothing of the line is in the file (or the next append removes it) and the error names the file.
   * Returns what had to be repaired at the end of the file first (another writer's crash or edit).
   */
  append(line: string): Recovery {
    if (line.includes('\n') || line.includes('\r')) throw new Error('a record cannot contain a line break');
    const bytes = Buffer.from(`${line}\n`);
    const lock = FileLock.acquire(this.path);
    let recovered: Recovery;
    let offset: number;
    try {
      recovered = repair(this.fd, this.header, this.isValidLine, lock.tookOver);
      offset = fstatSync(this.fd).size;
      lock.setPending(offset, bytes);
    } catch (e) {
      lock.abandon();
      throw e;
    }
    try {
      writeAll(this.fd, bytes);
      fsyncSync(this.fd);
    } catch (e) {
      let rolledBack = false;
      try {
        ftruncateSync(this.fd, offset);
        fsyncSync(this.fd);
        rolledBack = true;
      } catch {
        // left to the next append: the abandoned lock names the bytes to cut
      }
      try {
        if (rolledBack) lock.release();
        else lock.abandon();
      } catch {
        // the write's own error is the one to report
      }
      throw writeFailed(this.path, e);
    }
    lock.release();
    return recovered;
  }

  close(): void {
    closeSync(this.fd);
  }
}

function writeFailed(path: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  const what =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? 'the disk is full. Free some space, then judge again'
      : code === 'EROFS' || code === 'EACCES' || code === 'EPERM'
        ? 'the file cannot be written. Make it writable, then judge again'
        : 'of an I/O error. Check the disk, then judge again';
  return new Error(`Not recorded: writing ${path} failed (${code ?? (e as Error).message}) because ${what}. Nothing of this judgement was kept.`);
}

/** Creates `path` holding `header` unless it exists, atomically: nobody ever sees it without its header. */
function createWithHeader(path: string, header: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx');
  try {
    writeAll(fd, Buffer.from(header));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
    fsyncDir(dirname(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(tmp);
  }
}

function writeAll(fd: number, buf: Buffer): void {
  // 'a+' opens with O_APPEND: every write lands at the current end of the file.
  for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
}

const TAIL_WINDOW = 64 * 1024;

/** Makes the file end with a complete line (see AppendLog). Called with the lock held. */
function repair(fd: number, header: string, isValidLine: (line: string) => boolean, crashed: LockRecord | undefined): Recovery {
  let cutBytes = 0;
  let size = fstatSync(fd).size;
  const pending = crashed?.pending;
  if (pending && pending.offset < size) {
    const expected = Buffer.from(pending.bytes, 'base64');
    const tail = readAt(fd, pending.offset, size - pending.offset);
    if (!tail.equals(expected) && tail.length <= expected.length && tail.every((b, i) => b === expected[i] || b === 0)) {
      ftruncateSync(fd, pending.offset);
      cutBytes = tail.length;
      size = pending.offset;
    }
  }
  if (size === 0) {
    if (header) writeAll(fd, Buffer.from(header));
  } else if (readAt(fd, size - 1, 1)[0] !== 0x0a) {
    const tailStart = lastNewline(fd, size) + 1;
    const tail = readAt(fd, tailStart, size - tailStart);
    if (tail.every((b) => b === 0)) {
      // Zero-fill of an unflushed extent after a power loss: no tool writes NUL bytes into a text file.
      ftruncateSync(fd, tailStart);
      cutBytes += tail.length;
    } else {
      writeAll(fd, Buffer.from('\n'));
      const text = tail.toString('utf8').replace(/\r$/, '');
      const valid = !tail.includes(0) && ((tailStart === 0 && text === header.trimEnd()) || isValidLine(text));
      fsyncSync(fd);
      return { cutBytes, kept: { line: lineNumberAt(fd, tailStart), text, valid } };
    }
  } else if (cutBytes === 0) {
    return { cutBytes };
  }
  fsyncSync(fd);
  return { cutBytes };
}

function lastNewline(fd: number, size: number): number {
  for (let end = size; end > 0; end -= TAIL_WINDOW) {
    const start = Math.max(0, end - TAIL_WINDOW);
    const i = readAt(fd, start, end - start).lastIndexOf(0x0a);
    if (i >= 0) return start + i;
  }
  return -1;
}

/** 1-based line number of the line starting at byte `offset` (only for a report, so a full count is fine). */
function lineNumberAt(fd: number, offset: number): number {
  let lines = 1;
  for (let start = 0; start < offset; start += TAIL_WINDOW) {
    const buf = readAt(fd, start, Math.min(TAIL_WINDOW, offset - start));
    for (const b of buf) if (b === 0x0a) lines++;
  }
  return lines;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  for (let off = 0; off < length; ) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) return buf.subarray(0, off);
    off += n;
  }
  return buf;
}
