import { closeSync, openSync, readSync } from 'node:fs';
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
 * What a file's first bytes say its bytes are: gzip (its magic), UTF-16 (a byte-order mark, or ASCII text with
 * every other byte zero, as editors that "save with encoding" write it), else plain (UTF-8 or ASCII). Reading
 * decodes all of them to the same lines; `textEncoding` is also how a writer tells what it appends to.
 */
export type Encoding = 'gzip' | 'utf16le' | 'utf16be' | 'plain';

export function sniffEncoding(head: Uint8Array): Encoding {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  return textEncoding(head);
}

export function textEncoding(head: Uint8Array): 'utf16le' | 'utf16be' | 'plain' {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf16be';
  if (head.length >= 4 && head[0] !== 0 && head[1] === 0 && head[2] !== 0 && head[3] === 0) return 'utf16le';
  if (head.length >= 4 && head[0] === 0 && head[1] !== 0 && head[2] === 0 && head[3] !== 0) return 'utf16be';
  return 'plain';
}

/** Bytes a sniff needs (fewer only at the end of the file). */
const SNIFF_BYTES = 4;

/**
 * Reads `path` synchronously in 1 MiB chunks; `-` is standard input. Gzip (by its magic bytes, on a file or on
 * standard input alike) is decompressed as it streams, so memory stays bounded by the line limit however large
 * the decompressed text; UTF-16 text is decoded to UTF-8 (line offsets are then those of the decoded text, as
 * for gzip). Throws InputError('unreadable') naming the file. With `range`, reads only those bytes of a plain
 * file (line numbers then count from the range's first line). `onRead` gets the file's bytes as read, in order
 * and before decompression (to hash them in the same pass). Returns the number of lines read.
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
    let at = range?.start ?? 0;
    const read = (buf: Buffer, off: number, len: number): number => {
      for (;;) {
        try {
          return range ? readSync(fd, buf, off, Math.min(len, range.end - at), at) : readSync(fd, buf, off, len, null);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue; // a non-blocking stdin not ready yet
          if ((e as NodeJS.ErrnoException).code === 'EOF') return 0;
          throw unreadable(path, e);
        }
      }
    };
    let decode: ((chunk: Buffer, last: boolean) => void) | undefined;
    for (let first = !range; ; first = false) {
      const t = splitter.target();
      let n = read(t.buf, t.at, t.room);
      if (first) {
        for (let m = n; m > 0 && n < SNIFF_BYTES; n += m) m = read(t.buf, t.at + n, t.room - n);
        const kind = sniffEncoding(t.buf.subarray(t.at, t.at + n));
        if (kind !== 'plain') {
          const feed = (text: Buffer) => splitter.feed(text);
          decode = kind === 'gzip' ? gunzipper(path, feed) : utf16Decoder(kind, feed);
          const head = Buffer.from(t.buf.subarray(t.at, t.at + n));
          onRead?.(head);
          decode(head, n === 0);
          break;
        }
      }
      if (n === 0) break;
      at += n;
      onRead?.(t.buf.subarray(t.at, t.at + n));
      splitter.push(n);
    }
    if (decode) {
      const raw = Buffer.allocUnsafe(GUNZIP_STEP);
      for (;;) {
        const n = read(raw, 0, raw.length);
        onRead?.(raw.subarray(0, n));
        decode(raw.subarray(0, n), n === 0);
        if (n === 0) break;
      }
    }
    return splitter.end();
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

const Z_BUF_ERROR = -5;

/** Compressed bytes read per step (the text reaches the line splitter 64 KiB at a time, whatever the ratio). */
const GUNZIP_STEP = 64 << 10;

/**
 * A streaming, synchronous gunzip (pako: Node's zlib has no synchronous stream): each call decompresses `chunk`
 * and hands the text to `feed` as it comes (64 KiB at a time), so memory stays bounded by what `feed` keeps.
 * Concatenated members are read on; a damaged stream (checksum included) or one that ends early is an error.
 */
function gunzipper(path: string, feed: (text: Buffer) => void): (chunk: Buffer, last: boolean) => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Inflate } = require('pako') as typeof import('pako'); // loaded for the first gzip file only, as zlib is
  const inflate = new Inflate();
  inflate.onData = (out) => feed(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  return (chunk, last) => {
    inflate.push(chunk, last);
    // At the end, zlib's "buffer error" (no progress possible) means the data stopped before the stream did.
    if (last && (!inflate.ended || inflate.err === Z_BUF_ERROR)) throw gunzipFailed(path, new Error('unexpected end of file'));
    if (inflate.err) throw gunzipFailed(path, new Error(inflate.msg || `zlib error ${inflate.err}`));
  };
}

/** UTF-16 (either byte order; a byte-order mark is dropped) to UTF-8, across chunk boundaries. */
function utf16Decoder(kind: 'utf16le' | 'utf16be', feed: (text: Buffer) => void): (chunk: Buffer, last: boolean) => void {
  const decoder = new TextDecoder(kind === 'utf16le' ? 'utf-16le' : 'utf-16be');
  return (chunk, last) => feed(Buffer.from(decoder.decode(chunk, { stream: !last }), 'utf8'));
}

function gunzipFailed(path: string, e: unknown): InputError {
  const message = (e as Error).message;
  const truncated = /unexpected end of file/i.test(message);
  return new InputError({
    code: 'unreadable',
    message: `cannot decompress gzip file: ${message}`,
    file: path,
    hint: truncated
      ? 'The gzip data ends early: check that the file was copied (or downloaded) completely.'
      : 'The file starts like gzip but its data is damaged: get a fresh copy of it.',
  });
}

/** Async variant for callers that must not block their thread for long (yields between chunks); reads gzip and UTF-16 too. */
export async function forEachLine(path: string, onLine: LineHandler, signal?: AbortSignal): Promise<void> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw unreadable(path, e);
  }
  try {
    const splitter = new LineSplitter(onLine, path);
    const magic = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(magic, 0, SNIFF_BYTES, 0);
    const kind = sniffEncoding(magic.subarray(0, bytesRead));
    if (kind !== 'plain') {
      const source = fh.createReadStream({ start: 0, autoClose: false });
      try {
        if (kind === 'gzip') {
          for await (const chunk of source.pipe(zlib().createGunzip())) {
            signal?.throwIfAborted();
            splitter.feed(chunk as Buffer);
          }
        } else {
          const decode = utf16Decoder(kind, (text) => splitter.feed(text));
          for await (const chunk of source) {
            signal?.throwIfAborted();
            decode(chunk as Buffer, false);
          }
          decode(Buffer.alloc(0), true);
        }
      } catch (e) {
        if (e instanceof InputError || signal?.aborted) throw e;
        if (kind === 'gzip') throw gunzipFailed(path, e);
        throw unreadable(path, e);
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
    // The bulk handler never sees a line holding a NUL byte (what a crash leaves in a file): it stops before
    // such a line, which then goes to onLine, whose checks refuse it.
    let nul = -1;
    // The line-break search stops at the bytes read: past them, in a buffer of 1 MiB or more, indexOf would scan
    // (and fault in) the unused rest at every chunk's last line, ~4 ms for each small file such as a qrels.
    const data = len === buf.length ? buf : buf.subarray(0, len);
    for (;;) {
      if (this.bulk) {
        if (nul < start) nul = nulOrEnd(buf, start, len);
        start = this.bulk.lines(buf, start, nul);
        this.lineNo += this.bulk.handled;
      }
      const nl = data.indexOf(10, start);
      if (nl === -1) break;
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
/** The first NUL byte in buf[start, end), or `end`. */
function nulOrEnd(buf: Buffer, start: number, end: number): number {
  const i = buf.subarray(start, end).indexOf(0);
  return i < 0 ? end : start + i;
}

/** Whether buf[start, end) holds a NUL byte: no text format has one, a crash (or a damaged disk) leaves blocks of them. */
export function hasNul(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] === 0) return true;
  return false;
}

/**
 * The error for a line holding NUL bytes, as every line reader words it. A block of NUL bytes is what a crash
 * or a damaged disk leaves in a file: any figure read from such a line would be wrong.
 */
export function nulLineError(path: string, buf: Buffer, start: number, end: number, lineNo: number): InputError {
  return new InputError({
    code: 'malformed',
    message: 'the line holds NUL bytes (zero bytes), which no text file has: the file is damaged (a crash or a disk error leaves blocks of them)',
    file: path,
    line: lineNo,
    text: quotable(buf, start, end),
    hint: 'Restore the file from a good copy (or write it again); the lines with NUL bytes are not guesses worth scoring.',
  });
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
