import { closeSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError, unwritable } from './errors';

/**
 * Streaming TREC run writer ("qid Q0 docid rank score tag" lines). Lines go to a temporary file next to the
 * destination, which replaces the destination only on `commit()`; `abort()` (or any error while writing)
 * removes it, so a cancelled or failed run never leaves a partial file under the final name.
 */
export class RunWriter {
  private fd: number | null;
  private buf = '';
  private lines = 0;

  /**
   * @param tmpPath where to write until commit; by default a hidden, randomly named file in the same directory
   *   (same file system, so the rename is atomic). A parent process may choose it, to clean up after a killed child.
   */
  constructor(
    readonly path: string,
    readonly tag: string,
    readonly tmpPath: string = defaultTmpPath(path),
    /** What made the run (retriever and parameters): written on commit to `<path>.json`, which the store reads. */
    private readonly config?: object,
    /**
     * 'fixed6': 6 decimals, as Anserini writes them. 'ranked': 6 decimals where trec_eval reads them back in the
     * given order, else a 32-bit float score written exactly (see `RankedScores`); for rankings whose order is
     * their own, such as fusion's.
     */
    private readonly scoreFormat: 'fixed6' | 'ranked' = 'fixed6',
  ) {
    if (/\s/.test(tag) || tag === '') throw new Error(`run tag must be non-empty without whitespace: ${JSON.stringify(tag)}`);
    checkOutPath(path);
    try {
      mkdirSync(dirname(path), { recursive: true });
      removeLeftovers(path);
      removeLeftovers(`${path}.json`);
      this.fd = openSync(tmpPath, 'wx');
    } catch (e) {
      throw unwritable(path, e);
    }
  }

  get lineCount(): number {
    return this.lines;
  }

  /** Appends one query's ranking; scores are written as `scoreFormat` says. */
  writeRanking(qid: string, docIds: ArrayLike<string>, scores: ArrayLike<number>): void {
    const tail = ` ${this.tag}\n`;
    const ranked = this.scoreFormat === 'ranked' ? new RankedScores() : null;
    for (let i = 0; i < docIds.length; i++) {
      const score = ranked ? ranked.next(scores[i]) : scores[i].toFixed(6);
      this.buf += `${qid} Q0 ${docIds[i]} ${i + 1} ${score}${tail}`;
      if (this.buf.length > 1 << 20) this.flush();
    }
    this.lines += docIds.length;
  }

  /**
   * Writes what is buffered, closes the file and moves it to its final name; then the sidecar `<path>.json`
   * (prepared beside it beforehand), so a run that fails never replaces the configuration of the run before it.
   */
  commit(): void {
    let sidecar: string | null = null;
    try {
      this.flush();
      closeSync(this.takeFd());
      if (this.config) sidecar = prepareSidecar(this.path, { ...this.config, tag: this.tag, finishedAt: new Date().toISOString() });
      renameSync(this.tmpPath, this.path);
    } catch (e) {
      if (sidecar) removeQuietly(sidecar);
      this.abort();
      throw unwritable(this.path, e, 'no partial run file was left');
    }
    if (sidecar) {
      try {
        renameSync(sidecar, `${this.path}.json`);
      } catch (e) {
        removeQuietly(sidecar);
        throw unwritable(`${this.path}.json`, e, `the run ${this.path} was written, its configuration file was not`);
      }
    }
  }

  /** Discards the output: closes and removes the temporary file. Safe to call more than once. */
  abort(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.takeFd());
      } catch {
        // already closed or failed: removal below is what matters
      }
    }
    this.buf = '';
    removeQuietly(this.tmpPath);
  }

  private flush(): void {
    if (this.buf.length === 0) return;
    const fd = this.fd;
    if (fd === null) throw new Error('run writer is closed');
    try {
      writeAllSync(fd, Buffer.from(this.buf, 'utf8'));
    } catch (e) {
      this.abort();
      throw unwritable(this.path, e, 'no partial run file was left');
    }
    this.buf = '';
  }

  private takeFd(): number {
    const fd = this.fd;
    if (fd === null) throw new Error('run writer is closed');
    this.fd = null;
    return fd;
  }
}

/**
 * `.<name>.<pid>.<random>.partial` beside `path`: hidden, on the same file system (the rename is atomic), and
 * naming the process that writes it, so a later run can tell a leftover of a killed process (see removeLeftovers).
 */
export function defaultTmpPath(path: string, pid = process.pid): string {
  return join(dirname(path), `.${basename(path)}.${pid}.${randomBytes(4).toString('hex')}.partial`);
}

/**
 * Removes the temporary files of earlier writes to `path` whose process is gone (SIGKILL cannot be caught, so a
 * killed run leaves its `.partial` behind). A file whose process still runs is left alone: it may be writing.
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

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
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

/** writeSync until every byte is written (a single call may write less). */
export function writeAllSync(fd: number, data: Uint8Array): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off);
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // absent already
  }
}

/** `<run>.json`, the configuration of a run, written to a temporary file that commit() renames into place. */
function prepareSidecar(runPath: string, config: object): string {
  const { tmpOut: _tmp, ...rest } = config as { tmpOut?: string };
  const tmp = defaultTmpPath(`${runPath}.json`);
  writeFileSync(tmp, `${JSON.stringify(rest, null, 2)}\n`);
  return tmp;
}
