import type { InputErrorCode } from '../core/formats/errors';
import type { Bm25RunRequest, Bm25RunResult, RunProgress } from '../core/retrieval/bm25/run';
import type { NeuralJob, NeuralProgress, NeuralResult } from '../core/retrieval/neuralJob';

/**
 * Messages between the parent (extension host or CLI) and the runner child process (dist/runner.js), over
 * Node's IPC channel. Every message carries the protocol version `v` and, except `ready`, the id of the run
 * it concerns. One child runs one job and then exits.
 *
 *   parent                                  child
 *     fork ──────────────────────────────▶  ready
 *     run {id, request}  ────────────────▶
 *                        ◀────────────────  progress {id, progress}*   (documents indexed, queries done; with
 *                                                                      a label for people: "building the index")
 *                        ◀────────────────  warning {id, text}*        (a bad corpus/queries line skipped, ...)
 *                        ◀────────────────  alive {id}, every HEARTBEAT_MS while the job runs
 *     cancel {id}        ────────────────▶                              (optional, any time)
 *                        ◀────────────────  result | error | cancelled  (exactly one), then the child exits
 *
 * A parent that hears nothing for a long time (a stopped or hung child) ends the child rather than wait forever.
 * A request is a BM25 run, or a neural/fusion job ({ job: 'dense' | 'rerank' | 'hybrid' | 'fuse', request }).
 */
export const PROTOCOL_VERSION = 1;

/** How often a working child says it is alive. */
export const HEARTBEAT_MS = 1000;

/** Progress as the child reports it: the job's own counts, and the stage's name for people (core/progress). */
export type LabelledProgress = (RunProgress | NeuralProgress) & { label?: string; unit?: string };

export type ParentMessage =
  | { v: typeof PROTOCOL_VERSION; kind: 'run'; id: string; request: Bm25RunRequest | NeuralJob }
  | { v: typeof PROTOCOL_VERSION; kind: 'cancel'; id: string };

export type ChildMessage =
  | { v: typeof PROTOCOL_VERSION; kind: 'ready'; pid: number }
  | { v: typeof PROTOCOL_VERSION; kind: 'progress'; id: string; progress: LabelledProgress }
  | { v: typeof PROTOCOL_VERSION; kind: 'warning'; id: string; text: string }
  | { v: typeof PROTOCOL_VERSION; kind: 'alive'; id: string }
  | { v: typeof PROTOCOL_VERSION; kind: 'result'; id: string; result: Bm25RunResult | NeuralResult }
  | { v: typeof PROTOCOL_VERSION; kind: 'cancelled'; id: string }
  | { v: typeof PROTOCOL_VERSION; kind: 'error'; id: string; error: ErrorPayload };

/** An error as it crosses the process boundary: bad input keeps its file, line, quoted text and hint. */
export type ErrorPayload =
  | { kind: 'input'; code: InputErrorCode; message: string; file?: string; line?: number; text?: string; hint?: string }
  | { kind: 'usage'; message: string }
  | { kind: 'internal'; message: string; stack?: string };

/** Whether `m` has this protocol's envelope (version and kind); the sender is trusted for the rest. */
export function isProtocolMessage(m: unknown): boolean {
  return typeof m === 'object' && m !== null && (m as { v?: unknown }).v === PROTOCOL_VERSION && typeof (m as { kind?: unknown }).kind === 'string';
}
