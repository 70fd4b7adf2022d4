import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AtomicFile, removeLeftovers } from '../durableFs';
import { encodeId, encodeIdInto } from './idTable';
import { InputError, unwritable } from './errors';
import { irMetadata } from '../provenance/irMetadata';
import type { Provenance } from '../provenance/record';

/**
 * Streaming TREC run writer ("qid Q0 docid rank score tag" lines). Lines go to a temporary file next to the
 * destination, which replaces the destination only on `commit()` (synced, then renamed: see AtomicFile);
 * `abort()` (or any error while writing) removes it, so a cancelled or failed run never leaves a partial file
 * under the final name, and the run that was there before stays as it was.
 */
export class RunWriter {
  private file: AtomicFile | null;
  /** Lines are formatted straight into this buffer (no per-line strings), written out when nearly full. */
  private buf = Buffer.allocUnsafe(WRITE_BUFFER);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  private used = 0;
  private lines = 0;
  private readonly tail: Words;

  /**
   * @param tmpPath where to write until commit; by default a hidden, randomly named file in the same directory
   *   (same file system, so the rename is atomic). A parent process may choose it, to clean up after a killed child.
   */
  constructor(
    readonly path: string,
    readonly tag: string,
    tmpPath?: string,
    /**
     * What made the run: its settings (the request) and `provenance` (provenance/record.ts), written on commit
     * to `<path>.json` with the ir_metadata block derived from them.
     */
    private readonly config?: RunConfig,
    /**
     * 'fixed6': 6 decimals, as Anserini writes them. 'ranked': 6 decimals where trec_eval reads them back in the
     * given order, else a 32-bit float score written exactly (see `RankedScores`); for rankings whose order is
     * their own, such as fusion's.
     */
    private readonly scoreFormat: 'fixed6' | 'ranked' = 'fixed6',
  ) {
    if (/\s/.test(tag) || tag === '') throw new Error(`run tag must be non-empty without whitespace: ${JSON.stringify(tag)}`);
    checkOutPath(path);
    this.tail = words(Buffer.from(` ${tag}\n`, 'utf8'));
    removeLeftovers(`${path}.json`);
    this.file = AtomicFile.open(path, tmpPath, 'no partial run file was left');
  }

  /** Where the lines are written until commit. */
  get tmpPath(): string {
    return this.openFile().tmp;
  }

  get lineCount(): number {
    return this.lines;
  }

  /** Appends one query's ranking; scores are written as `scoreFormat` says. */
  writeRanking(qid: string, docIds: ArrayLike<string>, scores: ArrayLike<number>): void {
    // Ids are bytes (decodeId's escapes turned back into the bytes they stand for), as every reader reads them.
    const head = words(Buffer.concat([encodeId(qid), Buffer.from(' Q0 ')]));
    const tail = this.tail;
    const ranked = this.scoreFormat === 'ranked' ? new RankedScores() : null;
    for (let i = 0; i < docIds.length; i++) {
      const id = docIds[i];
      // Bytes this line can take at most: UTF-8 needs up to 3 bytes per UTF-16 code unit; rank and score < 64;
      // the constant parts are copied in whole 4-byte words (up to 3 bytes past their end, overwritten next).
      const most = head.bytes + 3 * id.length + 64 + tail.bytes + 8 + (ranked ? 32 : 0);
      if (this.used + most > this.buf.length) this.makeRoom(most);
      const buf = this.buf;
      const view = this.view;
      let at = this.used;
      at = putWords(view, at, head);
      at = encodeIdInto(id, buf, at);
      buf[at++] = SPACE;
      at = putUint(buf, at, i + 1);
      buf[at++] = SPACE;
      at = ranked ? putText(buf, at, ranked.next(scores[i])) : putFixed6(buf, at, scores[i]);
      this.used = putWords(view, at, tail);
    }
    this.lines += docIds.length;
  }

  /**
   * Writes what is buffered and moves the file to its final name, durably; then the sidecar `<path>.json`
   * (prepared and synced beside it beforehand), so a run that fails never replaces the configuration of the run
   * before it.
   */
  commit(): void {
    let sidecar: AtomicFile | null = null;
    try {
      this.flush();
      if (this.config) {
        sidecar = AtomicFile.open(`${this.path}.json`);
        sidecar.write(`${JSON.stringify(sidecarJson(this.config, this.tag), null, 2)}\n`);
      }
      const file = this.openFile();
      this.file = null;
      file.commit();
    } catch (e) {
      sidecar?.abort();
      this.abort();
      throw unwritable(this.path, e, 'no partial run file was left');
    }
    sidecar?.commit();
  }

  /** Discards the output: removes the temporary file. Safe to call more than once. */
  abort(): void {
    this.file?.abort();
    this.file = null;
    this.used = 0;
  }

  private flush(): void {
    if (this.used === 0) return;
    const file = this.openFile();
    try {
      file.write(this.buf.subarray(0, this.used));
    } catch (e) {
      this.abort();
      throw unwritable(this.path, e, 'no partial run file was left');
    }
    this.used = 0;
  }

  /** Flushes, and grows the buffer when one line needs more than it holds (document ids are not bounded). */
  private makeRoom(bytes: number): void {
    this.flush();
    if (bytes > this.buf.length) {
      this.buf = Buffer.allocUnsafe(bytes);
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    }
  }

  private openFile(): AtomicFile {
    if (this.file === null) throw new Error('run writer is closed');
    return this.file;
  }
}

/**
 * Refuses an output path that names a folder, or whose folder cannot be made because a file stands in its way
 * (checked before any work, so the run is not computed for nothing).
 */
export function checkOutPath(path: string): void {
  if (kindOf(path) === 'dir') {
    throw new InputError({
      code: 'unwritable',
      message: 'this is a folder; the run needs a file name',
      file: path,
      hint: `Name a file, e.g. --out ${join(path, 'run.trec')}.`,
    });
  }
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const kind = kindOf(dir);
    if (kind === 'file') {
      throw new InputError({
        code: 'unwritable',
        message: `cannot write file: ${dir} is a file, not a folder`,
        file: path,
        hint: 'Choose an output path whose folders are folders (or move that file away).',
      });
    }
    if (kind === 'dir' || dirname(dir) === dir) return;
  }
}

function kindOf(path: string): 'file' | 'dir' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'none';
  }
}

const WRITE_BUFFER = 1 << 20;
const SPACE = 0x20;

/** Writes `s` as UTF-8 at `at`; returns the end. ASCII is copied code unit by code unit (ids nearly always are). */
function putText(buf: Buffer, at: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return at - i + buf.write(s, at - i, 'utf8');
    buf[at++] = c;
  }
  return at;
}

/** A constant byte string as little-endian 4-byte words (the last one padded), for putWords. */
interface Words {
  words: Uint32Array;
  bytes: number;
}

function words(b: Buffer): Words {
  const padded = Buffer.alloc(4 * Math.ceil(b.length / 4));
  b.copy(padded);
  return { words: Uint32Array.from({ length: padded.length / 4 }, (_, i) => padded.readUInt32LE(4 * i)), bytes: b.length };
}

/** Copies `w` at `at` a word at a time (a quarter of the stores of a byte loop); returns the end of its bytes. */
function putWords(view: DataView, at: number, w: Words): number {
  const a = w.words;
  for (let i = 0; i < a.length; i++) view.setUint32(at + 4 * i, a[i], true);
  return at + w.bytes;
}

/** "00" to "99": digits are written two at a time, halving the divisions. */
const DIGIT_PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1');

/** Writes a non-negative integer below 2^53 in decimal at `at`; returns the end. */
export function putUint(buf: Buffer, at: number, n: number): number {
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  const end = at + digits;
  let i = end;
  // Above 2^31 in doubles; below, in int32 arithmetic, where V8 turns a division by a constant into a multiply.
  for (; n >= 2 ** 31; i--) {
    const q = Math.floor(n / 10);
    buf[i - 1] = 0x30 + (n - 10 * q);
    n = q;
  }
  let v = n | 0;
  while (v >= 100) {
    const q = (v / 100) | 0;
    const r = 2 * (v - 100 * q);
    buf[--i] = DIGIT_PAIRS[r + 1];
    buf[--i] = DIGIT_PAIRS[r];
    v = q;
  }
  // The first one or two digits, at the start.
  if (v >= 10) {
    buf[at] = DIGIT_PAIRS[2 * v];
    buf[at + 1] = DIGIT_PAIRS[2 * v + 1];
  } else buf[at] = 0x30 + v;
  return end;
}

/**
 * Number(x.toFixed(6)) without the string: the score a run file's "fixed6" text reads back as (the same
 * rounding as putFixed6, falling back to toFixed where it does).
 */
export function fixed6(x: number): number {
  const p = (x < 0 ? -x : x) * 1e6;
  const n = Math.round(p);
  if (!(p < 2 ** 40) || Math.abs(Math.abs(p - n) - 0.5) < 1e-3) return Number(x.toFixed(6));
  return x < 0 ? -n / 1e6 : n / 1e6;
}

/**
 * Writes `x.toFixed(6)` at `at` without making the string; returns the end. toFixed picks the integer n nearest
 * to x * 10^6 computed exactly (the larger on a tie); the double product is within half an ulp of it, so its
 * nearest integer is n unless the product lies next to a half: those, and values too large for the margin, go
 * through toFixed itself.
 */
export function putFixed6(buf: Buffer, at: number, x: number): number {
  const a = x < 0 ? -x : x;
  const p = a * 1e6;
  const n = Math.round(p);
  if (!(p < 2 ** 40) || Math.abs(Math.abs(p - n) - 0.5) < 1e-3) return putText(buf, at, x.toFixed(6));
  if (x < 0) buf[at++] = 0x2d; // '-', as toFixed writes it for any x < 0, even when n is 0
  const whole = Math.floor(n / 1e6);
  at = putUint(buf, at, whole);
  buf[at] = 0x2e;
  // The six decimals as three digit pairs, in int32 arithmetic (below 10^6).
  const frac = (n - whole * 1e6) | 0;
  const hi = (frac / 10000) | 0;
  const rest = frac - 10000 * hi;
  const mid = (rest / 100) | 0;
  const lo = rest - 100 * mid;
  buf[at + 1] = DIGIT_PAIRS[2 * hi];
  buf[at + 2] = DIGIT_PAIRS[2 * hi + 1];
  buf[at + 3] = DIGIT_PAIRS[2 * mid];
  buf[at + 4] = DIGIT_PAIRS[2 * mid + 1];
  buf[at + 5] = DIGIT_PAIRS[2 * lo];
  buf[at + 6] = DIGIT_PAIRS[2 * lo + 1];
  return at + 7;
}

/**
 * Score texts for one ranking such that trec_eval (which reads a score into a 32-bit float and orders equal ones
 * by document id descending) reads the lines in the order given: 6 decimals where they keep that order, else the
 * shortest text of a 32-bit float that does: the score's own, or the float just below the line above when the
 * score's own would tie with it or pass it. Equal scores get equal texts (trec_eval then orders them by document
 * id descending, as fusion does). Only scores in descending order are adjusted.
 */
export class RankedScores {
  private prevScore = NaN;
  private prevRead = NaN;
  private prevText = '';

  next(score: number): string {
    if (score === this.prevScore) return this.prevText;
    const first = Number.isNaN(this.prevScore) || score > this.prevScore;
    let text = score.toFixed(6);
    let read = Math.fround(Number(text));
    const lost = read === 0 && score !== 0; // a tiny score would read as 0
    if (lost || !Number.isFinite(score) || (!first && read >= this.prevRead)) {
      const own = Math.fround(score);
      const target = first || own < this.prevRead ? own : nextDown32(this.prevRead);
      text = shortestFloat32(target);
      read = target;
    }
    this.prevScore = score;
    this.prevRead = read;
    this.prevText = text;
    return text;
  }
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);

/** The largest 32-bit float below `x` (a 32-bit float). */
export function nextDown32(x: number): number {
  if (x === 0) return -1.401298464324817e-45;
  f32[0] = x;
  i32[0] += x > 0 ? -1 : 1;
  return f32[0];
}

/** The shortest decimal text that reads back (through a double, as C's atof, then a float) as `x`. */
function shortestFloat32(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  for (let p = 6; p < 9; p++) {
    const t = x.toPrecision(p);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(Number(x.toPrecision(9)));
}

/** A run's settings (any request's fields) and, when the caller recorded it, its provenance. */
export interface RunConfig {
  retriever: string;
  provenance?: Provenance;
  [setting: string]: unknown;
}

/**
 * The sidecar's content: the settings as top-level keys (without where the file was staged or the command,
 * which provenance records), the tag, when it finished, provenance and its ir_metadata restatement.
 */
export function sidecarJson(config: RunConfig, tag: string): Record<string, unknown> {
  const { tmpOut: _tmp, command: _command, provenance, ...settings } = config as RunConfig & { tmpOut?: string; command?: string };
  const out: Record<string, unknown> = { ...settings, tag, finishedAt: new Date().toISOString() };
  if (provenance) {
    out.provenance = provenance;
    out.ir_metadata = irMetadata(tag, out, provenance);
  }
  return out;
}
