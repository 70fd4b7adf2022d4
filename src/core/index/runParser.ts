import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve as absolute } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Database } from 'sql.js';
import { DocArena, type ArenaParts } from '../formats/docArena';
import { readRun, Run } from '../formats/run';
import { fileStamp, isCurrent } from './fileState';
import type { RunCache } from './runCache';

/**
 * Parsing new run files on both cores: the engine reads the runs an index pass will need in worker threads of
 * this module (dist/run-parser.js), two at a time, and keeps them in its run cache, so a first diff of two new
 * 1 M-line runs does not parse them one after the other. A run that fails to parse here is left to the index
 * pass, which reads it again and reports the problem with its file and line.
 */
interface Parsed {
  tag: string;
  qids: string[];
  offsets: Int32Array;
  docIds: Int32Array;
  scores: Float64Array;
  docs: ArenaParts;
  stamp: string;
  /** sha256 of the file as read (what indexing records for it). */
  hash: string;
}

/** Run files (still there) whose size or mtime differ from what the index recorded: the ones the pass will parse. */
export function changedRunFiles(db: Database, paths: readonly string[]): string[] {
  return paths.filter((p) => !isCurrent(db, p) && existsSync(p));
}

/**
 * The run parser's threads (of `entry`, dist/run-parser.js). Each parses one file and ends, so no heap outlives
 * its parse; `ahead` of them are started before they are needed (a thread's start is ~20 ms of CPU, which a
 * first diff then does not wait for) and replaced a second after a batch, when the engine is idle again.
 */
export class RunParserThreads {
  private readonly ready = new Set<Worker>();
  private refill: NodeJS.Timeout | undefined;

  constructor(
    private readonly entry: string,
    private readonly ahead = 2,
  ) {}

  /** Starts threads until `ahead` of them wait for a file. */
  startAhead(): void {
    while (this.ready.size < this.ahead) {
      const w = this.spawn();
      w.unref(); // a waiting thread keeps no process alive
      const gone = () => this.ready.delete(w);
      w.once('exit', gone);
      w.once('error', gone);
      this.ready.add(w);
    }
  }

  /** Parses `paths`, `concurrency` at a time, into `cache`. Never throws: a file that fails is left to the caller. */
  async parse(paths: readonly string[], cache: RunCache, concurrency = 2): Promise<void> {
    clearTimeout(this.refill);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, paths.length) }, async () => {
        while (next < paths.length) {
          const path = paths[next++];
          const parsed = await this.inWorker(path);
          if (parsed) cache.put(path, parsed.stamp, new Run(parsed.tag, parsed.qids, parsed.offsets, parsed.docIds, parsed.scores, DocArena.fromParts(parsed.docs)), parsed.hash);
        }
      }),
    );
    this.refill = setTimeout(() => this.startAhead(), 1000).unref();
  }

  private spawn(): Worker {
    const workerData = { runParser: true };
    return this.entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(this.entry)});`, { eval: true, workerData })
      : new Worker(absolute(this.entry), { workerData, execArgv: [] });
  }

  private inWorker(path: string): Promise<Parsed | undefined> {
    const [waiting] = this.ready;
    this.ready.delete(waiting);
    const w = waiting ?? this.spawn();
    w.ref();
    return new Promise((resolve) => {
      let settled = false;
      const done = (p: Parsed | undefined) => {
        if (settled) return;
        settled = true;
        resolve(p);
        void w.terminate();
      };
      w.once('message', (m: Parsed | null) => done(m ?? undefined));
      w.once('error', () => done(undefined));
      w.once('exit', () => done(undefined));
      w.postMessage(path);
    });
  }
}

// The worker's side: given a file, hash and parse it (both off the engine's thread), then hand the arrays over
// (transferred, not copied).
if (!isMainThread && parentPort && (workerData as { runParser?: unknown } | undefined)?.runParser === true) {
  const port = parentPort;
  port.once('message', (path: string) => {
    try {
      const stamp = fileStamp(statSync(path));
      // The stamp is taken first: a file written after it gets a new stamp, so neither hash nor parse is used for it.
      const sha = createHash('sha256');
      const run = readRun(path, { onRead: (bytes) => sha.update(bytes) });
      const hash = sha.digest('hex');
      // The arena's bytes may live in Node's shared Buffer pool, which cannot be transferred: copy them out.
      const arena = (run.docs as DocArena).toParts();
      const docs = { ...arena, bytes: new Uint8Array(arena.bytes.subarray(0, arena.used)) };
      const parsed: Parsed = { tag: run.tag, qids: [...run.qids], offsets: run.offsets, docIds: run.docIds, scores: run.scores, docs, stamp, hash };
      const buffers = [parsed.offsets, parsed.docIds, parsed.scores, docs.bytes, docs.starts, docs.hashes].map((a) => a.buffer as ArrayBuffer);
      port.postMessage(parsed, [...new Set(buffers)]);
    } catch {
      port.postMessage(null);
    }
  });
}
