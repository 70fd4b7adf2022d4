import { InputError } from '../../formats/errors';
import { Run, readRun } from '../../formats/run';
import { judgedQueries, readCorpusTexts, tagName, writeRun } from '../dense/dataset';
import { CrossEncoder } from './crossEncoder';
import { describeFile } from '../../provenance/files';
import { datasetInputs, provenanceOf, type ModelRecord } from '../../provenance/record';
import { describeModel } from '../dense/modelFolder';

/**
 * Re-ranking of any first-stage run (ours or imported) with a cross-encoder: BEIR's "BM25+CE". For each query
 * judged in the split, the first `depth` results of the first stage are scored by the cross-encoder and
 * returned in that order; results below the depth are dropped (as BEIR's reranker returns only the top-k).
 */
export interface RerankRunRequest {
  dataset: string;
  split: string;
  /** Cross-encoder model folder. */
  model: string;
  /** TREC run file to re-rank. */
  firstStage: string;
  depth: number;
  batchSize: number;
  threads: number | null;
  out: string;
  /** Run tag; default rerank-<model folder>-top<depth>. */
  tag?: string;
  tmpOut?: string;
  /** The command that asked for the run, for its provenance. */
  command?: string;
}

export interface RerankProgress {
  phase: 'read' | 'rerank';
  done: number;
  total?: number;
}

export interface RerankHooks {
  signal?: AbortSignal;
  onProgress?: (p: RerankProgress) => void;
}

export interface RerankRunResult {
  out: string;
  tag: string;
  queries: number;
  pairs: number;
  lines: number;
  millis: { total: number };
}

export function checkRerankRequest(r: RerankRunRequest): string | null {
  if (!Number.isInteger(r.depth) || r.depth < 1) return `re-rank depth must be a positive integer (got ${r.depth})`;
  if (!Number.isInteger(r.batchSize) || r.batchSize < 1) return `batch size must be a positive integer (got ${r.batchSize})`;
  if (r.threads !== null && (!Number.isInteger(r.threads) || r.threads < 1)) return `threads must be a positive integer (got ${r.threads})`;
  return null;
}

/** Re-ranks `firstStage` in memory. */
export async function rerank(
  req: Omit<RerankRunRequest, 'out' | 'tmpOut' | 'firstStage'>,
  firstStage: Run,
  hooks: RerankHooks = {},
): Promise<{ run: Run; queries: number; pairs: number; model: ModelRecord }> {
  const { signal, onProgress } = hooks;
  onProgress?.({ phase: 'read', done: 0 });
  const judged = judgedQueries(req.dataset, req.split);
  const qIdx: number[] = [];
  const needed = new Set<string>();
  judged.ids.forEach((qid, i) => {
    const r = firstStage.ranking(qid);
    if (!r) return;
    qIdx.push(i);
    for (let j = 0; j < Math.min(req.depth, r.docs.length); j++) needed.add(r.docs[j]);
  });
  const model = await CrossEncoder.open(req.model, req.threads ? { threads: req.threads } : {});
  try {
    const corpus = await readCorpusTexts(req.dataset, signal, needed);
    const docIndex = new Map(corpus.ids.map((id, i) => [id, i]));
    const pairQ: number[] = [];
    const pairD: number[] = [];
    const spans: [qid: string, start: number, end: number][] = [];
    for (const i of qIdx) {
      const qid = judged.ids[i];
      const r = firstStage.ranking(qid)!;
      const start = pairQ.length;
      for (let j = 0; j < Math.min(req.depth, r.docs.length); j++) {
        const d = docIndex.get(r.docs[j]);
        if (d === undefined) {
          throw new InputError({
            code: 'unknown-id',
            message: `the first-stage run retrieves document ${JSON.stringify(r.docs[j])} for query ${JSON.stringify(qid)}, but the corpus has no such document`,
            file: `${req.dataset}/corpus.jsonl`,
            hint: 'Re-rank a run made on this dataset.',
          });
        }
        pairQ.push(i);
        pairD.push(d);
      }
      spans.push([qid, start, pairQ.length]);
    }
    const total = pairQ.length;
    onProgress?.({ phase: 'rerank', done: 0, total });
    const scores = await model.score(
      judged.texts,
      corpus.texts,
      Int32Array.from(pairQ),
      Int32Array.from(pairD),
      { batchSize: req.batchSize },
      { signal, onProgress: (done) => onProgress?.({ phase: 'rerank', done, total }) },
    );
    const tag = req.tag ?? `rerank-${tagName(req.model)}-top${req.depth}`;
    const run = Run.fromRankings(
      tag,
      spans.map(([qid, s, e]) => [qid, pairD.slice(s, e).map((d) => corpus.ids[d]), scores.subarray(s, e)] as [string, string[], Float32Array]),
    );
    return { run, queries: spans.length, pairs: total, model: await describeModel(model.folder, signal) };
  } finally {
    await model.release();
  }
}

/** Reads the first-stage run, re-ranks it and writes the result; rejects with AbortError on cancel (no file left). */
export async function runRerank(req: RerankRunRequest, hooks: RerankHooks = {}): Promise<RerankRunResult> {
  const t0 = performance.now();
  const firstStage = await describeFile(req.firstStage, hooks.signal);
  const { run, queries, pairs, model } = await rerank(req, readRun(req.firstStage), hooks);
  hooks.signal?.throwIfAborted();
  const inputs = { ...(await datasetInputs(req.dataset, req.split, undefined, hooks.signal)), model, firstStage };
  const lines = writeRun(run, req.out, req.tmpOut, { retriever: 'rerank', ...req, provenance: provenanceOf(req.command, inputs) });
  return { out: req.out, tag: run.tag, queries, pairs, lines, millis: { total: performance.now() - t0 } };
}
