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
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        throw unreadable(path, e);
      }
      if (n === 0) break;
      splitter.push(chunk, n);
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
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (;;) {
      signal?.throwIfAborted();
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(chunk, 0, chunk.length, null));
      } catch (e) {
        throw unreadable(path, e);
      }
      if (n === 0) break;
      splitter.push(chunk, n);
    }
    splitter.end();
  } finally {
    await fh.close();
  }
}

/** Splits a stream of chunks into lines; carries a partial last line into the next chunk. */
class LineSplitter {
  private carry: Buffer | null = null;
  private lineNo = 0;
  private offset = 0; // byte offset in the file of the next unread line

  constructor(private readonly onLine: LineHandler) {}

  /** Consumes chunk[0, n); the caller may reuse `chunk` afterwards. */
  push(chunk: Buffer, n: number): void {
    let buf = chunk;
    let len = n;
    if (this.carry) {
      buf = Buffer.concat([this.carry, chunk.subarray(0, n)]);
      len = buf.length;
      this.carry = null;
    }
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl === -1 || nl >= len) break;
      this.emit(buf, start, nl);
      this.offset += nl + 1 - start;
      start = nl + 1;
    }
    if (start < len) {
      // Copy: `buf` is reused by the caller for the next read.
      this.carry = Buffer.from(buf.subarray(start, len));
    }
  }

  end(): void {
    if (this.carry && this.carry.length > 0) this.emit(this.carry, 0, this.carry.length);
    this.carry = null;
  }

  private emit(buf: Buffer, start: number, nl: number): void {
    let end = nl;
    if (end > start && buf[end - 1] === 13) end--;
    this.lineNo++;
    this.onLine(buf, start, end, this.lineNo, this.offset);
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
