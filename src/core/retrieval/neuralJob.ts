import { checkDenseRequest, runDense, type DenseRunRequest, type DenseRunResult } from './dense/run';
import { checkFusion, checkHybridRequest, runFuse, runHybrid, type FuseRunRequest, type FuseRunResult, type HybridRunRequest, type HybridRunResult } from './fusion/run';
import { checkRerankRequest, runRerank, type RerankRunRequest, type RerankRunResult } from './rerank/run';

/**
 * The neural and fusion jobs, as one tagged union for the runner child process and `irw run`: dense
 * retrieval, cross-encoder re-ranking of a run, the hybrid retriever (BM25 + dense, fused) and fusion of run
 * files. Plain data both ways: requests and results cross the process boundary.
 */
export type NeuralJob =
  | { job: 'dense'; request: DenseRunRequest }
  | { job: 'rerank'; request: RerankRunRequest }
  | { job: 'hybrid'; request: HybridRunRequest }
  | { job: 'fuse'; request: FuseRunRequest };

export type NeuralResult =
  | ({ job: 'dense' } & DenseRunResult)
  | ({ job: 'rerank' } & RerankRunResult)
  | ({ job: 'hybrid' } & HybridRunResult)
  | ({ job: 'fuse' } & FuseRunResult);

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
  }
}
