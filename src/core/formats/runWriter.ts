import { closeSync, mkdirSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { unwritable } from './errors';

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
  ) {
    if (/\s/.test(tag) || tag === '') throw new Error(`run tag must be non-empty without whitespace: ${JSON.stringify(tag)}`);
    try {
      mkdirSync(dirname(path), { recursive: true });
      this.fd = openSync(tmpPath, 'wx');
    } catch (e) {
      throw unwritable(path, e);
    }
  }

  get lineCount(): number {
    return this.lines;
  }

  /** Appends one query's ranking; scores are written with 6 decimals, as Anserini writes them. */
  writeRanking(qid: string, docIds: ArrayLike<string>, scores: ArrayLike<number>): void {
    const tail = ` ${this.tag}\n`;
    for (let i = 0; i < docIds.length; i++) {
      this.buf += `${qid} Q0 ${docIds[i]} ${i + 1} ${scores[i].toFixed(6)}${tail}`;
      if (this.buf.length > 1 << 20) this.flush();
    }
    this.lines += docIds.length;
  }

  /** Writes what is buffered, closes the file and moves it to its final name. */
  commit(): void {
    try {
      this.flush();
      closeSync(this.takeFd());
      // The sidecar first, so whoever sees the run appear can already read its configuration.
      if (this.config) writeSidecar(this.path, { ...this.config, tag: this.tag, finishedAt: new Date().toISOString() });
      renameSync(this.tmpPath, this.path);
    } catch (e) {
      this.abort();
      throw unwritable(this.path, e, 'no partial run file was left');
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

export function defaultTmpPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
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

/** `<run>.json`: the configuration of a run, written atomically (temp file + rename). */
function writeSidecar(runPath: string, config: object): void {
  const { tmpOut: _tmp, ...rest } = config as { tmpOut?: string };
  const target = `${runPath}.json`;
  const tmp = defaultTmpPath(target);
  writeFileSync(tmp, `${JSON.stringify(rest, null, 2)}\n`);
  renameSync(tmp, target);
}
