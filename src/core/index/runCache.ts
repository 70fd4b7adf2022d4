import { statSync } from 'node:fs';
import { readRun, type Run } from '../formats/run';
import { fileStamp } from './fileState';

/**
 * Parsed runs the store worker keeps while their files are unchanged (size and mtime), least recently used
 * first out. Indexing a new run reads it once for both its row and its figures, and a burst of judgements
 * re-scores the split's runs without parsing their files again.
 */
export class RunCache {
  private readonly runs = new Map<string, { stamp: string; run: Run; hash?: string }>();

  constructor(private readonly maxRuns = 16) {}

  /** The run at `path`, parsed now or earlier if the file has not changed since. Throws what readRun throws. */
  get(path: string): Run {
    const st = statSync(path);
    const stamp = fileStamp(st);
    const hit = this.runs.get(path);
    this.runs.delete(path);
    if (hit?.stamp === stamp) {
      this.runs.set(path, hit); // most recently used last
      return hit.run;
    }
    const run = readRun(path);
    this.runs.set(path, { stamp, run });
    for (const oldest of this.runs.keys()) {
      if (this.runs.size <= this.maxRuns) break;
      this.runs.delete(oldest);
    }
    return run;
  }

  /** Whether a parse of `path` is kept (whatever its stamp). */
  has(path: string): boolean {
    return this.runs.has(path);
  }

  /**
   * The sha256 of `path` as a worker thread read it, if that parse is kept and the file still has `stamp`
   * (size:mtime): indexing then need not read the file again to hash it.
   */
  hashOf(path: string, stamp: string): string | undefined {
    const hit = this.runs.get(path);
    return hit?.stamp === stamp ? hit.hash : undefined;
  }

  /** Keeps a run parsed elsewhere (a worker thread), as read when its file had `stamp` (size:mtime) and `hash`. */
  put(path: string, stamp: string, run: Run, hash?: string): void {
    this.runs.delete(path);
    this.runs.set(path, { stamp, run, hash });
    for (const oldest of this.runs.keys()) {
      if (this.runs.size <= this.maxRuns) break;
      this.runs.delete(oldest);
    }
  }
}

/** The worker's one cache (the worker holds one database, so one set of runs). */
export const runCache = new RunCache();
