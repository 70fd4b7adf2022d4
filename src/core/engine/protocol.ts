import type { Judgement } from '../judgements/annotations';
import type { QueryEdit, WhatIfResult } from '../retrieval/bm25/whatIf';
import type { Explanation } from '../retrieval/explain';
import type { PairExplanation } from './explainRequests';
import type { EvaluationSettings } from './settings';
import type { Problem } from '../formats/problems';
import type { DatasetNode, DocumentText, IndexSummary } from '../index/nodes';
import type { QrelsLineInfo, UserJudgement } from '../index/qrelsInfo';
import type { DiffModel, QueryDeltas, QueryDetail, QueueOrder, ResultsModel, RunRef, ViewEvents, CompareMode, CorrectionName } from '../../protocol/webview';
import type { PairState } from '../split/judging';

export type { PairState };

/** An open split as the engine describes it to the host. */
export interface SplitInfo {
  /** `${datasetDir}\t${split}`: how every later request names it. */
  key: string;
  datasetDir: string;
  datasetName: string;
  split: string;
  /** The split's runs, as the Datasets tree lists them (same discovery, same labels), plus runs added by name. */
  runs: RunRef[];
  /** Run files given that could not be used, with why. */
  skipped: { file: string; reason: string }[];
  /** The dataset's grade scale (non-negative grades of its qrels, 0 included). */
  grades: number[];
  /** The user's judgements in effect. */
  judgements: number;
  /** Bumped by every change of the split's judgements. */
  version: number;
}

/**
 * The typed request/response protocol between the extension host and the store worker. Every request
 * carries an id; the worker answers each with exactly one `result`, and may send `progress` for it before.
 * PROTOCOL_VERSION changes whenever a message's shape does.
 */
export const PROTOCOL_VERSION = 9;

export interface EngineRequests {
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
  /** Copies a run file into a runs folder as it is (the next index pass reads it as any run there). */
  importRun: { args: { source: string; targetDir: string }; result: { path: string } };
  /** Whether `path` is as the store last read or wrote it (size and mtime), so a watcher event for it needs no re-index. */
  isCurrent: { args: { path: string }; result: boolean };
  /** Opens a split for the views: its indexed runs plus `extraRuns` (files named by the user). */
  openSplit: { args: { datasetDir: string; split: string; extraRuns: string[] }; result: SplitInfo };
  /** The splits some view shows now (every key, each time the set changes): the engine keeps their state, and may drop the others'. */
  viewsOpen: { args: { keys: string[] }; result: null };
  /**
   * The results table against `baseline`. Significance not yet computed is left out (significancePending) and
   * computed in the background; a `split` event says when it is there.
   */
  results: { args: { key: string; baseline: string; compare?: CompareMode; correction?: CorrectionName }; result: Omit<ResultsModel, 'untrusted'> };
  /** One comparison of the Results table (b - a) on one tested measure, query by query. */
  queryDeltas: { args: { key: string; a: string; b: string; measure: string }; result: QueryDeltas };
  diff: { args: { key: string; a: string; b: string }; result: DiffModel };
  queryDetail: { args: { key: string; a: string; b: string; queryId: string; depth: number }; result: QueryDetail };
  /** The holes panel: Hole@10 of every run, and the depth-k pool of the chosen runs (first `listed` items). */
  holes: { args: { key: string; runs: string[]; depth: number; listed: number; order?: QueueOrder }; result: ViewEvents['holes']['model'] };
  /** The depth-k pool of unjudged pairs of `runs` (the user's judgements kept in it), and the first still unjudged. */
  pool: { args: { key: string; runs: string[]; depth: number; order?: QueueOrder }; result: { items: { queryId: string; docId: string }[]; firstUnjudged: number } };
  /**
   * What the Judge sidebar shows for one pair (or only the split's figures, without a pair); with `impact`, the
   * meter of the comparison the impact and sampling orders work on (with the sampling order, its estimate);
   * with `ahead`, those pairs too (the sidebar shows the next at once).
   */
  pair: { args: { key: string; queryId?: string; docId?: string; impact?: { runs: string[]; depth: number; order?: QueueOrder }; ahead?: { queryId: string; docId: string }[] }; result: PairState };
  /** One run's summary figures on the split by trec_eval value name, on the original qrels and with the user's judgements. */
  runSummary: {
    args: { key: string; run: string };
    result: { tag: string; queries: number; original: Record<string, number>; annotated: Record<string, number>; judgements: number };
  };
  /** A qrels line's pair: original and user's grade (with when), query text, document title, grade scale. */
  qrelsLineInfo: { args: { datasetDir: string; split: string; queryId: string; docId: string }; result: QrelsLineInfo };
  /** The user's judgements of a split, for marking overridden lines in an open qrels file. */
  splitJudgements: { args: { datasetDir: string; split: string }; result: UserJudgement[] };
  /**
   * The engine's heap and external memory (after a collection where the process allows one: node --expose-gc) and the split
   * states it holds, of which views show `shown`: what a workspace of many datasets costs it.
   */
  memory: { args: Record<string, never>; result: { heapUsed: number; external: number; splitsHeld: number; splitsShown: number } };
  /** Saves the database snapshot now (it is otherwise saved lazily). */
  flush: { args: Record<string, never>; result: { bytes: number } };
  /** Why a run ranks a document where it does (explainRequests.ts), with provenance warnings. */
  explain: { args: { key: string; run: string; queryId: string; docId: string }; result: Explanation };
  /** The Judge sidebar's blind explanation of a pair: the query terms the document holds, no run. */
  explainPair: { args: { key: string; queryId: string; docId: string }; result: PairExplanation };
  /** One query of a BM25 run edited and re-run with the run's settings, evaluated beside the `compare` runs. */
  whatIf: { args: { key: string; run: string; queryId: string; edit: QueryEdit; compare: string[] }; result: WhatIfResult };
  /** The what-if edits of a run saved as a queries file of the whole split (for irw run --queries). */
  saveWhatIf: { args: { key: string; run: string; out: string }; result: { path: string; queries: number; edited: number } };
}

export type RequestKind = keyof EngineRequests;

export type HostMessage = {
  [K in RequestKind]: { id: number; kind: K; args: EngineRequests[K]['args'] };
}[RequestKind];

export type WorkerMessage =
  | { kind: 'ready'; protocol: number; discarded?: string }
  | { kind: 'progress'; id: number; message: string; fraction?: number }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: { message: string; problem?: Problem } }
  /** Judgements or metrics changed outside an index request (e.g. metrics recomputed after a judgement). */
  | { kind: 'changed' }
  /** Something the user should know that failed no request (the snapshot could not be saved). */
  | { kind: 'warning'; message: string }
  /** An open split's figures changed (a judgement, judgements edited on disk, significance computed): views re-ask. */
  | { kind: 'split'; key: string; version: number; info?: SplitInfo };

/** What the worker is started with (workerData). */
export interface WorkerConfig {
  /** Where the database snapshot lives (workspace storage); undefined keeps it in memory only. */
  dbPath?: string;
  /** Debounce of snapshot saves, in ms. */
  snapshotDelayMs: number;
  /** dist/run-parser.js: new run files are parsed in worker threads of it, two at a time. */
  runParser?: string;
}
