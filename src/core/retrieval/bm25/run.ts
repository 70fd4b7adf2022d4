import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { corpusFile, datasetFiles, forEachDatasetDoc, readDatasetQueries, readQueryFile } from '../../formats/datasetFolder';
import { InputError } from '../../formats/errors';
import { readQrels } from '../../formats/qrels';
import { RunWriter } from '../../formats/runWriter';
import { createAnalyzer, type Analyzer } from '../analysis/analyzer';
import { describeFile } from '../../provenance/files';
import { datasetInputs, provenanceOf, type Provenance } from '../../provenance/record';
import { hashFile } from '../dense/fingerprint';
import { cacheFile, cacheKey, loadIndex, saveIndex, type CacheMiss } from './cache';
import { CorpusLineScanner } from './corpusLine';
import { IndexBuilder, type Bm25Index, type FieldsMode } from './index';
import { startParallelBuild, type ParallelBuild } from './parallelBuild';
import { readOwnWeights, readQueryWeights } from './queryWeights';
import { Bm25Ranker, type Ranking } from './ranker';
import type { Rm3Params } from './rm3';
import { SearchPool } from './parallelSearch';
import { bagOfWords, resolveQuery, type Hits, type QueryVector } from './search';

/** Everything that defines a BM25 run over a BEIR dataset folder. Plain data: it crosses the process boundary. */
export interface Bm25RunRequest {
  /** BEIR dataset folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv. */
  dataset: string;
  split: string;
  k1: number;
  b: number;
  fields: FieldsMode;
  topK: number;
  /** Drop a hit whose document id equals the query id (Anserini's -removeQuery). */
  removeQuery: boolean;
  rm3: Rm3Params | null;
  /** JSONL of precomputed weighted queries, used instead of the query text (see queryWeights.ts). */
  queryWeights: string | null;
  /** Folder for cached indexes; null = always build in memory. */
  cacheDir: string | null;
  out: string;
  /** Run tag; default: runTag() of the configuration. */
  tag?: string;
  /** A queries file (BEIR JSONL, TSV or TREC topics) whose queries are run instead of those judged in the split. */
  queries?: string;
  /** Where to write until the run is complete; default: a hidden file next to `out`. */
  tmpOut?: string;
  /** The command that asked for the run, for its provenance (e.g. `irw run ...`). */
  command?: string;
  /**
   * Threads that search (and may build the index); default: every core, where the work pays for the threads'
   * start-up (SEARCH_PARALLEL_MIN_WORK). The run is the same whatever the number.
   */
  threads?: number;
}

export type RunPhase = 'hash' | 'load-index' | 'index' | 'save-index' | 'search';

export interface RunProgress {
  phase: RunPhase;
  /** Documents indexed, or queries done; total when known. */
  done: number;
  total?: number;
}

export interface Bm25RunResult {
  out: string;
  tag: string;
  queries: number;
  documents: number;
  lines: number;
  /** Where the index came from. */
  index: 'cache' | 'built';
  cacheFile: string | null;
  /** Why a cache file was rebuilt, when it was. */
  cacheRebuilt: 'absent' | 'corrupt' | null;
  /** Why the rebuilt index could not be kept in the cache (the run itself is unaffected), or null. */
  cacheWarning: string | null;
  millis: { index: number; search: number; total: number };
}

export interface RunHooks {
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
}

/** The run tag names the configuration, e.g. bm25-flat-k1=0.9-b=0.4-removeQuery (no whitespace: TREC). */
export function runTag(r: Pick<Bm25RunRequest, 'fields' | 'k1' | 'b' | 'removeQuery' | 'rm3' | 'queryWeights'>): string {
  let tag = `bm25-${r.fields}-k1=${r.k1}-b=${r.b}`;
  if (r.queryWeights) tag += '-weighted';
  if (r.rm3) tag += `-rm3=${r.rm3.fbTerms},${r.rm3.fbDocs},${r.rm3.originalQueryWeight}`;
  return tag + (r.removeQuery ? '-removeQuery' : '-keepQuery');
}

/** Checks a request's values; returns what is wrong (for a usage error) or null. */
export function checkRequest(r: Bm25RunRequest): string | null {
  if (!(r.k1 >= 0) || !Number.isFinite(r.k1)) return `k1 must be a number >= 0 (got ${r.k1})`;
  if (!(r.b >= 0 && r.b <= 1)) return `b must be between 0 and 1 (got ${r.b})`;
  if (!Number.isInteger(r.topK) || r.topK < 1) return `top-k must be a positive integer (got ${r.topK})`;
  if (r.fields !== 'flat' && r.fields !== 'multifield') return `fields must be flat or multifield (got ${String(r.fields)})`;
  if (r.threads !== undefined && !(Number.isInteger(r.threads) && r.threads >= 1)) return `threads must be a positive integer (got ${r.threads})`;
  if (!/^[^\s/\\]+$/.test(r.split)) return `split must be a plain name such as test (got ${JSON.stringify(r.split)})`;
  if (r.rm3) {
    if (r.fields !== 'flat') return 'RM3 needs a flat index (--fields flat): like Anserini, it reads feedback terms from one contents field';
    const { fbTerms, fbDocs, originalQueryWeight: w } = r.rm3;
    if (!Number.isInteger(fbTerms) || fbTerms < 1 || !Number.isInteger(fbDocs) || fbDocs < 1) return 'RM3 fbTerms and fbDocs must be positive integers';
    if (!(w >= 0 && w <= 1)) return `RM3 originalQueryWeight must be between 0 and 1 (got ${w})`;
  }
  return null;
}

const YIELD_MS = 25;

/** Runs BM25 over a BEIR dataset and writes a TREC run; rejects with AbortError on cancel (no file left). */
export async function runBm25(req: Bm25RunRequest, hooks: RunHooks = {}): Promise<Bm25RunResult> {
  const t0 = performance.now();
  const pool: { value: SearchPool | null } = { value: null };
  try {
    // The search threads start up while the index is built (or loaded).
    const opened = await openBm25(req, hooks, (corpus, queries) => (pool.value = startSearchPool(req, corpus, queries)));
    const t1 = performance.now();
    const { tag, lines } = await writeBm25Run(req, opened.index, opened.qids, opened.queries, opened.provenance, hooks, pool.value);
    const t2 = performance.now();
    return {
      out: req.out,
      tag,
      queries: opened.qids.length,
      documents: opened.index.docIds.length,
      lines,
      index: opened.source,
      cacheFile: opened.file,
      cacheRebuilt: opened.rebuilt,
      cacheWarning: opened.warning,
      millis: { index: t1 - t0, search: t2 - t1, total: t2 - t0 },
    };
  } finally {
    pool.value?.close();
  }
}

/**
 * What a BM25 run over a dataset starts from: its query ids (the split's judged queries in trec_eval order, or
 * the queries file's), their query vectors, the index, and the run's provenance. `beforeIndex` is called once
 * the queries are counted, before the index is built (runBm25 starts its search threads there).
 */
export async function openBm25(req: Omit<Bm25RunRequest, 'out'>, hooks: RunHooks = {}, beforeIndex?: (corpusPath: string, queries: number) => void) {
  // A BEIR folder, or an MS MARCO/TREC-style one (collection.tsv, queries.<split>.tsv or topics, TREC qrels).
  // With --queries, any queries are run and no qrels is needed.
  const files = req.queries ? { corpus: corpusFile(req.dataset), queries: req.queries, qrels: '' } : datasetFiles(req.dataset, req.split);
  // Without a cache the index is built: its worker thread starts up while the queries are read.
  const early = req.cacheDir || req.threads === 1 ? null : startDefaultParallel(files.corpus, req.fields);
  try {
    const { signal } = hooks;
    // Read the small inputs first, so their errors come before a long indexing.
    const qids = req.queries ? [...readQueryFile(req.queries).keys()] : readQrels(files.qrels).queryIds();
    beforeIndex?.(files.corpus, qids.length);
    const analyzer = await createAnalyzer();
    const queries = loadQueries(req, qids, files.qrels, files.queries, analyzer);
    signal?.throwIfAborted();
    // Hashed while the index is built (the cache key's hash is reused when there is one).
    const inputs = startInputs(req, signal);
    const obtained = await obtainIndex(files.corpus, req.fields, req.cacheDir, analyzer, hooks, early);
    return { ...obtained, qids, queries, analyzer, provenance: provenanceOf(req.command, await inputs(obtained.corpusSha256)) };
  } finally {
    early?.close();
  }
}

/**
 * Writes the ranking of every query of `index` with `req`'s settings to `req.out`, with the sidecar of those
 * settings and `provenance`; on `pool`'s threads when there is one (ranked as on one, see ranker.ts). Rejects
 * with AbortError on cancel (no file left).
 */
export async function writeBm25Run(
  req: Bm25RunRequest,
  index: Bm25Index,
  qids: readonly string[],
  queries: readonly QueryVector[],
  provenance: Provenance,
  { signal, onProgress }: RunHooks = {},
  pool: SearchPool | null = null,
): Promise<{ tag: string; lines: number }> {
  const tag = req.tag ?? runTag(req);
  const ranker = new Bm25Ranker(index, req, req.topK, req.removeQuery);
  const writer = new RunWriter(req.out, tag, req.tmpOut, { retriever: 'bm25', ...req, provenance });
  try {
    let lastYield = performance.now();
    const ranking: Ranking = { ids: [], scores: [] };
    const write = async (qi: number, hits: Hits) => {
      const qid = qids[qi];
      ranker.ranking(qid, hits, ranking);
      writer.writeRanking(qid, ranking.ids, ranking.scores);
      if (performance.now() - lastYield > YIELD_MS) {
        onProgress?.({ phase: 'search', done: qi + 1, total: qids.length });
        await yieldToEventLoop();
        signal?.throwIfAborted();
        lastYield = performance.now();
      }
    };
    if (pool) await pool.search(index, { k1: req.k1, b: req.b }, queries.map((q) => resolveQuery(index, q)), req.topK, write);
    else for (let qi = 0; qi < qids.length; qi++) await write(qi, ranker.search(queries[qi]).hits);
    signal?.throwIfAborted();
    writer.commit();
  } catch (e) {
    writer.abort();
    throw e;
  }
  onProgress?.({ phase: 'search', done: qids.length, total: qids.length });
  return { tag, lines: writer.lineCount };
}

/**
 * The run's inputs with their hashes (provenance), started now and finished with the corpus's hash when the
 * index cache computed it. Reading and hashing go on while the index is built.
 */
function startInputs(req: Omit<Bm25RunRequest, 'out'>, signal?: AbortSignal): (corpusSha256?: string) => Promise<Provenance['inputs']> {
  const early = req.cacheDir ? null : datasetInputs(req.dataset, req.split, req.queries, signal);
  const weights = req.queryWeights ? describeFile(req.queryWeights, signal) : null;
  // Awaited below; an early failure must not be an unhandled rejection meanwhile.
  early?.catch(() => undefined);
  weights?.catch(() => undefined);
  return async (corpusSha256) => ({
    ...(await (early ?? datasetInputs(req.dataset, req.split, req.queries, signal, corpusSha256))),
    ...(weights ? { queryWeights: await weights } : {}),
  });
}

/**
 * One query vector per query id: from the weights file, from a queries file's own "weights" (what-if queries
 * saved with term weights), or by analysing the query's text.
 */
function loadQueries(req: Omit<Bm25RunRequest, 'out'>, qids: readonly string[], qrelsPath: string, queriesPath: string, analyzer: Analyzer): QueryVector[] {
  if (req.queryWeights) {
    const weights = readQueryWeights(req.queryWeights);
    return qids.map((qid) => {
      const q = weights.get(qid);
      if (!q) throw missingQuery(qid, req.queryWeights!, qrelsPath);
      return q;
    });
  }
  const texts = req.queries ? readQueryFile(queriesPath) : readDatasetQueries(queriesPath);
  const weighted = req.queries ? readOwnWeights(queriesPath) : new Map<string, QueryVector>();
  return qids.map((qid) => {
    const own = weighted.get(qid);
    if (own) return own;
    const q = texts.get(qid);
    if (!q) throw missingQuery(qid, queriesPath, qrelsPath);
    return bagOfWords(analyzer.analyze(q.text));
  });
}

function missingQuery(qid: string, file: string, qrelsPath: string): InputError {
  return new InputError({
    code: 'unknown-id',
    message: `query ${JSON.stringify(qid)} is judged in ${qrelsPath} but has no line in this file`,
    file,
    hint: 'Add the query, or use a qrels split whose queries are all present.',
  });
}

/**
 * The index of a corpus: from the cache folder when it holds it (else built and saved there), or built in
 * memory without one. `early`: a two-thread build already started (run.ts starts it while reading queries).
 */
export async function obtainIndex(corpusPath: string, fields: FieldsMode, cacheDir: string | null, analyzer: Analyzer, hooks: RunHooks = {}, early?: ParallelBuild | null) {
  if (!cacheDir) {
    return { index: await buildIndex(corpusPath, analyzer, fields, hooks, early), source: 'built' as const, file: null, rebuilt: null, warning: null, corpusSha256: undefined };
  }
  hooks.onProgress?.({ phase: 'hash', done: 0 });
  const corpusSha256 = await hashFile(corpusPath, hooks.signal);
  const key = cacheKey(corpusSha256, analyzer.id, fields);
  const file = cacheFile(cacheDir, key);
  // Only an index that is there is loaded, and said so; without one the index is built (and saved) at once.
  let cached: Bm25Index | CacheMiss = 'absent';
  if (existsSync(file)) {
    hooks.onProgress?.({ phase: 'load-index', done: 0 });
    cached = loadIndex(file, key);
  }
  if (typeof cached !== 'string') return { index: cached, source: 'cache' as const, file, rebuilt: null, warning: null, corpusSha256 };
  const index = await buildIndex(corpusPath, analyzer, fields, hooks);
  hooks.signal?.throwIfAborted();
  hooks.onProgress?.({ phase: 'save-index', done: index.docIds.length });
  let warning: string | null = null;
  try {
    saveIndex(file, key, index);
  } catch (e) {
    // A cache folder that is full, read-only or a file costs the cache, not the run (saveIndex leaves no partial file).
    warning = `the index could not be cached in ${cacheDir} (${(e as Error).message}); the run is written, the index will be built again next time`;
  }
  return { index, source: 'built' as const, file: warning ? null : file, rebuilt: cached, warning, corpusSha256 };
}

/**
 * Streams the corpus into an index; reports progress and notices cancellation between chunks. A plain
 * corpus.jsonl of 1 MiB or more is analysed on two threads where there are two cores (parallelBuild.ts):
 * `parallel` is such a build already started, or null for one thread; by default one is started here.
 */
export async function buildIndex(
  corpusPath: string,
  analyzer: Analyzer,
  fields: FieldsMode,
  { signal, onProgress }: RunHooks = {},
  parallel: ParallelBuild | null = startDefaultParallel(corpusPath, fields),
): Promise<Bm25Index> {
  if (parallel) {
    const index = await parallel.build(analyzer, { signal, onProgress: (done) => onProgress?.({ phase: 'index', done }) });
    if (index) {
      onProgress?.({ phase: 'index', done: index.docIds.length, total: index.docIds.length });
      return index;
    }
  }
  const builder = new IndexBuilder(analyzer, fields);
  let lastReport = performance.now();
  const added = () => {
    if ((builder.size & 1023) === 0 && performance.now() - lastReport > 100) {
      lastReport = performance.now();
      onProgress?.({ phase: 'index', done: builder.size });
    }
  };
  // Ordinary lines are decoded straight from their bytes (corpusLine.ts); any other line is read as always.
  const line = new CorpusLineScanner();
  await forEachDatasetDoc(
    corpusPath,
    (doc) => {
      builder.add(doc.id, doc.title, doc.text);
      added();
    },
    signal,
    {},
    {
      scan: (buf, start, end) => (line.scan(buf, start, end) ? line.id : null),
      add: (id) => {
        builder.addScanned(id, line);
        added();
      },
    },
  );
  onProgress?.({ phase: 'index', done: builder.size, total: builder.size });
  return builder.finish();
}

/**
 * Plain (not gzipped) corpus.jsonl files of at least this size are analysed on two threads. Below it the worker's
 * start-up and its second JIT warm-up cost more than it gains, even on an idle core: a cold SciFact run (8 MB)
 * took 0.43 s with one thread and 0.49 s with two on a quiet machine; SciFact copied 2, 4 and 8 times (16-64 MB),
 * best of 5 at real-time priority: 0.65/0.70, 0.93/0.97, 1.48/1.42 s (one/two threads).
 */
const PARALLEL_MIN_BYTES = 64 << 20;

/**
 * A two-thread build of a plain corpus.jsonl, or null for one thread (the single-threaded reader also reports
 * any problem with the file). Two threads need two cores, the worker's entry and a corpus of PARALLEL_MIN_BYTES.
 * IRW_BM25_THREADS=1 or 2 decides instead.
 */
export function startDefaultParallel(corpusPath: string, fields: FieldsMode): ParallelBuild | null {
  const forced = process.env.IRW_BM25_THREADS;
  if (forced === '1' || !corpusPath.endsWith('.jsonl') || availableParallelism() < 2) return null;
  const entry = analysisWorkerEntry();
  try {
    const size = statSync(corpusPath).size;
    const worthIt = forced === '2' ? size > 0 : size >= PARALLEL_MIN_BYTES;
    return entry && worthIt ? startParallelBuild(corpusPath, fields, { entry }) : null;
  } catch {
    return null;
  }
}

/** The worker's bundle beside this one (dist/), or its source when run from source (tests under tsx). */
export function analysisWorkerEntry(): string | null {
  return [join(__dirname, 'bm25-worker.js'), join(__dirname, 'analysisWorker.ts')].find((p) => existsSync(p)) ?? null;
}

/** The search worker's bundle beside this one (dist/), or its source when run from source (tests under tsx). */
export function searchWorkerEntry(): string | null {
  return [join(__dirname, 'bm25-search.js'), join(__dirname, 'searchWorker.ts')].find((p) => existsSync(p)) ?? null;
}

/**
 * By default, queries are searched on several threads when the corpus's bytes times the queries reach this
 * (1,000 queries over 64 MB, the two-thread build's limit): below it, a worker's start-up and its own JIT warm-up
 * cost about what its share of the search saves (a cold SciFact run searches 300 queries in ~0.1 s on one thread).
 */
const SEARCH_PARALLEL_MIN_WORK = 64e6 * 1000;

/**
 * The pool of search threads for this run, or null for one thread: `threads` as asked, by default every core
 * where the work is large enough. RM3 searches on one thread (its feedback reads the terms, which workers lack).
 */
function startSearchPool(req: Bm25RunRequest, corpusPath: string, queries: number): SearchPool | null {
  if (req.rm3) return null;
  const threads = req.threads ?? availableParallelism();
  if (threads < 2 || queries < 2) return null;
  if (req.threads === undefined) {
    let size: number;
    try {
      size = statSync(corpusPath).size;
    } catch {
      return null;
    }
    if (size * queries < SEARCH_PARALLEL_MIN_WORK) return null;
  }
  const entry = searchWorkerEntry();
  return entry ? new SearchPool(Math.min(threads, queries), entry) : null;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
