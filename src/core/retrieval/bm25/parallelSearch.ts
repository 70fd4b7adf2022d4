import type { MessagePort, Worker } from 'node:worker_threads';
import type { Bm25Index, ScoringField, ScoringIndex } from './index';
import { Searcher, scoringIndex, type Bm25Params, type Hits, type ResolvedQuery } from './search';

/**
 * Search on several threads over one index: the postings, norms and id ranks are in SharedArrayBuffers (the
 * build allocates them there: index.ts), so each worker thread (searchWorker.ts, dist/bm25-search.js) scores
 * over the same memory with a Searcher of its own. Every thread, this one included, takes the next query from
 * a shared counter; the workers send back each query's hits, and this thread hands the hits on in query order,
 * so the run is the same whatever the number of threads. The workers start when the pool is made (before the
 * index is built, so that their start-up overlaps the build) and wait for the index.
 */

/** Indexes into the pool's shared counters. */
export const NEXT = 0;
export const POSTED = 1;

/** What a worker gets once the index is there. */
export interface SearchJob {
  index: ScoringIndex;
  params: Bm25Params;
  queries: ResolvedQuery[];
  k: number;
  /** Queries a worker takes at a time and answers in one message (fewer messages for short queries). */
  batch: number;
  /** [NEXT]: next query to take; [POSTED]: results posted (a worker adds one after each, and wakes this thread). */
  shared: Int32Array;
}

/** Hits of the queries [first, first + lengths.length), one after the other in docs and scores. */
export type SearchResult = { first: number; lengths: Uint32Array; docs: Uint32Array; scores: Float32Array };

/** Loaded when a pool starts: a one-thread run does without (~1 ms of a cold run). */
function workerThreads(): typeof import('node:worker_threads') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:worker_threads') as typeof import('node:worker_threads');
}

/** `a` itself when it is in a SharedArrayBuffer already (a built index), else a copy in one (a cached index). */
function shared<T extends Uint8Array | Uint16Array | Uint32Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const copy = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
  copy.set(a);
  return copy;
}

/** The index's scoring arrays, all in SharedArrayBuffers. */
export function sharedScoringIndex(index: Bm25Index): ScoringIndex {
  const s = scoringIndex(index);
  const field = (fi: ScoringField): ScoringField => ({
    offsets: shared(fi.offsets),
    docs: shared(fi.docs),
    tfs: shared(fi.tfs),
    norms: shared(fi.norms),
    docCount: fi.docCount,
    sumTotalTermFreq: fi.sumTotalTermFreq,
  });
  return { numDocs: s.numDocs, idRank: shared(s.idRank), fieldIndexes: s.fieldIndexes.map(field) };
}

interface PoolWorker {
  worker: Worker;
  port: MessagePort;
  failed: boolean;
}

/** What a worker says on its parent port once it listens for jobs. */
export const READY = 'ready';

/** How long this thread waits for a worker's result before it yields to the event loop (cancellation, exits). */
const WAIT_MS = 20;

export class SearchPool {
  private readonly workers: PoolWorker[] = [];
  private closed = false;
  /** Queries searched by this thread and by the workers, in the last search (for tests and benchmarks). */
  readonly searched = { here: 0, workers: 0 };
  /** Resolves when every worker listens for jobs, or has failed (tests and benchmarks wait for it). */
  readonly ready: Promise<void>;

  /**
   * Starts `threads - 1` workers from `entry` (the search worker's bundle, or its source under tsx in tests); the
   * owner closes the pool, used or not. `hold` (tests): this thread takes no query before a worker has sent a
   * result (left alone, workers that start slowly may find none left: same hits, but the merge untested).
   */
  constructor(
    readonly threads: number,
    entry: string,
    private readonly hold = false,
  ) {
    const { Worker, MessageChannel } = workerThreads();
    for (let i = 1; i < threads; i++) {
      const { port1, port2 } = new MessageChannel();
      const worker = entry.endsWith('.ts')
        ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: { port: port2 }, transferList: [port2] })
        : new Worker(entry, { workerData: { port: port2 }, transferList: [port2] });
      const w: PoolWorker = { worker, port: port1, failed: false };
      worker.on('error', () => (w.failed = true));
      worker.on('exit', () => (w.failed = true));
      this.workers.push(w);
    }
    this.ready = Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.worker.on('message', (m) => m === READY && resolve());
            w.worker.on('exit', () => resolve());
          }),
      ),
    ).then(() => undefined);
  }

  /**
   * Searches every query (top `k`) on all the pool's threads and calls `onHits` for each, in query order, on this
   * thread. `onHits` may return a promise (to yield or to notice cancellation); it is awaited.
   */
  async search(index: Bm25Index, params: Bm25Params, queries: ResolvedQuery[], k: number, onHits: (query: number, hits: Hits) => void | Promise<void>): Promise<void> {
    const searcher = new Searcher(index, params);
    const shared = new Int32Array(new SharedArrayBuffer(8));
    const live = this.workers.filter((w) => !w.failed);
    if (live.length > 0) {
      // Batches small enough that every thread gets many (the threads take them as they are free).
      const batch = Math.max(1, Math.min(8, Math.floor(queries.length / (16 * this.threads))));
      const job: SearchJob = { index: sharedScoringIndex(index), params, queries, k, batch, shared };
      for (const w of live) w.port.postMessage(job);
    }
    const { receiveMessageOnPort } = workerThreads();
    const results = new Map<number, Hits>();
    this.searched.here = this.searched.workers = 0;
    let posted = 0;
    let lastYield = performance.now();
    for (let next = 0; next < queries.length; ) {
      const hits = results.get(next);
      if (hits === undefined) {
        // This thread's share: the next query nobody has taken, while the one due is still being searched.
        const held = this.hold && this.searched.workers === 0 && !this.workers.every((w) => w.failed);
        const mine = held ? queries.length : Atomics.add(shared, NEXT, 1);
        if (mine < queries.length) {
          results.set(mine, searcher.search(queries[mine], k));
          this.searched.here++;
        } else if (this.workers.some((w) => w.failed)) {
          // Every query is taken, and a worker has failed (the queries it took never come): the due one is
          // searched here (should its result come after all, it is the same, and dropped).
          results.set(next, searcher.search(queries[next], k));
          this.searched.here++;
        } else {
          // Every query is taken: wait for a worker's result.
          Atomics.wait(shared, POSTED, posted, WAIT_MS);
        }
        posted = Atomics.load(shared, POSTED);
        for (const w of live) {
          for (let m = receiveMessageOnPort(w.port); m; m = receiveMessageOnPort(w.port)) {
            const r = m.message as SearchResult;
            for (let i = 0, at = 0; i < r.lengths.length; at += r.lengths[i++]) {
              this.searched.workers++;
              const end = at + r.lengths[i];
              if (!results.has(r.first + i)) results.set(r.first + i, { docs: r.docs.subarray(at, end), scores: r.scores.subarray(at, end) });
            }
          }
        }
        if (performance.now() - lastYield > WAIT_MS) {
          // Lets worker exits and cancellation be heard.
          await new Promise<void>((resolve) => setImmediate(resolve));
          lastYield = performance.now();
        }
        continue;
      }
      results.delete(next);
      await onHits(next++, hits);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.workers) {
      w.port.close();
      void w.worker.terminate();
    }
  }
}
