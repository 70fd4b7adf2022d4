import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parseCorpusLine } from '../../formats/beir';
import { MAX_LINE } from '../../formats/lines';
import type { Analyzer } from '../analysis/analyzer';
import { IndexBuilder, fieldNames, flatText, type Bm25Index, type FieldsMode } from './index';

/**
 * Index build on two cores: a plain corpus.jsonl is cut at line starts into chunks; a worker thread
 * (analysisWorker.ts, dist/bm25-worker.js) analyses its chunks into term ids while this thread analyses the
 * others, and this thread feeds every chunk, in file order, to one IndexBuilder, mapping the worker's term ids
 * into its own analyser's. The index is the one a single-threaded build makes (same documents, terms in the same
 * first-seen order). Anything unusual (a bad line, a duplicate id, a byte-order mark, a line over MAX_LINE, the
 * worker failing) gives up (null): the caller then builds single-threaded, whose reader reports it by file and
 * line as always.
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
  /** The chunks the worker analyses, in file order. */
  chunks: Chunk[];
  /** [0]: chunks consumed so far by the builder; the worker keeps at most AHEAD chunks beyond it. */
  consumed: Int32Array;
}

export type WorkerMessage = { index: number; chunk: AnalysedChunk; terms: string[] } | { index: number; chunk: null };

/** How far (in chunks) the worker may run ahead of the builder: bounds the analysed chunks waiting in memory. */
export const AHEAD = 3;

/** 16 MiB chunks: a few hundred for a 5M-document corpus, few enough to plan, small enough to bound memory. */
const CHUNK_BYTES = 16 << 20;
/** Share of a corpus cut in two that this thread analyses: it also builds the index from both halves. */
const OWN_SHARE = 0.5;

/**
 * Cuts `size` bytes into chunks at line starts. Under 2 chunks' worth: two chunks, this thread's first (it
 * starts analysing while the worker starts up). Otherwise chunks of about `chunkBytes`, this thread taking two
 * of every five (it also builds).
 */
export function planChunks(fd: number, size: number, chunkBytes: number): { own: Chunk[]; worker: Chunk[] } {
  const cuts = size < 2 * chunkBytes ? [Math.floor(size * OWN_SHARE)] : Array.from({ length: Math.ceil(size / chunkBytes) - 1 }, (_, i) => (i + 1) * chunkBytes);
  const starts = [0];
  for (const cut of cuts) {
    const at = lineStartFrom(fd, Math.max(cut, starts[starts.length - 1] + 1), size);
    if (at < size && at > starts[starts.length - 1]) starts.push(at);
  }
  const chunks = starts.map((start, index) => ({ index, start, end: index + 1 < starts.length ? starts[index + 1] : size }));
  // Of every five chunks this thread analyses the first and the fourth: with its share of building the index
  // (~1/5 of analysing, measured at 200k documents) both threads are then about as busy.
  const ownsIt = (c: Chunk) => (starts.length <= 2 ? c.index === 0 : c.index % 5 === 0 || c.index % 5 === 3);
  return { own: chunks.filter(ownsIt), worker: chunks.filter((c) => !ownsIt(c)) };
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
      let rec;
      try {
        rec = parseCorpusLine(this.path, buf, start, end, 0);
      } catch {
        return null;
      }
      start = nl + 1;
      if (!rec) continue;
      ids.push(rec.id);
      if (this.mode === 'flat') this.put(flatText(rec.title, rec.text));
      else {
        this.put(rec.title);
        this.put(rec.text);
      }
    }
    const tokens = copy ? this.tokens.slice(0, this.used) : this.tokens.subarray(0, this.used);
    return { ids, counts: Uint32Array.from(this.counts), tokens };
  }

  private put(text: string): void {
    const n = this.analyzer.termIds(text);
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
  /** Chunk size for large corpora; a smaller corpus is cut in two. */
  chunkBytes?: number;
}

/**
 * Plans the chunks of a plain corpus.jsonl and starts the worker on its share at once (so it can start up while
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
    const { own, worker } = planChunks(fd, statSync(path).size, setup.chunkBytes ?? CHUNK_BYTES);
    if (worker.length === 0) throw new Declined();
    return new ParallelBuild(path, mode, fd, own, worker, setup.entry);
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
  private readonly consumed = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly mode: FieldsMode,
    private readonly fd: number,
    private readonly own: Chunk[],
    private readonly theirs: Chunk[],
    entry: string,
  ) {
    const input: WorkerInput = { path, mode, chunks: theirs, consumed: this.consumed };
    this.worker = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: input })
      : new Worker(entry, { workerData: input });
    // A build never started (the run failed before it) must not keep the process alive.
    this.worker.unref();
    this.inbox = new Inbox(this.worker);
  }

  /** The index, or null when it gave up (see above); closes. */
  async build(analyzer: Analyzer, { signal, onProgress }: { signal?: AbortSignal; onProgress?: (docs: number) => void } = {}): Promise<Bm25Index | null> {
    const { path, mode, fd, consumed } = this;
    try {
      const builder = new IndexBuilder(analyzer, mode);
      const fields = fieldNames(mode).length;
      const seen = new Set<string>();
      // worker term id -> this analyser's term id
      let termMap = new Int32Array(1024);
      let mapped = 0;
      const mine = new Set(this.own.map((c) => c.index));
      const own = new ChunkAnalyser(path, fd, analyzer, mode);
      const chunks = [...this.own, ...this.theirs].sort((a, b) => a.index - b.index);
      for (const c of chunks) {
        signal?.throwIfAborted();
        let chunk: AnalysedChunk | null;
        if (mine.has(c.index)) chunk = own.analyse(c, false);
        else {
          const m = await this.inbox.take(c.index);
          signal?.throwIfAborted();
          chunk = m?.chunk ?? null;
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
        Atomics.store(consumed, 0, c.index + 1);
        Atomics.notify(consumed, 0);
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
  private readonly got = new Map<number, WorkerMessage>();
  private wanted: { index: number; resolve: (m: WorkerMessage | null) => void } | null = null;
  private done = false;

  constructor(worker: Worker) {
    worker.on('message', (m: WorkerMessage) => {
      this.got.set(m.index, m);
      if (this.wanted?.index === m.index) this.answer();
    });
    const end = () => {
      this.done = true;
      if (this.wanted) this.answer();
    };
    worker.on('error', end);
    worker.on('exit', end);
  }

  take(index: number): Promise<WorkerMessage | null> {
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
