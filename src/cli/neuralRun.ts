import { resolve } from 'node:path';
import type { Bm25RunRequest } from '../core/retrieval/bm25/run';
import type { Similarity } from '../core/retrieval/dense/modelFolder';
import { checkNeuralJob, type NeuralJob, type NeuralResult } from '../core/retrieval/neuralJob';
import { UsageError } from './common';
import { FUSION_OPTIONS, parseFusion } from './fuse';

/** `irw run --retriever dense|rerank|hybrid`: options and parsing (the BM25 options live in run.ts). */
export const NEURAL_RETRIEVERS = ['dense', 'rerank', 'hybrid'] as const;
export type NeuralRetriever = (typeof NEURAL_RETRIEVERS)[number];

export const NEURAL_OPTIONS = {
  ...FUSION_OPTIONS,
  model: { type: 'string' },
  similarity: { type: 'string' },
  'batch-size': { type: 'string' },
  threads: { type: 'string' },
  'first-stage': { type: 'string' },
  'rerank-depth': { type: 'string' },
  'bm25-depth': { type: 'string' },
  'dense-depth': { type: 'string' },
  'doc-embeddings': { type: 'string' },
  'doc-ids': { type: 'string' },
  'query-embeddings': { type: 'string' },
  'query-ids': { type: 'string' },
} as const;

export const NEURAL_HELP = `
dense, rerank and hybrid retrievers (onnxruntime-node, CPU):
  --retriever dense        bi-encoder: corpus and queries embedded, exact top-k by dot product or cosine
  --retriever rerank       cross-encoder re-ranking of the top documents of a first-stage run (BM25+CE)
  --retriever hybrid       BM25 (the options above) and dense, fused (see irw fuse --help)
  --model DIR              model folder: model.onnx, tokenizer.json or vocab.txt, optional irw-model.json
                           (bi-encoder for dense/hybrid, cross-encoder for rerank)
  --similarity dot|cosine  overrides the model folder's similarity (dense, hybrid)
  --batch-size N           texts (or pairs) per inference batch (default 32)
  --first-stage FILE       run to re-rank (rerank; required)
  --rerank-depth N         documents re-ranked per query (default 100; the rest are dropped, as in BEIR)
  --bm25-depth N           BM25 results fused per query (hybrid; default 1000)
  --dense-depth N          dense results fused per query (hybrid; default 1000; the OpenSearch study: 250)
  --norm, --method, --weights, --rrf-k   fusion (hybrid; weights in the order BM25,dense)
  --doc-embeddings F.npy   dense: corpus embeddings made elsewhere (float32 or float16 .npy, one row per
  --doc-ids FILE             document), with their ids in the same order, one per line (text/TSV first column,
                             or JSONL); they must be corpus.jsonl's ids in file order, or they are refused
  --query-embeddings F.npy dense: query embeddings made elsewhere, with --query-ids FILE (any order, any extra
  --query-ids FILE           queries); with both imported, no --model is needed, but --similarity is
`;

function int(name: string, v: string | boolean | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(x)) throw new UsageError(`--${name} needs an integer, got '${String(v)}'`);
  return x;
}

/**
 * A neural job from parsed `irw run` options; `bm25` carries the shared options (dataset, split, out, ...).
 * Options that do not apply to the retriever were refused before (run.ts).
 */
export function parseNeuralJob(retriever: NeuralRetriever, values: Record<string, string | boolean | undefined>, bm25: Bm25RunRequest): NeuralJob {
  const model = values.model as string | undefined;
  const embeddings = (what: 'doc' | 'query') => {
    const [matrix, ids] = [values[`${what}-embeddings`], values[`${what}-ids`]] as (string | undefined)[];
    if ((matrix === undefined) !== (ids === undefined)) throw new UsageError(`--${what}-embeddings and --${what}-ids go together (the matrix and the ids of its rows)`);
    return matrix && ids ? { matrix: resolve(matrix), ids: resolve(ids) } : null;
  };
  const docEmbeddings = embeddings('doc');
  const queryEmbeddings = embeddings('query');
  if (!model && !(retriever === 'dense' && docEmbeddings && queryEmbeddings)) throw new UsageError(`--retriever ${retriever} needs --model DIR (a folder with model.onnx and its tokenizer)`);
  const sim = values.similarity as string | undefined;
  if (sim !== undefined && sim !== 'dot' && sim !== 'cosine') throw new UsageError(`--similarity must be dot or cosine, got '${sim}'`);
  const similarity = (sim ?? null) as Similarity | null;
  const batchSize = int('batch-size', values['batch-size'], 32);
  const threads = values.threads === undefined ? null : int('threads', values.threads, 0);
  const shared = { dataset: bm25.dataset, split: bm25.split, out: bm25.out, ...(bm25.tag !== undefined ? { tag: bm25.tag } : {}), ...(bm25.queries ? { queries: bm25.queries } : {}) };
  let job: NeuralJob;
  switch (retriever) {
    case 'dense':
      job = {
        job: 'dense',
        request: {
          ...shared,
          model: model ? resolve(model) : null,
          similarity,
          topK: bm25.topK,
          batchSize,
          threads,
          removeQuery: bm25.removeQuery,
          cacheDir: bm25.cacheDir,
          docEmbeddings,
          queryEmbeddings,
        },
      };
      break;
    case 'rerank': {
      const firstStage = values['first-stage'] as string | undefined;
      if (!firstStage) throw new UsageError('--retriever rerank needs --first-stage FILE (the run to re-rank)');
      job = {
        job: 'rerank',
        request: { ...shared, model: resolve(model!), firstStage: resolve(firstStage), depth: int('rerank-depth', values['rerank-depth'], 100), batchSize, threads },
      };
      break;
    }
    case 'hybrid':
      job = {
        job: 'hybrid',
        request: {
          ...shared,
          bm25: { k1: bm25.k1, b: bm25.b, fields: bm25.fields, rm3: bm25.rm3, queryWeights: bm25.queryWeights },
          dense: { model: resolve(model!), similarity, batchSize, threads },
          bm25Depth: int('bm25-depth', values['bm25-depth'], 1000),
          denseDepth: int('dense-depth', values['dense-depth'], 1000),
          fusion: parseFusion({ ...values, depth: undefined }, 2),
          removeQuery: bm25.removeQuery,
          cacheDir: bm25.cacheDir,
        },
      };
      break;
  }
  const problem = checkNeuralJob(job);
  if (problem) throw new UsageError(problem);
  return job;
}

/** One line for stderr when a job is done. */
export function neuralSummary(r: NeuralResult): string {
  const ms = Object.entries(r.millis)
    .map(([k, v]) => `${k} ${Math.round(v)} ms`)
    .join(', ');
  const extra = r.job === 'dense' ? `; corpus embeddings ${r.embeddings === 'cache' ? 'from cache' : r.embeddings}` : r.job === 'rerank' ? `; ${r.pairs} pairs scored` : '';
  const warnings = r.job === 'dense' ? r.warnings.map((w) => `warning: ${w}\n`).join('') : '';
  return `${warnings}wrote ${r.out}: ${r.queries} queries, ${r.lines} lines, tag ${r.tag}${extra}; ${ms}\n`;
}
