import { readQrels } from '../formats/qrels';
import { readRun } from '../formats/run';
import { describeQrels, splitOfQrels, type QrelsRecord } from '../provenance/record';
import { openBm25, writeBm25Run, type Bm25RunRequest } from '../retrieval/bm25/run';
import { fusionTag, runFuse, type FusionSpec } from '../retrieval/fusion/run';
import { bm25GridSettings, bm25Label, bm25Matrix, type Bm25Grid } from './bm25Grid';
import { crossValidate, type CvReport } from './crossValidation';
import type { TuneOptions } from './defaults';
import { fusionLabel, fusionMatrix, fusionSettings, type FusionGrid } from './fusionGrid';
export { TUNE_DEFAULTS, type TuneOptions } from './defaults';

/**
 * `irw tune` (and the editor's tuning step): a grid of BM25 or fusion settings, each scored per query on one
 * measure, cross-validated (crossValidation.ts), and the setting chosen on all queries written as a run whose
 * sidecar records how it was chosen, on which qrels, and whether those were the test split's (then its test
 * figures are tuned on the test queries: optimistic, and the report and sidecar say so).
 */
export interface TuneBm25Request extends TuneOptions {
  dataset: string;
  split: string;
  fields: Bm25RunRequest['fields'];
  topK: number;
  removeQuery: boolean;
  cacheDir: string | null;
  grid: Bm25Grid;
  /** The tuned run to write; null: report only. */
  out: string | null;
  tag?: string;
  command?: string;
  tmpOut?: string;
}

export interface TuneFusionRequest extends TuneOptions {
  runs: string[];
  qrels: string;
  grid: FusionGrid;
  depth: number[] | null;
  topK: number;
  out: string | null;
  tag?: string;
  command?: string;
  tmpOut?: string;
}

export interface TuneReport {
  kind: 'bm25' | 'fusion';
  /** The measure's trec_eval value name. */
  measure: string;
  split: string;
  qrels: QrelsRecord;
  /** Tuned on the queries of the test split: figures on that split are then not held out. */
  onTestSplit: boolean;
  settings: string[];
  defaultIndex: number;
  cv: CvReport;
  options: TuneOptions;
  tuned: { setting: string; out: string; tag: string; lines: number } | null;
  millis: { prepare: number; grid: number; cv: number; write: number; total: number };
}

export interface TuneHooks {
  signal?: AbortSignal;
  onProgress?: (p: { phase: string; done: number; total?: number }) => void;
}

/** What the sidecar of a tuned run records about its tuning (and a later check compares with the qrels). */
export function tuningRecord(r: Omit<TuneReport, 'tuned' | 'millis'>): Record<string, unknown> {
  const label = (i: number) => r.settings[i];
  return {
    measure: r.measure,
    folds: r.options.folds,
    seed: r.options.seed,
    settings: r.settings.length,
    default: label(r.defaultIndex),
    chosen: label(r.cv.chosenOnAll),
    split: r.split,
    qrels: r.qrels,
    onTestSplit: r.onTestSplit,
    crossValidation: {
      heldOutGain: r.cv.heldOutGain,
      ci95: r.cv.ci,
      p: r.cv.p,
      test: r.cv.test,
      tuningGain: r.cv.tuningGain,
      overfit: r.cv.overfit,
      chosenPerFold: r.cv.folds.map((f) => label(f.chosen)),
    },
    ...(r.onTestSplit ? { warning: 'tuned on the test split: this run\'s figures on it are not held out (see crossValidation.heldOutGain for an honest estimate)' } : {}),
  };
}

async function yieldNow(signal?: AbortSignal): Promise<void> {
  await new Promise((r) => setImmediate(r));
  signal?.throwIfAborted();
}

export async function tuneBm25(req: TuneBm25Request, hooks: TuneHooks = {}): Promise<TuneReport> {
  const t0 = performance.now();
  const { signal, onProgress } = hooks;
  const base = { dataset: req.dataset, split: req.split, fields: req.fields, topK: req.topK, removeQuery: req.removeQuery, cacheDir: req.cacheDir, queryWeights: null, command: req.command };
  // One index and one set of query vectors for the whole grid.
  const opened = await openBm25({ ...base, k1: 0, b: 0, rm3: null }, { signal, onProgress: (p) => onProgress?.(p) });
  const qrelsRecord = opened.provenance.inputs.qrels!;
  const qrels = readQrels(qrelsRecord.path);
  const t1 = performance.now();
  const { settings, defaultIndex } = bm25GridSettings(req.grid);
  onProgress?.({ phase: 'tune', done: 0, total: settings.length });
  const matrix = await bm25Matrix({ index: opened.index, qids: opened.qids, queries: opened.queries, topK: req.topK, removeQuery: req.removeQuery }, settings, qrels, req, async (done) => {
    onProgress?.({ phase: 'tune', done, total: settings.length });
    await yieldNow(signal);
  });
  const t2 = performance.now();
  const cv = crossValidate(matrix.rows, defaultIndex, req);
  const t3 = performance.now();
  const report: Omit<TuneReport, 'tuned' | 'millis'> = {
    kind: 'bm25',
    measure: matrix.column,
    split: req.split,
    qrels: qrelsRecord,
    onTestSplit: req.split === 'test',
    settings: settings.map(bm25Label),
    defaultIndex,
    cv,
    options: pickOptions(req),
  };
  let tuned: TuneReport['tuned'] = null;
  if (req.out) {
    const chosen = settings[cv.chosenOnAll];
    const runReq: Bm25RunRequest = { ...base, ...chosen, out: req.out, ...(req.tag ? { tag: req.tag } : {}), ...(req.tmpOut ? { tmpOut: req.tmpOut } : {}) };
    const { tag, lines } = await writeBm25Run(runReq, opened.index, opened.qids, opened.queries, { ...opened.provenance, tuning: tuningRecord(report) }, hooks);
    tuned = { setting: bm25Label(chosen), out: req.out, tag, lines };
  }
  const t4 = performance.now();
  return { ...report, tuned, millis: { prepare: t1 - t0, grid: t2 - t1, cv: t3 - t2, write: t4 - t3, total: t4 - t0 } };
}

export async function tuneFusion(req: TuneFusionRequest, hooks: TuneHooks = {}): Promise<TuneReport> {
  const t0 = performance.now();
  const { signal, onProgress } = hooks;
  const runs = req.runs.map((p) => readRun(p));
  const qrels = readQrels(req.qrels);
  const qrelsRecord = await describeQrels(req.qrels, signal);
  const t1 = performance.now();
  const { settings, defaultIndex } = fusionSettings(req.grid, runs.length, { depth: req.depth, topK: req.topK });
  onProgress?.({ phase: 'tune', done: 0, total: settings.length });
  const matrix = await fusionMatrix(runs, settings, qrels, req, async (done) => {
    onProgress?.({ phase: 'tune', done, total: settings.length });
    await yieldNow(signal);
  });
  const t2 = performance.now();
  const cv = crossValidate(matrix.rows, defaultIndex, req);
  const t3 = performance.now();
  const split = splitOfQrels(req.qrels);
  const report: Omit<TuneReport, 'tuned' | 'millis'> = {
    kind: 'fusion',
    measure: matrix.column,
    split,
    qrels: qrelsRecord,
    onTestSplit: split === 'test',
    settings: settings.map(fusionLabel),
    defaultIndex,
    cv,
    options: pickOptions(req),
  };
  let tuned: TuneReport['tuned'] = null;
  if (req.out) {
    const chosen: FusionSpec = settings[cv.chosenOnAll];
    const r = await runFuse({ runs: req.runs, fusion: chosen, tag: req.tag ?? `${fusionTag(chosen)}-tuned`, out: req.out, tmpOut: req.tmpOut, command: req.command, tuning: tuningRecord(report) });
    tuned = { setting: fusionLabel(chosen), out: req.out, tag: r.tag, lines: r.lines };
  }
  const t4 = performance.now();
  return { ...report, tuned, millis: { prepare: t1 - t0, grid: t2 - t1, cv: t3 - t2, write: t4 - t3, total: t4 - t0 } };
}

function pickOptions(o: TuneOptions): TuneOptions {
  return { measure: o.measure, folds: o.folds, seed: o.seed, relevanceLevel: o.relevanceLevel, resamples: o.resamples, test: o.test };
}
