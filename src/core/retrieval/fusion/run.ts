import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRun, type Run } from '../../formats/run';
import { describeFile } from '../../provenance/files';
import { datasetInputs, provenanceOf } from '../../provenance/record';
import { runBm25, type Bm25RunRequest, type RunProgress } from '../bm25/run';
import { writeRun } from '../dense/dataset';
import { denseRetrieve, type DenseProgress, type DenseRunRequest } from '../dense/run';
import { fuse, METHODS, type Method } from './fuse';
import { NORMALIZATIONS, type Normalization } from './normalize';

/** How runs are fused (see fuse.ts and normalize.ts for the formulas). */
export interface FusionSpec {
  method: Method;
  norm: Normalization;
  /** One weight per input run; null = all 1. */
  weights: number[] | null;
  /** Results taken from each input run per query: one number for all, or one per run; null = all. */
  depth: number[] | null;
  rrfK: number;
  /** Results kept per query. */
  topK: number;
}

export const FUSION_DEFAULTS: FusionSpec = { method: 'arithmetic', norm: 'min-max', weights: null, depth: null, rrfK: 60, topK: 1000 };

/** `irw fuse`: fusion of run files, ours or imported. Plain data: it crosses the process boundary. */
export interface FuseRunRequest {
  runs: string[];
  fusion: FusionSpec;
  tag: string | null;
  out: string;
  tmpOut?: string;
  /** The command that asked for the run, for its provenance. */
  command?: string;
  /** How the fusion was chosen, when `irw tune` chose it (provenance). */
  tuning?: Record<string, unknown>;
}

export interface FuseRunResult {
  out: string;
  tag: string;
  queries: number;
  lines: number;
  millis: { read: number; fuse: number; total: number };
}

/** Checks a fusion spec against the number of runs; returns what is wrong or null. */
export function checkFusion(f: FusionSpec, runs: number): string | null {
  if (runs < 2) return `fusion needs two or more runs (got ${runs})`;
  if (!METHODS.includes(f.method)) return `unknown fusion method '${f.method}' (available: ${METHODS.join(', ')})`;
  if (!NORMALIZATIONS.includes(f.norm)) return `unknown normalization '${f.norm}' (available: ${NORMALIZATIONS.join(', ')})`;
  if (f.weights && f.weights.length !== runs) return `${f.weights.length} weights for ${runs} runs: give one weight per run`;
  if (f.weights?.some((w) => !(w >= 0) || !Number.isFinite(w))) return 'weights must be finite numbers >= 0';
  if (f.depth && f.depth.length !== 1 && f.depth.length !== runs) return `${f.depth.length} depths for ${runs} runs: give one depth, or one per run`;
  if (f.depth?.some((d) => !Number.isInteger(d) || d < 1)) return 'depths must be positive integers';
  if ((f.method === 'geometric' || f.method === 'harmonic') && (f.norm === 'z-score' || f.norm === 'none')) {
    return `the ${f.method} mean needs non-negative scores: use it with min-max, max, sum, l2 or rank normalization, not ${f.norm}`;
  }
  if (!Number.isInteger(f.topK) || f.topK < 1) return `top-k must be a positive integer (got ${f.topK})`;
  if (!(f.rrfK > 0)) return `RRF k must be > 0 (got ${f.rrfK})`;
  return null;
}

export function fusionTag(f: FusionSpec): string {
  return f.method === 'rrf' ? `fused-rrf${f.rrfK}` : `fused-${f.norm}-${f.method}`;
}

export function fuseRuns(runs: readonly Run[], f: FusionSpec, tag: string): Run {
  return fuse(runs, {
    method: f.method,
    norm: f.norm,
    weights: f.weights ?? undefined,
    depth: f.depth ?? undefined,
    rrfK: f.rrfK,
    k: f.topK,
    tag,
  });
}

export async function runFuse(req: FuseRunRequest): Promise<FuseRunResult> {
  const t0 = performance.now();
  const runs = req.runs.map((p) => readRun(p));
  // The input files as they were read: a later change of one makes this run stale (provenance/check.ts).
  const inputs = { runs: await Promise.all(req.runs.map((p) => describeFile(p))) };
  const t1 = performance.now();
  const fused = fuseRuns(runs, req.fusion, req.tag ?? fusionTag(req.fusion));
  const t2 = performance.now();
  const { tuning, ...settings } = req;
  const provenance = provenanceOf(req.command, inputs, tuning ? { tuning } : {});
  const lines = writeRun(fused, req.out, req.tmpOut, { retriever: 'fuse', ...settings, provenance }, 'ranked');
  return { out: req.out, tag: fused.tag, queries: fused.qids.length, lines, millis: { read: t1 - t0, fuse: t2 - t1, total: performance.now() - t0 } };
}

/**
 * The "Hybrid" retriever: BM25 and a dense model over the same dataset, fused. The OpenSearch study took 9,999
 * BM25 hits and 250 dense ones (`bm25Depth`, `denseDepth`).
 */
export interface HybridRunRequest {
  dataset: string;
  split: string;
  bm25: Pick<Bm25RunRequest, 'k1' | 'b' | 'fields' | 'rm3' | 'queryWeights'>;
  dense: Pick<DenseRunRequest, 'model' | 'similarity' | 'batchSize' | 'threads'>;
  bm25Depth: number;
  denseDepth: number;
  /** Fusion of [BM25, dense], in that order (weights too). */
  fusion: FusionSpec;
  removeQuery: boolean;
  cacheDir: string | null;
  out: string;
  /** Run tag; default hybrid-<fusion>-<dense tag>. */
  tag?: string;
  /** A queries file run instead of the queries judged in the split (see Bm25RunRequest.queries). */
  queries?: string;
  tmpOut?: string;
  /** The command that asked for the run, for its provenance. */
  command?: string;
}

export type HybridProgress = ({ retriever: 'bm25' } & RunProgress) | ({ retriever: 'dense' } & DenseProgress) | { retriever: 'fusion'; phase: 'fuse'; done: number; total?: number };

export interface HybridRunResult {
  out: string;
  tag: string;
  queries: number;
  lines: number;
  millis: { bm25: number; dense: number; fuse: number; total: number };
}

export function checkHybridRequest(r: HybridRunRequest): string | null {
  for (const [name, d] of [['BM25', r.bm25Depth], ['dense', r.denseDepth]] as const) {
    if (!Number.isInteger(d) || d < 1) return `${name} depth must be a positive integer (got ${d})`;
  }
  return checkFusion({ ...r.fusion, depth: null }, 2);
}

export async function runHybrid(req: HybridRunRequest, hooks: { signal?: AbortSignal; onProgress?: (p: HybridProgress) => void } = {}): Promise<HybridRunResult> {
  const { signal, onProgress } = hooks;
  const t0 = performance.now();
  // BM25 writes a run file: to a temporary folder (not the runs folder, which the editor watches), read back,
  // then removed.
  const scratch = mkdtempSync(join(tmpdir(), 'irw-hybrid-'));
  const bm25Out = join(scratch, 'bm25.trec');
  let bm25: Run;
  try {
    await runBm25(
      { ...req.bm25, dataset: req.dataset, split: req.split, queries: req.queries, topK: req.bm25Depth, removeQuery: req.removeQuery, cacheDir: req.cacheDir, out: bm25Out },
      { signal, onProgress: (p) => onProgress?.({ retriever: 'bm25', ...p }) },
    );
    bm25 = readRun(bm25Out);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const t1 = performance.now();
  const { run: dense, result, model } = await denseRetrieve(
    { ...req.dense, dataset: req.dataset, split: req.split, queries: req.queries, topK: req.denseDepth, removeQuery: req.removeQuery, cacheDir: req.cacheDir },
    { signal, onProgress: (p) => onProgress?.({ retriever: 'dense', ...p }) },
  );
  const t2 = performance.now();
  signal?.throwIfAborted();
  onProgress?.({ retriever: 'fusion', phase: 'fuse', done: 0 });
  const fused = fuseRuns([bm25, dense], { ...req.fusion, depth: null }, req.tag ?? `hybrid-${fusionTag(req.fusion)}-${result.tag}`);
  const t3 = performance.now();
  const provenance = provenanceOf(req.command, { ...(await datasetInputs(req.dataset, req.split, req.queries, signal)), ...(model ? { model } : {}) });
  const lines = writeRun(fused, req.out, req.tmpOut, { retriever: 'hybrid', ...req, provenance }, 'ranked');
  return { out: req.out, tag: fused.tag, queries: fused.qids.length, lines, millis: { bm25: t1 - t0, dense: t2 - t1, fuse: t3 - t2, total: performance.now() - t0 } };
}
