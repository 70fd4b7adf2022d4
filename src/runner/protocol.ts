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
 *                        ◀────────────────  progress {id, progress}*   (documents indexed, queries done)
 *     cancel {id}        ────────────────▶                              (optional, any time)
 *                        ◀────────────────  result | error | cancelled  (exactly one), then the child exits
 *
 * A request is a BM25 run, or a neural/fusion job ({ job: 'dense' | 'rerank' | 'hybrid' | 'fuse', request }).
 */
export const PROTOCOL_VERSION = 1;

export type ParentMessage =
  | { v: typeof PROTOCOL_VERSION; kind: 'run'; id: string; request: Bm25RunRequest | NeuralJob }
  | { v: typeof PROTOCOL_VERSION; kind: 'cancel'; id: string };

export type ChildMessage =
  | { v: typeof PROTOCOL_VERSION; kind: 'ready'; pid: number }
  | { v: typeof PROTOCOL_VERSION; kind: 'progress'; id: string; progress: RunProgress | NeuralProgress }
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
