import { resolve } from 'node:path';
import { setReadReport } from '../core/formats/beir';
import { checkDataset } from '../core/formats/datasetFolder';
import { checkOutPath } from '../core/formats/runWriter';
import { ProgressReporter } from '../core/progress/reporter';
import { stageOf } from '../core/progress/stages';
import { RM3_DEFAULTS } from '../core/retrieval/bm25/rm3';
import { checkRequest, runBm25, type Bm25RunRequest } from '../core/retrieval/bm25/run';
import { isNeuralJob, runNeuralJob, type NeuralJob, type NeuralProgress } from '../core/retrieval/neuralJob';
import { cliCommand } from '../core/provenance/record';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';
import { NEURAL_HELP, NEURAL_OPTIONS, NEURAL_RETRIEVERS, neuralSummary, parseNeuralJob, type NeuralRetriever } from './neuralRun';
import { stderrReadReport } from './readReport';

const HELP = `usage: irw run --dataset DIR --out FILE [options]

Runs a retriever over a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) and writes a
TREC run. The queries are those judged in qrels/<split>.tsv, as BEIR evaluates. Progress goes to stderr (in a
log or pipe: a line every few seconds with counts, rate and time left). A bad corpus.jsonl or queries.jsonl
line is skipped and reported, with the count; a byte-order mark is ignored and said so.

options:
  --dataset DIR            BEIR dataset folder (required)
  --out FILE               run file to write (required); written only when the run completes
  --split NAME             qrels split whose queries are run (default: test)
  --queries FILE           run the queries of FILE instead (BEIR JSONL, TSV id<TAB>text, or TREC topics;
                           .gz read too); no qrels needed
  --retriever NAME         bm25 (default), dense, rerank or hybrid (options below)
  --k1 X                   BM25 k1 (default 0.9, Anserini's)
  --b X                    BM25 b (default 0.4)
  --fields flat|multifield flat: title + text as one field; multifield: both fields, scores summed (default flat)
  --top-k N                hits per query written (default 1000; bm25, dense, hybrid)
  --tag TAG                run tag (default: named for the configuration, e.g. bm25-flat-k1=0.9-b=0.4-removeQuery)
  --cache DIR              keep the index in DIR and reuse it while the corpus is unchanged (dense and hybrid:
                           the corpus embeddings too, keyed by model and corpus content)
  --no-remove-query        keep a hit whose document id equals the query id (dropped by default, as Anserini)
  --rm3                    RM3 pseudo-relevance feedback (flat index only)
  --fb-terms N             RM3 feedback terms (default 10)
  --fb-docs N              RM3 feedback documents (default 10)
  --original-query-weight X  RM3 weight of the original query (default 0.5)
  --query-weights FILE     JSONL of weighted queries {"_id": ..., "weights": {term: w}} used instead of the text
  --threads N              BM25: threads that search, and may build the index (default: every core, for
                           corpora and query sets large enough to gain from them); the run is the same.
                           dense, rerank, hybrid: onnxruntime threads (default: all cores)

${NEURAL_HELP}
An option that has no effect with the chosen --retriever is refused, saying which retrievers use it.
Ctrl-C stops the run (exit code 3) and leaves no partial run file.
`;

type Retriever = 'bm25' | NeuralRetriever;

/**
 * Options that only some retrievers use, and why: given with another retriever they would do nothing, so they
 * are refused (one table for every mode; the fusion options are checked against --method in fuse.ts).
 */
const APPLIES: [option: string, retrievers: readonly Retriever[], why: string][] = [
  ...(['k1', 'b', 'fields', 'query-weights'] as const).map((o) => [o, ['bm25', 'hybrid'], 'it is a BM25 option'] as [string, Retriever[], string]),
  ...(['rm3', 'fb-terms', 'fb-docs', 'original-query-weight'] as const).map((o) => [o, ['bm25', 'hybrid'], 'RM3 expands BM25 queries'] as [string, Retriever[], string]),
  ['model', ['dense', 'rerank', 'hybrid'], 'only neural retrievers use a model'],
  ['batch-size', ['dense', 'rerank', 'hybrid'], 'only neural retrievers run model batches'],
  ['similarity', ['dense', 'hybrid'], 'only bi-encoders compare embeddings'],
  ['first-stage', ['rerank'], 'only re-ranking reads a first-stage run'],
  ['queries', ['bm25', 'dense', 'hybrid'], 're-ranking takes its queries from the first-stage run and the split'],
  ['rerank-depth', ['rerank'], 'only re-ranking has a depth to re-rank'],
  ['top-k', ['bm25', 'dense', 'hybrid'], 're-ranking writes --rerank-depth results per query'],
  ['cache', ['bm25', 'dense', 'hybrid'], 're-ranking keeps no index or embeddings'],
  ['no-remove-query', ['bm25', 'dense', 'hybrid'], 're-ranking keeps the first-stage documents as they are'],
  ...(['bm25-depth', 'dense-depth', 'norm', 'method', 'weights', 'rrf-k'] as const).map((o) => [o, ['hybrid'], 'only hybrid fuses two rankings'] as [string, Retriever[], string]),
  ...(['doc-embeddings', 'doc-ids', 'query-embeddings', 'query-ids'] as const).map((o) => [o, ['dense'], 'only dense retrieval searches embeddings made elsewhere'] as [string, Retriever[], string]),
];

function checkApplicable(retriever: Retriever, values: Record<string, unknown>): void {
  for (const [option, retrievers, why] of APPLIES) {
    if (values[option] !== undefined && !retrievers.includes(retriever)) {
      throw new UsageError(`--${option} has no effect with --retriever ${retriever}: ${why} (it applies to --retriever ${retrievers.join(', ')})`);
    }
  }
}

function num(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x)) throw new UsageError(`--${name} needs a number, got '${v}'`);
  return x;
}

/** Parses `irw run` arguments into a request; throws UsageError on anything wrong. */
export function parseRunArgs(argv: string[]): Bm25RunRequest | NeuralJob | 'help' {
  const { values } = parseCommandArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      dataset: { type: 'string' },
      out: { type: 'string' },
      split: { type: 'string' },
      queries: { type: 'string' },
      retriever: { type: 'string', default: 'bm25' },
      k1: { type: 'string' },
      b: { type: 'string' },
      fields: { type: 'string' },
      'top-k': { type: 'string' },
      tag: { type: 'string' },
      cache: { type: 'string' },
      'no-remove-query': { type: 'boolean' },
      rm3: { type: 'boolean' },
      'fb-terms': { type: 'string' },
      'fb-docs': { type: 'string' },
      'original-query-weight': { type: 'string' },
      'query-weights': { type: 'string' },
      ...NEURAL_OPTIONS,
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (!values.dataset) throw new UsageError('--dataset DIR is required');
  if (!values.out) throw new UsageError('--out FILE is required');
  const neural = NEURAL_RETRIEVERS.includes(values.retriever as NeuralRetriever);
  if (values.retriever !== 'bm25' && !neural) throw new UsageError(`unknown retriever '${values.retriever}' (available: bm25, ${NEURAL_RETRIEVERS.join(', ')})`);
  checkApplicable(values.retriever as Retriever, values);
  if (values.tag !== undefined && (/\s/.test(values.tag) || values.tag === '')) throw new UsageError('--tag must be non-empty, without whitespace');
  const rm3Opts = values['fb-terms'] ?? values['fb-docs'] ?? values['original-query-weight'];
  if (rm3Opts !== undefined && !values.rm3) throw new UsageError('--fb-terms, --fb-docs and --original-query-weight need --rm3');
  const req: Bm25RunRequest = {
    dataset: resolve(values.dataset),
    split: values.split ?? 'test',
    k1: num('k1', values.k1, 0.9),
    b: num('b', values.b, 0.4),
    fields: (values.fields ?? 'flat') as Bm25RunRequest['fields'],
    topK: num('top-k', values['top-k'], 1000),
    removeQuery: !values['no-remove-query'],
    rm3: values.rm3
      ? {
          fbTerms: num('fb-terms', values['fb-terms'], RM3_DEFAULTS.fbTerms),
          fbDocs: num('fb-docs', values['fb-docs'], RM3_DEFAULTS.fbDocs),
          originalQueryWeight: num('original-query-weight', values['original-query-weight'], RM3_DEFAULTS.originalQueryWeight),
        }
      : null,
    queryWeights: values['query-weights'] ? resolve(values['query-weights']) : null,
    cacheDir: values.cache ? resolve(values.cache) : null,
    out: resolve(values.out),
    ...(values.tag !== undefined ? { tag: values.tag } : {}),
    ...(values.queries !== undefined ? { queries: resolve(values.queries) } : {}),
    ...(values.threads !== undefined && !neural ? { threads: num('threads', values.threads, 0) } : {}),
  };
  if (values.queries !== undefined && values.split !== undefined) throw new UsageError('--split has no effect with --queries: the queries come from the file, not from a split (drop one)');
  const problem = checkRequest(req);
  if (problem) throw new UsageError(problem);
  if (neural) return parseNeuralJob(values.retriever as NeuralRetriever, values, req);
  return req;
}

export const runCommand: Command = {
  cancellable: true,
  async run(argv, signal) {
    const req = parseRunArgs(argv);
    if (req === 'help') {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    // Runs in this process (no second Node start-up); the editor uses the child process in src/runner/.
    const target = isNeuralJob(req) ? req.request : req;
    target.command = cliCommand(['run', ...argv]);
    const progress = new ProgressReporter(process.stderr);
    const onProgress = (p: NeuralProgress) => {
      const stage = stageOf(p);
      progress.update(stage.label, p.done, p.total, stage.unit);
    };
    const previousReport = setReadReport(stderrReadReport('irw run', () => progress.stop()));
    try {
      checkOutPath(target.out);
      if ('dataset' in target) checkDataset(target.dataset, target.split, 'queries' in target ? target.queries : undefined);
      signal.throwIfAborted();
      if (isNeuralJob(req)) {
        const n = await runNeuralJob(req, { signal, onProgress });
        progress.stop();
        process.stderr.write(neuralSummary(n));
        return EXIT.ok;
      }
      const r = await runBm25(req, { signal, onProgress });
      progress.stop();
      process.stderr.write(
        `wrote ${r.out}: ${r.queries} queries, ${r.lines} lines, tag ${r.tag}; ` +
          `index ${r.index === 'cache' ? 'from cache' : 'built'} in ${Math.round(r.millis.index)} ms, ` +
          `search ${Math.round(r.millis.search)} ms\n`,
      );
      if (r.cacheWarning) process.stderr.write(`irw run: warning: ${r.cacheWarning}\n`);
      return EXIT.ok;
    } catch (e) {
      progress.stop();
      if (signal.aborted) {
        process.stderr.write('irw run: cancelled; no run file written\n');
        return EXIT.cancelled;
      }
      throw e;
    } finally {
      setReadReport(previousReport);
    }
  },
};
