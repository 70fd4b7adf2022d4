import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { InputError } from './errors';

/**
 * Byte-level line reading: a callback gets each line as a window [start, end) into a reused buffer, so a
 * 10-million-line file never becomes 10 million strings. Line endings (LF or CRLF) are excluded from the
 * window; `offset` is the line's byte offset in the file (for offset indexes such as the corpus store).
 */
export type LineHandler = (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => void;

const CHUNK = 1 << 20;

/** Reads `path` synchronously in 1 MiB chunks. Throws InputError('unreadable') naming the file. */
export function forEachLineSync(path: string, onLine: LineHandler): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const splitter = new LineSplitter(onLine);
    for (;;) {
      const t = splitter.target();
      let n: number;
      try {
        n = readSync(fd, t.buf, t.at, t.room, null);
      } catch (e) {
        throw unreadable(path, e);
      }
      if (n === 0) break;
      splitter.push(n);
    }
    splitter.end();
  } finally {
    closeSync(fd);
  }
}

/** Async variant for callers that must not block their thread for long (yields between chunks). */
export async function forEachLine(path: string, onLine: LineHandler, signal?: AbortSignal): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const splitter = new LineSplitter(onLine);
    for (;;) {
      signal?.throwIfAborted();
      const t = splitter.target();
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(t.buf, t.at, t.room, null));
      } catch (e) {
        throw unreadable(path, e);
      }
      if (n === 0) break;
      splitter.push(n);
    }
    splitter.end();
  } finally {
    await fh.close();
  }
}

/**
 * Splits a stream of reads into lines. Reads land in the splitter's own buffer right after the partial
 * last line of the previous read, so nothing is concatenated or copied per chunk.
 */
class LineSplitter {
  private buf = Buffer.allocUnsafe(CHUNK);
  private len = 0; // bytes in buf: a partial line carried over, then new data
  private lineNo = 0;
  private offset = 0; // byte offset in the file of buf[0]

  constructor(private readonly onLine: LineHandler) {}

  /** Where the next read should write, growing the buffer when one line fills it. */
  target(): { buf: Buffer; at: number; room: number } {
    if (this.buf.length - this.len < CHUNK / 2) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + CHUNK));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    return { buf: this.buf, at: this.len, room: this.buf.length - this.len };
  }

  /** Consumes n bytes just read into target(). */
  push(n: number): void {
    const buf = this.buf;
    const len = this.len + n;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl === -1 || nl >= len) break;
      this.emit(buf, start, nl);
      start = nl + 1;
    }
    this.offset += start;
    buf.copyWithin(0, start, len);
    this.len = len - start;
  }

  end(): void {
    if (this.len > 0) this.emit(this.buf, 0, this.len);
    this.len = 0;
  }

  private emit(buf: Buffer, start: number, nl: number): void {
    let end = nl;
    if (end > start && buf[end - 1] === 13) end--;
    this.lineNo++;
    this.onLine(buf, start, end, this.lineNo, this.offset + start);
  }
}

function unreadable(path: string, e: unknown): InputError {
  const err = e as NodeJS.ErrnoException;
  const why =
    err.code === 'ENOENT' ? 'no such file' :
    err.code === 'EACCES' ? 'permission denied' :
    err.code === 'EISDIR' ? 'is a directory, not a file' :
    err.message;
  return new InputError({
    code: 'unreadable',
    message: `cannot read file: ${why}`,
    file: path,
    hint: 'Check the path and that the file is readable.',
  });
}

/** Splits a line window into fields on runs of spaces and TABs; returns [start, end) pairs. */
export function splitFields(buf: Buffer, start: number, end: number, out: number[]): number {
  let count = 0;
  let i = start;
  while (i < end) {
    while (i < end && (buf[i] === 32 || buf[i] === 9)) i++;
    if (i >= end) break;
    const s = i;
    while (i < end && buf[i] !== 32 && buf[i] !== 9) i++;
    out[2 * count] = s;
    out[2 * count + 1] = i;
    count++;
  }
  return count;
}
