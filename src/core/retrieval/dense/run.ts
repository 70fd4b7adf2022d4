import { InputError } from '../../formats/errors';
import { Run } from '../../formats/run';
import { EmbeddingCacheReader, EmbeddingCacheWriter, embeddingFile, embeddingKey } from './cache';
import { CorpusTexts } from './corpusTexts';
import { judgedQueries, tagName, writeRun } from './dataset';
import { DenseEncoder } from './encoder';
import { hashFile } from './fingerprint';
import { checkCorpusIds, importedQueries, openEmbeddings, type EmbeddingFiles } from './imported';
import { describeModel, documentEmbeddingKey, type Similarity } from './modelFolder';
import { describeFile } from '../../provenance/files';
import { datasetInputs, provenanceOf, type ModelRecord } from '../../provenance/record';
import { BlockSearch } from './search';
/** Everything that defines a dense run over a BEIR dataset folder. Plain data: it crosses the process boundary. */
export interface DenseRunRequest {
  dataset: string;
  split: string;
  /** Model folder (model.onnx + tokenizer; see modelFolder.ts); null when both corpus and queries come embedded. */
  model: string | null;
  /** Overrides the model folder's similarity (needed when there is no model folder). */
  similarity: Similarity | null;
  topK: number;
  batchSize: number;
  /** onnxruntime intra-op threads; null = onnxruntime's default. */
  threads: number | null;
  /** Drop a hit whose document id equals the query id (as the BM25 runs do, and BEIR's evaluation). */
  removeQuery: boolean;
  /** Folder for cached corpus embeddings; null = always encode. */
  cacheDir: string | null;
  /** Corpus embeddings made elsewhere, in corpus.jsonl order (instead of encoding the corpus). */
  docEmbeddings?: EmbeddingFiles | null;
  /** Query embeddings made elsewhere (instead of encoding the queries). */
  queryEmbeddings?: EmbeddingFiles | null;
  out: string;
  /** Run tag; default dense-<model folder>-<similarity>. */
  tag?: string;
  /** A queries file (BEIR JSONL, TSV or TREC topics) run instead of the queries judged in the split. */
  queries?: string;
  tmpOut?: string;
  /** The command that asked for the run, for its provenance. */
  command?: string;
}

export type DensePhase = 'encode-queries' | 'read-corpus' | 'hash' | 'load-embeddings' | 'encode-corpus' | 'search';

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
  embeddings: 'cache' | 'encoded' | 'imported';
  cacheFile: string | null;
  /** What went wrong without costing the run (e.g. a cache folder that cannot be written). */
  warnings: string[];
  /** search: scoring and ranking; encode: everything else (encoding, or reading embeddings, the corpus ids, the cache). */
  millis: { encode: number; search: number; total: number };
}

export function checkDenseRequest(r: DenseRunRequest): string | null {
  if (!Number.isInteger(r.topK) || r.topK < 1) return `top-k must be a positive integer (got ${r.topK})`;
  if (!Number.isInteger(r.batchSize) || r.batchSize < 1) return `batch size must be a positive integer (got ${r.batchSize})`;
  if (r.threads !== null && (!Number.isInteger(r.threads) || r.threads < 1)) return `threads must be a positive integer (got ${r.threads})`;
  if (r.similarity !== null && r.similarity !== 'dot' && r.similarity !== 'cosine') return `similarity must be dot or cosine (got ${String(r.similarity)})`;
  const imported = r.docEmbeddings && r.queryEmbeddings;
  if (!r.model && !imported) return 'a model folder is needed to encode the corpus or the queries (import both to go without)';
  if (r.model && imported) return 'the model has no effect when both the corpus and the query embeddings are imported';
  if (!r.model && r.similarity === null) return 'without a model folder, the similarity (dot or cosine) must be given';
  return null;
}

/** Documents encoded per block: their texts are read, encoded, searched and cached, then dropped. */
export const ENCODE_BLOCK = 16384;
/** Values per block read back from the cache or an imported matrix (32 MB of float32). */
const READ_BLOCK_VALUES = 8 << 20;

/**
 * Embeds the judged queries, then streams the corpus embeddings (imported, from the cache, or encoded a block
 * at a time and cached as they come) through an exact top-k search: a run in memory, with memory bounded by a
 * block, not by the corpus.
 */
export async function denseRetrieve(
  req: Omit<DenseRunRequest, 'out' | 'tmpOut'>,
  hooks: DenseHooks = {},
): Promise<{ run: Run; result: Omit<DenseRunResult, 'out' | 'lines'>; model: ModelRecord | null }> {
  const t0 = performance.now();
  const { signal, onProgress } = hooks;
  const problem = checkDenseRequest({ ...req, out: '' });
  if (problem) throw new Error(problem);
  const queries = judgedQueries(req.dataset, req.split, req.queries);
  const encoder = req.model ? await DenseEncoder.open(req.model, req.similarity ? { similarity: req.similarity } : {}, req.threads ? { threads: req.threads } : {}) : null;
  const warnings: string[] = [];
  try {
    const similarity = encoder ? encoder.config.similarity : req.similarity!;
    const batch = { batchSize: req.batchSize };
    const nq = queries.ids.length;
    onProgress?.({ phase: 'encode-queries', done: 0, total: nq });
    const q = req.queryEmbeddings
      ? importedQueries(req.queryEmbeddings, queries.ids)
      : await encoder!.encode(queries.texts, encoder!.config.queryPrefix, batch, { signal, onProgress: (done) => onProgress?.({ phase: 'encode-queries', done, total: nq }) });
    onProgress?.({ phase: 'read-corpus', done: 0 });
    const corpus = await CorpusTexts.scan(req.dataset, signal);
    const k = req.topK + (req.removeQuery ? 1 : 0); // one extra, so dropping the query's own document still leaves k
    const newSearch = () => new BlockSearch(q.data, nq, q.dim, similarity, k, corpus.count);
    let search = newSearch();
    let searchMs = 0;
    let embeddings: DenseRunResult['embeddings'] = 'encoded';
    let cacheFile: string | null = null;

    if (req.docEmbeddings) {
      const { matrix, ids } = openEmbeddings(req.docEmbeddings);
      try {
        checkCorpusIds(req.docEmbeddings, ids, corpus.ids, corpus.path);
        checkDims(q.dim, matrix.cols, req.docEmbeddings.matrix);
        searchMs += await streamBlocks(search, matrix.cols, (rows, out) => matrix.readRows(search.documents, rows, out), hooks);
      } finally {
        matrix.close();
      }
      embeddings = 'imported';
    } else {
      const model = encoder!;
      let key = '';
      if (req.cacheDir) {
        onProgress?.({ phase: 'hash', done: 0 });
        key = embeddingKey(await documentEmbeddingKey(model.folder), await hashFile(corpus.path, signal));
        cacheFile = embeddingFile(req.cacheDir, key);
        onProgress?.({ phase: 'load-embeddings', done: 0, total: corpus.count });
        const reader = EmbeddingCacheReader.open(cacheFile, key, corpus.ids, q.dim);
        if (typeof reader !== 'string') {
          let whole = false;
          try {
            searchMs += await streamBlocks(search, q.dim, (rows, out) => reader.read(rows, out), hooks);
            whole = reader.verify();
          } catch (e) {
            if ((e as Error).name === 'AbortError') throw e;
          } finally {
            reader.close();
          }
          if (whole) embeddings = 'cache';
          else {
            search = newSearch(); // what was read is not trusted: encode again
            searchMs = 0;
          }
        }
      }
      if (embeddings === 'encoded') {
        let writer: EmbeddingCacheWriter | null = null;
        const dropCache = (e: unknown) => {
          warnings.push(`corpus embeddings not cached (${(e as Error).message}); the run is not affected`);
          writer?.abort();
          writer = null;
        };
        if (cacheFile) {
          try {
            writer = EmbeddingCacheWriter.create(cacheFile, key, corpus.ids, q.dim);
          } catch (e) {
            dropCache(e);
          }
        }
        try {
          const total = corpus.count;
          onProgress?.({ phase: 'encode-corpus', done: 0, total });
          for (let from = 0; from < total; from += ENCODE_BLOCK) {
            const to = Math.min(total, from + ENCODE_BLOCK);
            const docs = await model.encode(corpus.texts(from, to), model.config.documentPrefix, batch, {
              signal,
              onProgress: (done) => onProgress?.({ phase: 'encode-corpus', done: from + done, total }),
            });
            checkDims(q.dim, docs.dim, model.folder.modelPath);
            searchMs += await addInSlices(search, docs.data, to - from, { signal }); // progress: encode-corpus says it
            if (writer) {
              try {
                (writer as EmbeddingCacheWriter).append(docs.data);
              } catch (e) {
                dropCache(e);
              }
            }
          }
          if (writer) {
            try {
              (writer as EmbeddingCacheWriter).commit();
            } catch (e) {
              dropCache(e);
            }
          }
        } finally {
          (writer as EmbeddingCacheWriter | null)?.abort();
        }
      }
    }
    const t1 = performance.now();

    const rankings: [string, string[], Float32Array][] = [];
    for (let i = 0; i < nq; i++) {
      const qid = queries.ids[i];
      const hits = search.results(i);
      const ids: string[] = [];
      const scores: number[] = [];
      for (let j = 0; j < hits.docs.length && ids.length < req.topK; j++) {
        const id = corpus.ids[hits.docs[j]];
        if (req.removeQuery && id === qid) continue;
        ids.push(id);
        scores.push(hits.scores[j]);
      }
      rankings.push([qid, ids, Float32Array.from(scores)]);
    }
    onProgress?.({ phase: 'search', done: nq, total: nq });
    const source = req.model ?? req.docEmbeddings!.matrix.replace(/\.npy$/i, '');
    const tag = req.tag ?? `dense-${tagName(source)}-${similarity}`;
    const run = Run.fromRankings(tag, rankings);
    const model = encoder ? await describeModel(encoder.folder, signal) : null;
    const t2 = performance.now();
    return {
      run,
      model,
      result: { tag, queries: nq, documents: corpus.count, embeddings, cacheFile, warnings, millis: { encode: t1 - t0 - searchMs, search: t2 - t1 + searchMs, total: t2 - t0 } },
    };
  } finally {
    await encoder?.release();
  }
}

/** Feeds every document to `search`, a block at a time from `read`; returns the milliseconds spent scoring. */
async function streamBlocks(search: BlockSearch, dim: number, read: (rows: number, out: Float32Array) => void, hooks: DenseHooks): Promise<number> {
  let ms = 0;
  const rowsPerBlock = Math.max(1, Math.floor(READ_BLOCK_VALUES / dim));
  const block = new Float32Array(Math.min(rowsPerBlock, search.docCount) * dim);
  while (search.documents < search.docCount) {
    const rows = Math.min(rowsPerBlock, search.docCount - search.documents);
    read(rows, block);
    ms += await addInSlices(search, block, rows, hooks);
  }
  return ms;
}

/** Multiply-adds scored between two yields to the event loop (a fraction of a second), for cancel and progress. */
const SLICE_WORK = 2e8;

/** search.add of `rows` rows, in slices between which cancel and progress get their turn; returns the milliseconds spent scoring. */
async function addInSlices(search: BlockSearch, data: Float32Array, rows: number, hooks: DenseHooks): Promise<number> {
  const slice = Math.max(64, Math.floor(SLICE_WORK / Math.max(1, search.queryCount * search.dim)));
  let ms = 0;
  for (let at = 0; at < rows; at += slice) {
    hooks.signal?.throwIfAborted();
    const n = Math.min(slice, rows - at);
    const t = performance.now();
    search.add(data.subarray(at * search.dim, (at + n) * search.dim), n);
    ms += performance.now() - t;
    hooks.onProgress?.({ phase: 'search', done: search.documents, total: search.docCount });
    await new Promise((r) => setImmediate(r));
  }
  return ms;
}

function checkDims(queryDim: number, docDim: number, file: string): void {
  if (queryDim !== docDim) {
    throw new InputError({
      code: 'malformed',
      message: `document embeddings have ${docDim} dimensions but query embeddings have ${queryDim}`,
      file,
      hint: 'Embed the corpus and the queries with the same model.',
    });
  }
}

/** A dense run written to `req.out`; rejects with AbortError on cancel (no file left). */
export async function runDense(req: DenseRunRequest, hooks: DenseHooks = {}): Promise<DenseRunResult> {
  const { run, result, model } = await denseRetrieve(req, hooks);
  hooks.signal?.throwIfAborted();
  const inputs = {
    ...(await datasetInputs(req.dataset, req.split, req.queries, hooks.signal)),
    ...(model ? { model } : {}),
    ...(req.docEmbeddings ? { docEmbeddings: await describeFile(req.docEmbeddings.matrix, hooks.signal) } : {}),
    ...(req.queryEmbeddings ? { queryEmbeddings: await describeFile(req.queryEmbeddings.matrix, hooks.signal) } : {}),
  };
  // The similarity used, whether the model folder or the request gave it (the request's is null when the folder did).
  const similarity = model ? (model.settings.similarity as Similarity) : req.similarity;
  const lines = writeRun(run, req.out, req.tmpOut, { retriever: 'dense', ...req, similarity, provenance: provenanceOf(req.command, inputs) });
  return { ...result, out: req.out, lines };
}
