import { checkDenseRequest, runDense, type DenseRunRequest, type DenseRunResult } from './dense/run';
import { checkFusion, checkHybridRequest, runFuse, runHybrid, type FuseRunRequest, type FuseRunResult, type HybridRunRequest, type HybridRunResult } from './fusion/run';
import { checkRerankRequest, runRerank, type RerankRunRequest, type RerankRunResult } from './rerank/run';
import { tuneBm25, type TuneBm25Request, type TuneReport } from '../tune/tune';

/**
 * The neural, fusion and tuning jobs, as one tagged union for the runner child process and `irw run`: dense
 * retrieval, cross-encoder re-ranking of a run, the hybrid retriever (BM25 + dense, fused), fusion of run
 * files, and BM25 tuned by cross-validation (the editor's Run BEIR Eval step; `irw tune` runs it in process).
 * Plain data both ways: requests and results cross the process boundary.
 */
export type NeuralJob =
  | { job: 'dense'; request: DenseRunRequest }
  | { job: 'rerank'; request: RerankRunRequest }
  | { job: 'hybrid'; request: HybridRunRequest }
  | { job: 'fuse'; request: FuseRunRequest }
  | { job: 'tune-bm25'; request: TuneBm25Request & { out: string } };

export type NeuralResult =
  | ({ job: 'dense' } & DenseRunResult)
  | ({ job: 'rerank' } & RerankRunResult)
  | ({ job: 'hybrid' } & HybridRunResult)
  | ({ job: 'fuse' } & FuseRunResult)
  | { job: 'tune-bm25'; out: string; tag: string; queries: number; lines: number; report: TuneReport; millis: TuneReport['millis'] };

/** Progress of any job: a phase (e.g. encode-corpus, rerank, index), counts, and for hybrid the retriever. */
export interface NeuralProgress {
  phase: string;
  done: number;
  total?: number;
  retriever?: string;
}

export interface NeuralHooks {
  signal?: AbortSignal;
  onProgress?: (p: NeuralProgress) => void;
}

export function isNeuralJob(r: unknown): r is NeuralJob {
  return typeof r === 'object' && r !== null && typeof (r as { job?: unknown }).job === 'string';
}

/** What is wrong with a job's values (for a usage error), or null. */
export function checkNeuralJob(j: NeuralJob): string | null {
  switch (j.job) {
    case 'dense':
      return checkDenseRequest(j.request);
    case 'rerank':
      return checkRerankRequest(j.request);
    case 'hybrid':
      return checkHybridRequest(j.request);
    case 'fuse':
      return checkFusion(j.request.fusion, j.request.runs.length);
    case 'tune-bm25':
      return checkTune(j.request);
    default:
      return `unknown job '${(j as { job: string }).job}'`;
  }
}

/** Runs a job to completion; rejects with AbortError on cancel, leaving no output file. */
export async function runNeuralJob(j: NeuralJob, hooks: NeuralHooks = {}): Promise<NeuralResult> {
  switch (j.job) {
    case 'dense':
      return { job: 'dense', ...(await runDense(j.request, hooks)) };
    case 'rerank':
      return { job: 'rerank', ...(await runRerank(j.request, hooks)) };
    case 'hybrid':
      return { job: 'hybrid', ...(await runHybrid(j.request, hooks)) };
    case 'fuse':
      hooks.signal?.throwIfAborted();
      return { job: 'fuse', ...(await runFuse(j.request)) };
    case 'tune-bm25': {
      const report = await tuneBm25(j.request, hooks);
      return { job: 'tune-bm25', out: j.request.out, tag: report.tuned!.tag, queries: report.cv.queries, lines: report.tuned!.lines, report, millis: report.millis };
    }
  }
}

function checkTune(r: TuneBm25Request): string | null {
  const { k1, b, rm3 } = r.grid;
  if (k1.length === 0 || b.length === 0 || k1.some((x) => !(x >= 0)) || b.some((x) => !(x >= 0 && x <= 1))) return 'the grid needs k1 values >= 0 and b values between 0 and 1';
  if (rm3 && r.fields !== 'flat') return 'RM3 needs a flat index';
  if (!Number.isInteger(r.folds) || r.folds < 2) return `cross-validation needs at least 2 folds (got ${r.folds})`;
  return null;
}
