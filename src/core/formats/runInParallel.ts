import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve as absolute } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { InputError, type InputErrorInit } from './errors';
import { readRun, RunParser, type LinePart, type ReadRunOptions, type Run } from './run';
import { sniffEncoding } from './lines';

/**
 * Reading one large run file on both cores: a worker thread (this module, bundled as dist/run-reader.js) parses
 * the file's second part while this thread does other work (e.g. reads the qrels) and then parses the first
 * part; both parts' lines are then placed query by query straight into the run and ranked once (ranking in
 * the worker would copy its part once more), so the run is exactly what readRun() gives, whatever the order
 * of the file's lines. Errors are the ones readRun() would throw first: a bad line of the
 * first part, else one of the second part (its line number counted from the file's start), else what only
 * the whole run shows (a duplicate, no result lines).
 */

/** Below this size one thread reads the file sooner than two (a worker takes ~30 ms to start). */
export const PARALLEL_MIN_BYTES = 16 << 20;

interface SliceRequest {
  runSlice: { path: string; start: number; end: number; options: ReadRunOptions };
}

type SliceReply = { part: LinePart } | { error: InputErrorInit } | { crash: string };

export interface ParallelRead {
  /** Parses the first part here, waits for the second, and ranks the run (as readRun). */
  finish(): Promise<Run>;
  /** Stops the worker when the run is no longer wanted (e.g. the qrels were refused). */
  cancel(): void;
}

export interface SplitOptions {
  /** Files smaller than this are read on one thread (default PARALLEL_MIN_BYTES). */
  minBytes?: number;
  /** Where to cut, as a share of the file's bytes (default: balance the two threads' work, see `busyFirst`). */
  headShare?: number;
  /**
   * What this thread does before finish(), as the number of run-file bytes that take as long to read: the
   * first part is made smaller by that much so that both threads end together.
   */
  busyFirst?: number;
}

/**
 * Starts reading `path`: a plain file of at least `minBytes` gets a worker (from `entry`: dist/run-reader.js,
 * or this .ts file under tsx) for its part after `headShare` of its bytes; anything else (gzip, standard
 * input, a small file, no line break past the split point) is read by readRun() in finish().
 */
export function startRunRead(path: string, options: ReadRunOptions, entry: string, split: SplitOptions = {}): ParallelRead {
  const sequential = { finish: async () => readRun(path, options), cancel: () => undefined };
  if (path === '-' || options.onBadLine) return sequential;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return sequential; // readRun reports the unreadable file
  }
  if (size < (split.minBytes ?? PARALLEL_MIN_BYTES)) return sequential;
  const headShare = split.headShare ?? Math.max(0.1, (size - (split.busyFirst ?? 0)) / 2 / size);
  const mid = lineStartAfter(path, Math.floor(size * headShare), size);
  if (mid === undefined) return sequential;
  const tail = inWorker(entry, { runSlice: { path, start: mid, end: size, options } });
  // Its columns now, while this thread's heap is small: allocating that much memory makes V8 collect garbage
  // (a full collection), which later, with the qrels in the heap, costs more (bench:eval, --trace-gc: main
  // thread's full collections ~70 -> ~25 ms).
  const head = new RunParser(path, options, size);
  return {
    cancel: tail.stop,
    async finish() {
      let lines: number;
      try {
        lines = head.parse({ start: 0, end: mid });
      } catch (e) {
        tail.stop();
        throw e;
      }
      const reply = await tail.reply;
      // A worker that could not run (its bundle missing, out of memory): the file is read again here.
      if ('crash' in reply) return readRun(path, options);
      if ('error' in reply) {
        const e = reply.error;
        throw new InputError({ ...e, line: e.line === undefined ? undefined : e.line + lines });
      }
      return head.finishWith(reply.part);
    },
  };
}

/** The offset just past the first line break at or after `from` (undefined if none before `size`); never in gzip or UTF-16, which only decode from their start. */
function lineStartAfter(path: string, from: number, size: number): number | undefined {
  const fd = openSync(path, 'r');
  try {
    const magic = Buffer.alloc(4);
    if (sniffEncoding(magic.subarray(0, readSync(fd, magic, 0, 4, 0))) !== 'plain') return undefined;
    const buf = Buffer.allocUnsafe(1 << 16);
    for (let at = from; at < size; ) {
      const n = readSync(fd, buf, 0, buf.length, at);
      if (n === 0) return undefined;
      const nl = buf.indexOf(10);
      if (nl >= 0 && nl < n) return at + nl + 1 < size ? at + nl + 1 : undefined;
      at += n;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function inWorker(entry: string, request: SliceRequest): { reply: Promise<SliceReply>; stop(): void } {
  const w = entry.endsWith('.ts')
    ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: request })
    : new Worker(absolute(entry), { workerData: request, execArgv: [] });
  const stop = () => void w.terminate();
  const reply = new Promise<SliceReply>((resolve) => {
    let settled = false;
    const done = (r: SliceReply) => {
      if (settled) return;
      settled = true;
      resolve(r);
      stop();
    };
    w.once('message', (m: SliceReply) => done(m));
    w.once('error', (e) => done({ crash: e.message }));
    w.once('exit', (code) => done({ crash: `exited with code ${code}` }));
  });
  return { reply, stop };
}

// The worker's side: parse the slice, hand the columns over (transferred, not copied).
const request = isMainThread ? undefined : (workerData as Partial<SliceRequest> | undefined)?.runSlice;
if (request && parentPort) {
  const port = parentPort;
  try {
    const parser = new RunParser(request.path, request.options, request.end - request.start);
    parser.parse({ start: request.start, end: request.end });
    const part = parser.linePart();
    // Large Buffers own their memory, but a pooled one would share it: copy it out then.
    const bytes = part.docs.bytes;
    if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) part.docs.bytes = new Uint8Array(bytes);
    const buffers = [part.lines.runs, part.lines.scores, part.docs.bytes, part.docs.starts, part.docs.hashes].map((a) => a.buffer as ArrayBuffer);
    port.postMessage({ part } satisfies SliceReply, [...new Set(buffers)]);
  } catch (e) {
    if (e instanceof InputError) {
      const { code, message, file, line, text, hint } = e;
      port.postMessage({ error: { code, message, file, line, text, hint } } satisfies SliceReply);
    } else port.postMessage({ crash: (e as Error).message } satisfies SliceReply);
  }
}
