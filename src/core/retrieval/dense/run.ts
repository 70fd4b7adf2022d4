import { corpusFile } from '../../formats/datasetFolder';
import { Run } from '../../formats/run';
import { embeddingFile, embeddingKey, loadEmbeddings, saveEmbeddings } from './cache';
import { judgedQueries, readCorpusTexts, tagName, writeRun } from './dataset';
import { DenseEncoder } from './encoder';
import { hashFile } from './fingerprint';
import { documentEmbeddingKey, type Similarity } from './modelFolder';
import { ExactIndex } from './search';

/** Everything that defines a dense run over a BEIR dataset folder. Plain data: it crosses the process boundary. */
export interface DenseRunRequest {
  dataset: string;
  split: string;
  /** Model folder (model.onnx + tokenizer; see modelFolder.ts). */
  model: string;
  /** Overrides the model folder's similarity. */
  similarity: Similarity | null;
  topK: number;
  batchSize: number;
  /** onnxruntime intra-op threads; null = onnxruntime's default. */
  threads: number | null;
  /** Drop a hit whose document id equals the query id (as the BM25 runs do, and BEIR's evaluation). */
  removeQuery: boolean;
  /** Folder for cached corpus embeddings; null = always encode. */
  cacheDir: string | null;
  out: string;
  /** Run tag; default dense-<model folder>-<similarity>. */
  tag?: string;
  /** A queries file (BEIR JSONL, TSV or TREC topics) run instead of the queries judged in the split. */
  queries?: string;
  tmpOut?: string;
}

export type DensePhase = 'hash' | 'load-embeddings' | 'encode-corpus' | 'save-embeddings' | 'encode-queries' | 'search';

export interface DenseProgress {
  phase: DensePhase;
  done: number;
  total?: number;
}

export interface DenseHooks {
  signal?: AbortSignal;
  onProgress?: (p: DenseProgress) => void;
}

export interface DenseRunResult {
  out: string;
  tag: string;
  queries: number;
  documents: number;
  lines: number;
  embeddings: 'cache' | 'encoded';
  cacheFile: string | null;
  millis: { encode: number; search: number; total: number };
}

export function checkDenseRequest(r: DenseRunRequest): string | null {
  if (!Number.isInteger(r.topK) || r.topK < 1) return `top-k must be a positive integer (got ${r.topK})`;
  if (!Number.isInteger(r.batchSize) || r.batchSize < 1) return `batch size must be a positive integer (got ${r.batchSize})`;
  if (r.threads !== null && (!Number.isInteger(r.threads) || r.threads < 1)) return `threads must be a positive integer (got ${r.threads})`;
  if (r.similarity !== null && r.similarity !== 'dot' && r.similarity !== 'cosine') return `similarity must be dot or cosine (got ${String(r.similarity)})`;
  return null;
}

/** Encodes (or loads) the corpus, encodes the judged queries and retrieves the exact top k: a run in memory. */
export async function denseRetrieve(req: Omit<DenseRunRequest, 'out' | 'tmpOut'>, hooks: DenseHooks = {}): Promise<{ run: Run; result: Omit<DenseRunResult, 'out' | 'lines'> }> {
  const t0 = performance.now();
  const { signal, onProgress } = hooks;
  const queries = judgedQueries(req.dataset, req.split, req.queries);
  const encoder = await DenseEncoder.open(req.model, req.similarity ? { similarity: req.similarity } : {}, req.threads ? { threads: req.threads } : {});
  try {
    const config = encoder.config;
    const corpus = await readCorpusTexts(req.dataset, signal);
    const batch = { batchSize: req.batchSize };

    let cacheFile: string | null = null;
    let key = '';
    let cached: ReturnType<typeof loadEmbeddings> = 'absent';
    if (req.cacheDir) {
      onProgress?.({ phase: 'hash', done: 0 });
      key = embeddingKey(await documentEmbeddingKey(encoder.folder), await hashFile(corpusFile(req.dataset), signal));
      cacheFile = embeddingFile(req.cacheDir, key);
      onProgress?.({ phase: 'load-embeddings', done: 0 });
      cached = loadEmbeddings(cacheFile, key, corpus.ids);
    }
    let docs: { dim: number; data: Float32Array };
    if (typeof cached !== 'string') docs = cached;
    else {
      const total = corpus.texts.length;
      onProgress?.({ phase: 'encode-corpus', done: 0, total });
      docs = await encoder.encode(corpus.texts, config.documentPrefix, batch, {
        signal,
        onProgress: (done) => onProgress?.({ phase: 'encode-corpus', done, total }),
      });
      if (req.cacheDir && cacheFile) {
        onProgress?.({ phase: 'save-embeddings', done: total, total });
        saveEmbeddings(cacheFile, key, corpus.ids, docs.dim, docs.data);
      }
    }
    const nq = queries.ids.length;
    onProgress?.({ phase: 'encode-queries', done: 0, total: nq });
    const q = await encoder.encode(queries.texts, config.queryPrefix, batch, {
      signal,
      onProgress: (done) => onProgress?.({ phase: 'encode-queries', done, total: nq }),
    });
    const t1 = performance.now();

    const index = new ExactIndex(docs.data, corpus.ids.length, docs.dim, config.similarity);
    const rankings: [string, string[], Float32Array][] = [];
    let lastYield = performance.now();
    for (let i = 0; i < nq; i++) {
      const qid = queries.ids[i];
      // One extra hit, so that dropping the query's own document still leaves k.
      const hits = index.search(q.data, i, req.topK + (req.removeQuery ? 1 : 0));
      const ids: string[] = [];
      const scores: number[] = [];
      for (let j = 0; j < hits.docs.length && ids.length < req.topK; j++) {
        const id = corpus.ids[hits.docs[j]];
        if (req.removeQuery && id === qid) continue;
        ids.push(id);
        scores.push(hits.scores[j]);
      }
      rankings.push([qid, ids, Float32Array.from(scores)]);
      if (performance.now() - lastYield > 25) {
        onProgress?.({ phase: 'search', done: i + 1, total: nq });
        await new Promise((r) => setImmediate(r));
        signal?.throwIfAborted();
        lastYield = performance.now();
      }
    }
    onProgress?.({ phase: 'search', done: nq, total: nq });
    const tag = req.tag ?? `dense-${tagName(req.model)}-${config.similarity}`;
    const run = Run.fromRankings(tag, rankings);
    const t2 = performance.now();
    return {
      run,
      result: {
        tag,
        queries: nq,
        documents: corpus.ids.length,
        embeddings: typeof cached !== 'string' ? 'cache' : 'encoded',
        cacheFile,
        millis: { encode: t1 - t0, search: t2 - t1, total: t2 - t0 },
      },
    };
  } finally {
    await encoder.release();
  }
}

/** A dense run written to `req.out`; rejects with AbortError on cancel (no file left). */
export async function runDense(req: DenseRunRequest, hooks: DenseHooks = {}): Promise<DenseRunResult> {
  const { run, result } = await denseRetrieve(req, hooks);
  hooks.signal?.throwIfAborted();
  const lines = writeRun(run, req.out, req.tmpOut, { retriever: 'dense', ...req });
  return { ...result, out: req.out, lines };
}
