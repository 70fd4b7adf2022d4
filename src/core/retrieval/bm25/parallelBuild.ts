import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { parseCorpusLine } from '../../formats/beir';
import { MAX_LINE } from '../../formats/lines';
import type { Analyzer } from '../analysis/analyzer';
import { CorpusLineScanner } from './corpusLine';
import { IndexBuilder, fieldNames, flatText, type Bm25Index, type FieldsMode } from './index';

/**
 * Index build on two cores: a plain corpus.jsonl is cut at line starts into chunks, which this thread and a
 * worker thread (analysisWorker.ts, dist/bm25-worker.js) take in turn from a shared counter, each the next one
 * not taken, and analyse into term ids; this thread feeds every chunk, in file order, to one IndexBuilder,
 * mapping the worker's term ids into its own analyser's, and analyses a chunk itself only while the one it needs
 * next is not there yet (so the thread that also builds takes less, on any machine and load). The
 * index is the one a single-threaded build makes (same documents, terms in the same first-seen order). Anything
 * unusual (a bad line, a duplicate id, a byte-order mark, a line over MAX_LINE, the worker failing) gives up
 * (null): the caller then builds single-threaded, whose reader reports it by file and line as always.
 */

/** Term ids of a chunk's documents: document i has ids[i]; its fields' counts are counts[F*i ..], tokens in order. */
export interface AnalysedChunk {
  ids: string[];
  counts: Uint32Array;
  tokens: Int32Array;
}

/** A chunk of the corpus file: bytes [start, end), all whole lines. */
export interface Chunk {
  index: number;
  start: number;
  end: number;
}

export interface WorkerInput {
  path: string;
  mode: FieldsMode;
  chunks: Chunk[];
  /** [TAKEN]: chunks taken so far by either thread; [CONSUMED]: chunks the builder has added; [GO]: see hold. */
  shared: Int32Array;
  /** Tests: the worker says when it is ready, then waits for GO (so that both threads surely take chunks). */
  hold: boolean;
}

/** Loaded when a worker starts: a one-thread build (every corpus under 64 MiB) does without (~1 ms of a cold run). */
function workerThreads(): typeof import('node:worker_threads') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('node:worker_threads') as typeof import('node:worker_threads');
}

/** Indexes into WorkerInput.shared. */
export const TAKEN = 0;
export const CONSUMED = 1;
export const GO = 2;

export type WorkerMessage = { index: number; chunk: AnalysedChunk; terms: string[] } | { index: number; chunk: null } | { ready: true };

/** How far (in chunks) either thread may take chunks ahead of the builder: bounds the chunks waiting in memory. */
export const AHEAD = 3;

/** 16 MiB chunks: a few hundred for a 5M-document corpus, few enough to plan, small enough to bound memory. */
const CHUNK_BYTES = 16 << 20;

/** Cuts `size` bytes into chunks of about `chunkBytes` (4 at least, for balance) at line starts. */
export function planChunks(fd: number, size: number, chunkBytes: number): Chunk[] {
  const step = Math.max(1, Math.min(chunkBytes, Math.ceil(size / 4)));
  const starts = [0];
  for (let cut = step; cut < size; cut += step) {
    const at = lineStartFrom(fd, Math.max(cut, starts[starts.length - 1] + 1), size);
    if (at < size && at > starts[starts.length - 1]) starts.push(at);
  }
  return starts.map((start, index) => ({ index, start, end: index + 1 < starts.length ? starts[index + 1] : size }));
}

/** The first line start at or after `pos` (pos > 0), or `size`. */
function lineStartFrom(fd: number, pos: number, size: number): number {
  const probe = Buffer.allocUnsafe(64 << 10);
  for (let at = pos - 1; at < size; at += probe.length) {
    const n = readSync(fd, probe, 0, probe.length, at);
    const nl = probe.subarray(0, n).indexOf(10);
    if (nl !== -1) return at + nl + 1;
    if (n === 0) break;
  }
  return size;
}

/**
 * Reads and analyses chunks with one reused read buffer and token array, so a thread holds one chunk's bytes
 * and tokens however many chunks it reads (a dropped buffer is external memory that only a GC frees).
 */
export class ChunkAnalyser {
  private bytes = Buffer.alloc(0);
  private tokens = new Int32Array(1 << 16);
  private used = 0;
  private readonly counts: number[] = [];
  private readonly line = new CorpusLineScanner();

  constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly analyzer: Analyzer,
    private readonly mode: FieldsMode,
  ) {}

  /**
   * Parses and analyses chunk `c`'s lines as the single-threaded reader does (blank lines skipped, CRLF
   * allowed); null at the first line it would report (bad JSON or fields, or longer than MAX_LINE). The tokens
   * are a view that the next call overwrites, or with `copy` an array of their own (to transfer).
   */
  analyse(c: Chunk, copy: boolean): AnalysedChunk | null {
    const buf = this.read(c);
    const ids: string[] = [];
    this.used = 0;
    this.counts.length = 0;
    for (let start = 0; start < buf.length; ) {
      let nl = buf.indexOf(10, start);
      if (nl === -1) nl = buf.length;
      let end = nl;
      if (end > start && buf[end - 1] === 13) end--;
      if (end - start > MAX_LINE) return null;
      const line = this.line;
      if (line.scan(buf, start, end)) {
        ids.push(line.id);
        if (this.mode === 'flat') this.put(line.units, line.flatStart, line.textEnd);
        else {
          this.put(line.units, 0, line.titleEnd);
          this.put(line.units, line.textStart, line.textEnd);
        }
        start = nl + 1;
        continue;
      }
      let rec;
      try {
        rec = parseCorpusLine(this.path, buf, start, end, 0);
      } catch {
        return null;
      }
      start = nl + 1;
      if (!rec) continue;
      ids.push(rec.id);
      if (this.mode === 'flat') this.putText(flatText(rec.title, rec.text));
      else {
        this.putText(rec.title);
        this.putText(rec.text);
      }
    }
    const tokens = copy ? this.tokens.slice(0, this.used) : this.tokens.subarray(0, this.used);
    return { ids, counts: Uint32Array.from(this.counts), tokens };
  }

  private putText(text: string): void {
    this.keep(this.analyzer.termIds(text));
  }

  private put(u: Uint16Array, from: number, to: number): void {
    this.keep(this.analyzer.termIdsOf(u, from, to));
  }

  /** Keeps the `n` term ids just analysed. */
  private keep(n: number): void {
    if (this.used + n > this.tokens.length) {
      const next = new Int32Array(Math.max(this.used + n, 2 * this.tokens.length));
      next.set(this.tokens.subarray(0, this.used));
      this.tokens = next;
    }
    this.tokens.set(this.analyzer.ids.subarray(0, n), this.used);
    this.used += n;
    this.counts.push(n);
  }

  private read(c: Chunk): Buffer {
    const size = c.end - c.start;
    if (this.bytes.length < size) this.bytes = Buffer.allocUnsafe(size);
    const buf = this.bytes.subarray(0, size);
    for (let at = 0; at < size; ) {
      const n = readSync(this.fd, buf, at, size - at, c.start + at);
      if (n === 0) throw new Error('corpus file shrank while it was read');
      at += n;
    }
    return buf;
  }
}

export interface ParallelSetup {
  /** The worker's entry file: dist/bm25-worker.js, or analysisWorker.ts under tsx (tests). */
  entry: string;
  /** Chunk size (a smaller corpus is cut in four). */
  chunkBytes?: number;
  /**
   * Tests: this thread analyses the first chunk and the worker the second, once it is ready; then both take
   * chunks (left alone, a worker that starts slowly may find none left: same index, but the merge untested).
   */
  hold?: boolean;
}

/**
 * Plans the chunks of a plain corpus.jsonl and starts the worker at once (so it can start up while
 * the caller still reads queries); null when the file is not one to share (a byte-order mark, one chunk).
 * `build()` then makes the index; `close()` stops the worker when no build follows.
 */
export function startParallelBuild(path: string, mode: FieldsMode, setup: ParallelSetup): ParallelBuild | null {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(3);
    readSync(fd, head, 0, 3, 0);
    // The reader drops a BOM and says so: left to it.
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) throw new Declined();
    const chunks = planChunks(fd, statSync(path).size, setup.chunkBytes ?? CHUNK_BYTES);
    if (chunks.length < 2) throw new Declined();
    return new ParallelBuild(path, mode, fd, chunks, setup.entry, setup.hold ?? false);
  } catch (e) {
    closeSync(fd);
    if (e instanceof Declined) return null;
    throw e;
  }
}

class Declined extends Error {}

export class ParallelBuild {
  private readonly worker: Worker;
  private readonly inbox: Inbox;
  private readonly shared = new Int32Array(new SharedArrayBuffer(12));
  private closed = false;
  /** Chunks analysed by this thread and by the worker (for tests). */
  readonly analysed = { here: 0, worker: 0 };

  constructor(
    private readonly path: string,
    private readonly mode: FieldsMode,
    private readonly fd: number,
    private readonly chunks: Chunk[],
    entry: string,
    private readonly hold: boolean,
  ) {
    const input: WorkerInput = { path, mode, chunks, shared: this.shared, hold };
    this.worker = entry.endsWith('.ts')
      ? new (workerThreads().Worker)(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: input })
      : new (workerThreads().Worker)(entry, { workerData: input });
    // A build never started (the run failed before it) must not keep the process alive.
    this.worker.unref();
    this.inbox = new Inbox(this.worker);
  }

  /** The index, or null when it gave up (see above); closes. */
  async build(analyzer: Analyzer, { signal, onProgress }: { signal?: AbortSignal; onProgress?: (docs: number) => void } = {}): Promise<Bm25Index | null> {
    const { path, mode, fd, shared, chunks } = this;
    try {
      const builder = new IndexBuilder(analyzer, mode);
      const fields = fieldNames(mode).length;
      const seen = new Set<string>();
      // worker term id -> this analyser's term id
      let termMap = new Int32Array(1024);
      let mapped = 0;
      const own = new ChunkAnalyser(path, fd, analyzer, mode);
      /** Chunks this thread analysed ahead of the builder (null: could not). */
      const mine = new Map<number, AnalysedChunk | null>();
      const take = (next: number, k: number) => {
        mine.set(next, own.analyse(chunks[next], next !== k));
        this.analysed.here++;
      };
      if (this.hold) {
        // This thread takes chunk 0 and keeps chunk 1 for the worker.
        Atomics.store(shared, TAKEN, 2);
        take(0, -1);
        await this.inbox.ready;
        Atomics.store(shared, GO, 1);
        Atomics.notify(shared, GO);
      }
      for (let k = 0; k < chunks.length; k++) {
        signal?.throwIfAborted();
        // While chunk k is not here, this thread takes the next untaken chunk, k or k + 1 (not further: the
        // worker may take chunks up to AHEAD ahead of the builder, and must always find room in that window).
        while (!mine.has(k) && !this.inbox.has(k)) {
          const next = Atomics.load(shared, TAKEN);
          if (next >= chunks.length || next - k > AHEAD - 2) break;
          if (Atomics.compareExchange(shared, TAKEN, next, next + 1) === next) take(next, k);
        }
        let chunk: AnalysedChunk | null;
        if (mine.has(k)) {
          chunk = mine.get(k)!;
          mine.delete(k);
        } else {
          const m = await this.inbox.take(k);
          signal?.throwIfAborted();
          chunk = m?.chunk ?? null;
          this.analysed.worker++;
          if (m?.chunk) {
            if (mapped + m.terms.length > termMap.length) {
              const next = new Int32Array(Math.max(mapped + m.terms.length, 2 * termMap.length));
              next.set(termMap.subarray(0, mapped));
              termMap = next;
            }
            for (const t of m.terms) termMap[mapped++] = analyzer.internTerm(t);
            const tokens = m.chunk.tokens;
            for (let i = 0; i < tokens.length; i++) tokens[i] = termMap[tokens[i]];
          }
        }
        if (!chunk) return null;
        let from = 0;
        for (let d = 0; d < chunk.ids.length; d++) {
          const id = chunk.ids[d];
          if (seen.has(id)) return null;
          seen.add(id);
          builder.addAnalysed(id, chunk.tokens, from, chunk.counts, d * fields);
          for (let f = 0; f < fields; f++) from += chunk.counts[d * fields + f];
        }
        Atomics.store(shared, CONSUMED, k + 1);
        Atomics.notify(shared, CONSUMED);
        onProgress?.(builder.size);
      }
      return builder.finish();
    } finally {
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    void this.worker.terminate();
  }
}

/** The worker's messages by chunk index; a worker that errs or exits early answers null for what is missing. */
class Inbox {
  private readonly got = new Map<number, Exclude<WorkerMessage, { ready: true }>>();
  /** Resolves when the worker says it is ready (hold), or has stopped. */
  readonly ready: Promise<void>;
  private isReady!: () => void;
  private wanted: { index: number; resolve: (m: Exclude<WorkerMessage, { ready: true }> | null) => void } | null = null;
  private done = false;

  constructor(worker: Worker) {
    this.ready = new Promise((resolve) => (this.isReady = resolve));
    worker.on('message', (m: WorkerMessage) => {
      if ('ready' in m) return this.isReady();
      this.got.set(m.index, m);
      if (this.wanted?.index === m.index) this.answer();
    });
    const end = () => {
      this.done = true;
      this.isReady();
      if (this.wanted) this.answer();
    };
    worker.on('error', end);
    worker.on('exit', end);
  }

  /** Whether chunk `index` has arrived (or will never: the worker has stopped). */
  has(index: number): boolean {
    return this.got.has(index) || this.done;
  }

  take(index: number): Promise<Exclude<WorkerMessage, { ready: true }> | null> {
    return new Promise((resolve) => {
      this.wanted = { index, resolve };
      if (this.got.has(index) || this.done) this.answer();
    });
  }

  private answer(): void {
    const { index, resolve } = this.wanted!;
    this.wanted = null;
    const m = this.got.get(index) ?? null;
    this.got.delete(index);
    resolve(m);
  }
}
