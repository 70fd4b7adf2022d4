import type { Judgement } from './annotations';
import type { EvaluationSettings } from './metrics';
import type { Problem } from './problems';
import type { DatasetNode, DocumentText, IndexSummary } from './model';
import type { QrelsLineInfo, UserJudgement } from './qrelsInfo';

/**
 * The typed request/response protocol between the extension host and the store worker. Every request
 * carries an id; the worker answers each with exactly one `result`, and may send `progress` for it before.
 * PROTOCOL_VERSION changes whenever a message's shape does.
 */
export const PROTOCOL_VERSION = 3;

export interface StoreRequests {
  /** Discover and (incrementally) index datasets and runs under the workspace folders. */
  index: { args: { roots: string[]; runsFolder: string } & EvaluationSettings; result: IndexSummary };
  /** Datasets -> splits -> runs with their mean metrics, for the tree. */
  tree: { args: Record<string, never>; result: DatasetNode[] };
  /** Problems found in the files at the last indexing. */
  problems: { args: Record<string, never>; result: Problem[] };
  /** Records a judgement durably; resolves only once it is on disk. */
  judge: {
    args: { datasetDir: string; split: string } & Judgement;
    /** `file`: the annotations file as this append left it (size, mtime), so watchers can tell it from others' writes. */
    result: { superseded: number | null; file: { path: string; size: number; mtimeMs: number } };
  };
  /** A document's text, read from corpus.jsonl by its stored offset. */
  document: { args: { datasetDir: string; docId: string }; result: DocumentText | null };
  /** Writes a split's judgements as TREC or BEIR qrels, alone or merged over the original qrels. */
  exportJudgements: {
    args: { datasetDir: string; split: string; format: 'trec' | 'beir'; merge: boolean; out: string };
    result: { lines: number };
  };
  /** Checks that `source` is a valid run, then copies it to `targetDir` (created if needed). */
  importRun: { args: { source: string; targetDir: string }; result: { path: string } };
  /** Whether `path` is as the store last read or wrote it (size and mtime), so a watcher event for it needs no re-index. */
  isCurrent: { args: { path: string }; result: boolean };
  /** A qrels line's pair: original and user's grade (with when), query text, document title, grade scale. */
  qrelsLineInfo: { args: { datasetDir: string; split: string; queryId: string; docId: string }; result: QrelsLineInfo };
  /** The user's judgements of a split, for marking overridden lines in an open qrels file. */
  splitJudgements: { args: { datasetDir: string; split: string }; result: UserJudgement[] };
  /** Saves the database snapshot now (it is otherwise saved lazily). */
  flush: { args: Record<string, never>; result: { bytes: number } };
}

export type RequestKind = keyof StoreRequests;

export type HostMessage = {
  [K in RequestKind]: { id: number; kind: K; args: StoreRequests[K]['args'] };
}[RequestKind];

export type WorkerMessage =
  | { kind: 'ready'; protocol: number; discarded?: string }
  | { kind: 'progress'; id: number; message: string; fraction?: number }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: { message: string; problem?: Problem } }
  /** Judgements or metrics changed outside an index request (e.g. metrics recomputed after a judgement). */
  | { kind: 'changed' };

/** What the worker is started with (workerData). */
export interface WorkerConfig {
  /** Where the database snapshot lives (workspace storage); undefined keeps it in memory only. */
  dbPath?: string;
  /** Debounce of snapshot saves, in ms. */
  snapshotDelayMs: number;
}
