import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { InputError } from './errors';

/**
 * Byte-level line reading: a callback gets each line as a window [start, end) into a reused buffer, so a
 * 10-million-line file never becomes 10 million strings. Line endings (LF or CRLF) are excluded from the
 * window; `offset` is the line's byte offset in the file (for offset indexes such as the corpus store).
 */
export type LineHandler = (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => void;

/**
 * An optional fast path beside a LineHandler, for files of millions of lines: given a chunk, it handles whole
 * lines from `start` on by itself (no callback and no line-break search per line) and returns where it
 * stopped: at the first line it leaves to the LineHandler (e.g. a bad line, for its error), or at the partial
 * last line. It sets `handled` to the number of lines it handled, for line numbers.
 */
export interface BulkLineHandler {
  lines(buf: Buffer, start: number, end: number): number;
  handled: number;
}

/** Loaded for the first gzip file (require keeps it): most runs read none, and loading it is ~2 ms of a cold `irw run`. */
function zlib(): typeof import('node:zlib') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:zlib') as typeof import('node:zlib');
}

const CHUNK = 1 << 20;
/** Longer lines are refused: no TREC or BEIR file has them, and a file without line breaks must not fill memory. */
export const MAX_LINE = 32 << 20;

/** Bytes [start, end) of a plain (not gzip) file, cut at line boundaries by the caller. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads `path` synchronously in 1 MiB chunks; `-` is standard input, and a gzip file is decompressed (in
 * memory: qrels and runs compress well, and the sync readers have no streaming gunzip). Throws
 * InputError('unreadable') naming the file. With `range`, reads only those bytes of a plain file (line
 * numbers then count from the range's first line). `onRead` gets the file's bytes as read, in order and
 * before decompression (to hash them in the same pass). Returns the number of lines read.
 */
export function forEachLineSync(path: string, onLine: LineHandler, range?: ByteRange, bulk?: BulkLineHandler, onRead?: (bytes: Buffer) => void): number {
  let fd: number;
  try {
    fd = path === '-' ? 0 : openSync(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const splitter = new LineSplitter(onLine, path, range?.start ?? 0, bulk);
    let first = !range;
    let at = range?.start ?? 0;
    for (;;) {
      const t = splitter.target();
      let n: number;
      try {
        n = range ? readSync(fd, t.buf, t.at, Math.min(t.room, range.end - at), at) : readSync(fd, t.buf, t.at, t.room, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue; // a non-blocking stdin not ready yet
        if ((e as NodeJS.ErrnoException).code === 'EOF') break;
        throw unreadable(path, e);
      }
      if (first && n >= 2 && t.buf[t.at] === 0x1f && t.buf[t.at + 1] === 0x8b && path !== '-') {
        splitter.feed(gunzipped(path, onRead));
        break;
      }
      first = false;
      if (n === 0) break;
      at += n;
      onRead?.(t.buf.subarray(t.at, t.at + n));
      splitter.push(n);
    }
    return splitter.end();
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

function gunzipped(path: string, onRead?: (bytes: Buffer) => void): Buffer {
  try {
    const raw = readFileSync(path);
    onRead?.(raw);
    return zlib().gunzipSync(raw);
  } catch (e) {
    throw gunzipFailed(path, e);
  }
}

function gunzipFailed(path: string, e: unknown): InputError {
  return new InputError({
    code: 'unreadable',
    message: `cannot decompress gzip file: ${(e as Error).message}`,
    file: path,
    hint: 'The file starts like gzip but does not decompress: check that it was copied completely.',
  });
}

/** Async variant for callers that must not block their thread for long (yields between chunks); reads gzip too. */
export async function forEachLine(path: string, onLine: LineHandler, signal?: AbortSignal): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const splitter = new LineSplitter(onLine, path);
    const magic = Buffer.alloc(2);
    const { bytesRead } = await fh.read(magic, 0, 2, 0);
    if (bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b) {
      try {
        for await (const chunk of fh.createReadStream({ start: 0, autoClose: false }).pipe(zlib().createGunzip())) {
          signal?.throwIfAborted();
          splitter.feed(chunk as Buffer);
        }
      } catch (e) {
        if (e instanceof InputError || signal?.aborted) throw e;
        throw gunzipFailed(path, e);
      }
    } else {
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
  private offset: number; // byte offset in the file of buf[0]

  constructor(
    private readonly onLine: LineHandler,
    private readonly path: string,
    offset = 0,
    private readonly bulk?: BulkLineHandler,
  ) {
    this.offset = offset;
  }

  /** Where the next read should write, growing the buffer when one line fills it. */
  target(): { buf: Buffer; at: number; room: number } {
    if (this.buf.length - this.len < CHUNK / 2) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + CHUNK));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    return { buf: this.buf, at: this.len, room: this.buf.length - this.len };
  }

  /** Consumes bytes that arrived elsewhere (decompressed data), through the same buffer. */
  feed(data: Buffer): void {
    for (let at = 0; at < data.length; ) {
      const t = this.target();
      const n = Math.min(t.room, data.length - at);
      data.copy(t.buf, t.at, at, at + n);
      this.push(n);
      at += n;
    }
  }

  /** Consumes n bytes just read into target(). */
  push(n: number): void {
    const buf = this.buf;
    const len = this.len + n;
    // A UTF-8 byte-order mark is not part of the first line (it would become part of the first id).
    let start = this.lineNo === 0 && this.offset === 0 ? bomLength(buf, len) : 0;
    for (;;) {
      if (this.bulk) {
        start = this.bulk.lines(buf, start, len);
        this.lineNo += this.bulk.handled;
      }
      const nl = buf.indexOf(10, start);
      if (nl === -1 || nl >= len) break;
      this.emit(buf, start, nl);
      start = nl + 1;
    }
    this.offset += start;
    buf.copyWithin(0, start, len);
    this.len = len - start;
    if (this.len > MAX_LINE) {
      throw new InputError({
        code: 'malformed',
        message: `the line is longer than ${MAX_LINE >> 20} MiB without a line break`,
        file: this.path,
        line: this.lineNo + 1,
        text: quotable(this.buf, 0, this.len),
        hint: 'This does not look like a line-based text file (TREC qrels/run, BEIR .tsv/.jsonl): check that the right file was given.',
      });
    }
  }

  /** Emits the last line if it has no line break; returns the number of lines. */
  end(): number {
    if (this.len > 0) this.emit(this.buf, this.lineNo === 0 && this.offset === 0 ? bomLength(this.buf, this.len) : 0, this.len);
    this.len = 0;
    return this.lineNo;
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

/**
 * Splits a line window into fields on runs of whitespace as C's isspace() sees it (space, TAB, VT, FF, CR),
 * which is how trec_eval splits qrels and run lines; returns [start, end) pairs.
 */
export function splitFields(buf: Buffer, start: number, end: number, out: number[]): number {
  let count = 0;
  let i = start;
  while (i < end) {
    while (i < end && isSpace(buf[i])) i++;
    if (i >= end) break;
    const s = i;
    while (i < end && !isSpace(buf[i])) i++;
    out[2 * count] = s;
    out[2 * count + 1] = i;
    count++;
  }
  return count;
}

/** C's isspace(): space, TAB, LF, VT, FF, CR (one comparison for the common byte above space: ~8 % of reading a run). */
export function isSpace(c: number): boolean {
  return c <= 32 && (c === 32 || (c >= 9 && c <= 13));
}
function bomLength(buf: Buffer, len: number): number {
  return len >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

const QUOTE_BYTES = 200;

/**
 * A bad line as an error quotes it: at most 200 characters however long the line, control characters (NUL
 * and line breaks included) made visible (see visibleControls) so the quote stays one short line.
 */
export function quotable(buf: Buffer, start: number, end: number): string {
  const cut = end - start > QUOTE_BYTES;
  const s = buf.toString('utf8', start, cut ? start + QUOTE_BYTES : end).replace(/\uFFFD$/, '');
  const shown = visibleControls(s.replace(/\n/g, '\u240a'));
  return cut ? `${shown.slice(0, QUOTE_BYTES)}…` : shown;
}

// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * File-derived text (ids, run tags, file names) made safe to print on a terminal: C0 controls but TAB and LF
 * (ESC starts the escape sequences that retitle a window, move the cursor or rewrite a line) as their visible
 * symbols U+2400 + code (␛), DEL as ␡, C1 controls (0x80-0x9f: CSI and OSC in 8 bits) and the bidirectional
 * overrides and isolates (which reorder what follows on the line) as \u escapes. Everything else is unchanged.
 */
export function visibleControls(s: string): string {
  return s.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Byte equality without a native call per line (query ids and tags are short and nearly always the previous line's). */
export function sameBytes(a: Buffer, buf: Buffer, start: number, end: number): boolean {
  if (a.length !== end - start) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== buf[start + i]) return false;
  return true;
}
