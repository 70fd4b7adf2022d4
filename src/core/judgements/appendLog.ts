import { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, readSync, statSync, unlinkSync, type BigIntStats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { fsyncDir, writeAllSync } from '../durableFs';
import { textEncoding } from '../formats/lines';
import { FileLock, type LockRecord } from './fileLock';

/** What opening or appending found at the end of the file and did about it. */
export interface Recovery {
  /** Bytes cut: only ones this program (or another instance of it) wrote and never confirmed. */
  cutBytes: number;
  /** An unterminated last line that was kept and given its '\n'; `valid` says whether it parses. */
  kept?: { line: number; text: string; valid: boolean };
  /**
   * The file at the path was no longer the one open: another program replaced it (renamed a file over it, as
   * editors, `sed -i` and `git checkout` do) or deleted it. The new file is followed from then on; a deleted
   * one is created again with its header. `restored`: lines this log had confirmed that the replacing file
   * lacked although they were written after it, appended to it again.
   */
  reopened?: { deleted: boolean; restored: number };
}

/** The text encodings an appended line is written in: the file's own, as found (see textEncoding). */
type TextEncoding = 'plain' | 'utf16le' | 'utf16be';

/**
 * A durable append-only text file shared by processes: append() returns only once the line is on disk
 * (write + fsync) in the file the path names at that moment, and a line is never glued onto bytes that are not
 * a complete line.
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
 * Other programs do not take the lock, and many save a file by writing a new one and renaming it over the old
 * (or delete it). So each append first checks that its descriptor is still the file at the path, and checks
 * again after the fsync: a line that went to a file no longer named by the path is appended again to the one
 * that is, and only then confirmed. Another program's change is never overwritten: lines are only added. When
 * a replacing file was written before some lines this log confirmed into the old one (it could not have seen
 * them: its writer raced an append), those lines are added to it.
 * A file in UTF-16 (an editor's "save with encoding") gets its lines in UTF-16: bytes this program did not
 * write are never changed. A new file is created complete with its header (temp file + link, which fails if
 * the file exists), so two processes creating it at once leave exactly one header.
 */
export class AppendLog {
  private fd: number;
  private ino: bigint;
  private dev: bigint;
  private encoding: TextEncoding;
  /** Lines appended to the open file with its mtime (ns) right after each: what a replacing file may lack. */
  private recent: { line: string; mtimeNs: bigint }[] = [];

  private constructor(
    fd: number,
    readonly path: string,
    private readonly header: string,
    private readonly isValidLine: (line: string) => boolean,
    /** What recovery did when the file was opened. */
    readonly recovered: Recovery,
  ) {
    this.fd = fd;
    const st = fstatSync(fd, { bigint: true });
    this.ino = st.ino;
    this.dev = st.dev;
    this.encoding = encodingOf(fd);
  }

  /**
   * Opens `path` for appending, creating it with `header` (a full line, '\n'-terminated, may be empty) when
   * missing. `isValidLine` tells whether a kept unterminated line parses (it is reported when not).
   */
  static open(path: string, header: string, isValidLine: (line: string) => boolean): AppendLog {
    let fd: number;
    try {
      createWithHeader(path, header);
      fd = openSync(path, 'a+');
    } catch (e) {
      throw writeFailed(path, e);
    }
    try {
      const lock = acquire(path);
      let recovered: Recovery;
      try {
        recovered = repair(fd, path, encodingOf(fd), header, isValidLine, lock.tookOver);
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
   * Appends `line` (without its '\n') and syncs it; when this returns the line survives a crash and is in the
   * file the path names. When it throws, nothing of the line is in the file (or the next append removes it)
   * and the error names the file. Returns what had to be repaired first (another writer's crash or edit, a
   * file replaced or deleted by another program).
   */
  append(line: string): Recovery {
    if (line.includes('\n') || line.includes('\r')) throw new Error('a record cannot contain a line break');
    const lock = acquire(this.path);
    const recovered: Recovery = { cutBytes: 0 };
    let crashed = lock.tookOver;
    for (let attempt = 0; ; attempt++) {
      try {
        const reopened = this.follow();
        this.encoding = encodingOf(this.fd); // re-saved in place in another encoding, maybe
        const r = repair(this.fd, this.path, this.encoding, this.header, this.isValidLine, crashed);
        crashed = undefined;
        recovered.cutBytes += r.cutBytes;
        if (r.kept) recovered.kept = r.kept;
        if (reopened) recovered.reopened = { deleted: reopened.deleted, restored: this.restore(lock, reopened.lost) };
      } catch (e) {
        lock.abandon();
        throw (e as NodeJS.ErrnoException).code ? writeFailed(this.path, e) : e;
      }
      this.write(lock, line);
      if (this.isCurrent()) break;
      // Replaced while it was written: the line is in a file the path no longer names. Again, in the new one.
      if (attempt === 3) {
        lock.release();
        throw new Error(`Not recorded: ${this.path} is being replaced by another program again and again. Close it there, then judge again.`);
      }
    }
    this.remember(line);
    lock.release();
    return recovered;
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * Appends `line` with `lock` held: pending in the lock, write, fsync. On failure the bytes are rolled back,
   * the lock is let go (or left abandoned when even the rollback failed) and the error names the file.
   */
  private write(lock: FileLock, line: string): void {
    const bytes = encode(`${line}\n`, this.encoding);
    let offset: number;
    try {
      offset = fstatSync(this.fd).size;
      lock.setPending(offset, bytes);
    } catch (e) {
      lock.abandon();
      throw e;
    }
    try {
      writeAllSync(this.fd, bytes); // 'a+' opens with O_APPEND: every write lands at the current end of the file
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
  }

  private remember(line: string): void {
    this.recent.push({ line, mtimeNs: fstatSync(this.fd, { bigint: true }).mtimeNs });
    if (this.recent.length > MAX_RECENT) this.recent.splice(0, this.recent.length - MAX_RECENT);
  }

  /** Whether the path still names the open file. */
  private isCurrent(): boolean {
    const st = statOrUndefined(this.path);
    return st !== undefined && st.ino === this.ino && st.dev === this.dev;
  }

  /**
   * When the path no longer names the open file (replaced or deleted by another program), opens the one it
   * names instead, creating it with its header if there is none. Returns the lines confirmed into the old file
   * after the new one was last written (its writer cannot have seen them), for restore(). Lock held.
   */
  private follow(): { deleted: boolean; lost: string[] } | undefined {
    const st = statOrUndefined(this.path);
    if (st && st.ino === this.ino && st.dev === this.dev) return undefined;
    const lost = st ? this.recent.filter((r) => r.mtimeNs >= st.mtimeNs).map((r) => r.line) : [];
    closeSync(this.fd);
    createWithHeader(this.path, this.header);
    this.fd = openSync(this.path, 'a+');
    const now = fstatSync(this.fd, { bigint: true });
    this.ino = now.ino;
    this.dev = now.dev;
    this.encoding = encodingOf(this.fd);
    this.recent = [];
    return { deleted: st === undefined, lost };
  }

  /** Appends those of `lines` the (repaired) file lacks; returns how many. Lock held. */
  private restore(lock: FileLock, lines: string[]): number {
    if (lines.length === 0) return 0;
    const present = new Set(decode(readAt(this.fd, 0, fstatSync(this.fd).size), this.encoding).split(/\r?\n/));
    let restored = 0;
    for (const line of lines) {
      if (present.has(line)) continue;
      this.write(lock, line);
      this.remember(line);
      restored++;
    }
    return restored;
  }
}

/** Lines remembered for a replacing file (see follow): far more than a judging session makes between two saves. */
const MAX_RECENT = 10_000;

function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The file's lock; a lock file that cannot be written (a full disk) is a write that failed, said as such. */
function acquire(path: string): FileLock {
  try {
    return FileLock.acquire(path);
  } catch (e) {
    throw (e as NodeJS.ErrnoException).code ? writeFailed(path, e) : e;
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
    writeAllSync(fd, Buffer.from(header));
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

/** The encoding of the text in `fd`, by its first bytes (an empty file is UTF-8: it gets our header). */
function encodingOf(fd: number): TextEncoding {
  return textEncoding(readAt(fd, 0, 4));
}

/** Bytes of a byte-order mark at the start of a file in this encoding (the text starts after it). */
function bomLength(head: Buffer, enc: TextEncoding): number {
  if (enc === 'plain') return head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  return head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) ? 2 : 0;
}

function encode(text: string, enc: TextEncoding): Buffer {
  if (enc === 'plain') return Buffer.from(text);
  const le = Buffer.from(text, 'utf16le');
  return enc === 'utf16le' ? le : le.swap16();
}

function decode(bytes: Buffer, enc: TextEncoding): string {
  if (enc === 'plain') return bytes.toString('utf8');
  return new TextDecoder(enc === 'utf16le' ? 'utf-16le' : 'utf-16be').decode(bytes);
}

const TAIL_WINDOW = 64 * 1024;

/** Makes the file end with a complete line (see AppendLog). Called with the lock held. */
function repair(fd: number, path: string, enc: TextEncoding, header: string, isValidLine: (line: string) => boolean, crashed: LockRecord | undefined): Recovery {
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
  const unit = enc === 'plain' ? 1 : 2;
  const textStart = bomLength(readAt(fd, 0, 3), enc);
  if (size <= textStart) {
    if (header) writeAllSync(fd, encode(header, enc));
  } else if ((size - textStart) % unit !== 0) {
    // Half a UTF-16 character that this program did not write: appending would shift every later character.
    throw new Error(`Not recorded: ${path} is UTF-16 but ends in the middle of a character, so nothing can be added to it safely. Fix its end in an editor, then judge again.`);
  } else if (!endsWithNewline(fd, size, enc)) {
    const tailStart = lastNewline(fd, size, textStart, enc) + unit;
    const tail = readAt(fd, tailStart, size - tailStart);
    if (tail.every((b) => b === 0)) {
      // Zero-fill of an unflushed extent after a power loss: no tool writes NUL characters into a text file.
      ftruncateSync(fd, tailStart);
      cutBytes += tail.length;
    } else {
      writeAllSync(fd, encode('\n', enc));
      const text = decode(tail, enc).replace(/\r$/, '');
      const valid = !text.includes('\0') && ((tailStart === textStart && text === header.trimEnd()) || isValidLine(text));
      fsyncSync(fd);
      return { cutBytes, kept: { line: lineNumberAt(fd, tailStart, textStart, enc), text, valid } };
    }
  } else if (cutBytes === 0) {
    return { cutBytes };
  }
  fsyncSync(fd);
  return { cutBytes };
}

/** Whether the code unit at position `i` (a multiple of the unit from the text's start) is a line feed. */
function isNewlineAt(buf: Buffer, i: number, enc: TextEncoding): boolean {
  if (enc === 'plain') return buf[i] === 0x0a;
  return enc === 'utf16le' ? buf[i] === 0x0a && buf[i + 1] === 0 : buf[i] === 0 && buf[i + 1] === 0x0a;
}

function endsWithNewline(fd: number, size: number, enc: TextEncoding): boolean {
  const unit = enc === 'plain' ? 1 : 2;
  return isNewlineAt(readAt(fd, size - unit, unit), 0, enc);
}

/** Offset of the last line feed of the text (at or after `textStart`), or `textStart - unit` when there is none. */
function lastNewline(fd: number, size: number, textStart: number, enc: TextEncoding): number {
  const unit = enc === 'plain' ? 1 : 2;
  for (let end = size; end > textStart; end -= TAIL_WINDOW) {
    const start = Math.max(textStart, end - TAIL_WINDOW);
    const buf = readAt(fd, start, end - start);
    if (enc === 'plain') {
      const i = buf.lastIndexOf(0x0a);
      if (i >= 0) return start + i;
      continue;
    }
    for (let i = buf.length - unit; i >= 0; i -= unit) if (isNewlineAt(buf, i, enc)) return start + i;
  }
  return textStart - unit;
}

/** 1-based line number of the line starting at byte `offset` (only for a report, so a full count is fine). */
function lineNumberAt(fd: number, offset: number, textStart: number, enc: TextEncoding): number {
  const unit = enc === 'plain' ? 1 : 2;
  let lines = 1;
  for (let start = textStart; start < offset; start += TAIL_WINDOW) {
    const buf = readAt(fd, start, Math.min(TAIL_WINDOW, offset - start));
    for (let i = 0; i + unit <= buf.length; i += unit) if (isNewlineAt(buf, i, enc)) lines++;
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
