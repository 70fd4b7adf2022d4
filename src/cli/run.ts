import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { RM3_DEFAULTS } from '../core/retrieval/bm25/rm3';
import { checkRequest, runBm25, type Bm25RunRequest } from '../core/retrieval/bm25/run';
import { isNeuralJob, runNeuralJob, type NeuralJob, type NeuralProgress } from '../core/retrieval/neuralJob';
import { EXIT, UsageError, type Command } from './common';
import { NEURAL_HELP, NEURAL_OPTIONS, NEURAL_RETRIEVERS, neuralSummary, parseNeuralJob, type NeuralRetriever } from './neuralRun';

const HELP = `usage: irw run --dataset DIR --out FILE [options]

Runs a retriever over a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) and writes a
TREC run. The queries are those judged in qrels/<split>.tsv, as BEIR evaluates. Progress goes to stderr.

options:
  --dataset DIR            BEIR dataset folder (required)
  --out FILE               run file to write (required); written only when the run completes
  --split NAME             qrels split whose queries are run (default: test)
  --retriever NAME         bm25 (default), dense, rerank or hybrid (options below)
  --k1 X                   BM25 k1 (default 0.9, Anserini's)
  --b X                    BM25 b (default 0.4)
  --fields flat|multifield flat: title + text as one field; multifield: both fields, scores summed (default flat)
  --top-k N                hits per query (default 1000)
  --cache DIR              keep the index in DIR and reuse it while the corpus is unchanged
  --no-remove-query        keep a hit whose document id equals the query id (dropped by default, as Anserini)
  --rm3                    RM3 pseudo-relevance feedback (flat index only)
  --fb-terms N             RM3 feedback terms (default 10)
  --fb-docs N              RM3 feedback documents (default 10)
  --original-query-weight X  RM3 weight of the original query (default 0.5)
  --query-weights FILE     JSONL of weighted queries {"_id": ..., "weights": {term: w}} used instead of the text

${NEURAL_HELP}
Ctrl-C stops the run (exit code 3) and leaves no partial run file.
`;

function num(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x)) throw new UsageError(`--${name} needs a number, got '${v}'`);
  return x;
}

/** Parses `irw run` arguments into a request; throws UsageError on anything wrong. */
export function parseRunArgs(argv: string[]): Bm25RunRequest | NeuralJob | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        dataset: { type: 'string' },
        out: { type: 'string' },
        split: { type: 'string', default: 'test' },
        retriever: { type: 'string', default: 'bm25' },
        k1: { type: 'string' },
        b: { type: 'string' },
        fields: { type: 'string', default: 'flat' },
        'top-k': { type: 'string' },
        cache: { type: 'string' },
        'no-remove-query': { type: 'boolean', default: false },
        rm3: { type: 'boolean', default: false },
        'fb-terms': { type: 'string' },
        'fb-docs': { type: 'string' },
        'original-query-weight': { type: 'string' },
        'query-weights': { type: 'string' },
        ...NEURAL_OPTIONS,
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  if (!values.dataset) throw new UsageError('--dataset DIR is required');
  if (!values.out) throw new UsageError('--out FILE is required');
  const neural = NEURAL_RETRIEVERS.includes(values.retriever as NeuralRetriever);
  if (values.retriever !== 'bm25' && !neural) throw new UsageError(`unknown retriever '${values.retriever}' (available: bm25, ${NEURAL_RETRIEVERS.join(', ')})`);
  const rm3Opts = values['fb-terms'] ?? values['fb-docs'] ?? values['original-query-weight'];
  if (rm3Opts !== undefined && !values.rm3) throw new UsageError('--fb-terms, --fb-docs and --original-query-weight need --rm3');
  const req: Bm25RunRequest = {
    dataset: resolve(values.dataset),
    split: values.split,
    k1: num('k1', values.k1, 0.9),
    b: num('b', values.b, 0.4),
    fields: values.fields as Bm25RunRequest['fields'],
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
  };
  const problem = checkRequest(req);
  if (problem) throw new UsageError(problem);
  if (neural) return parseNeuralJob(values.retriever as NeuralRetriever, values, req);
  return req;
}

/** Progress as one updating line on a terminal, or a line per phase when stderr is a file or pipe. */
function progressPrinter(): (p: NeuralProgress) => void {
  const tty = process.stderr.isTTY;
  let lastPhase = '';
  return (p) => {
    const text = `${p.retriever ? `${p.retriever} ` : ''}${p.phase}: ${p.done}${p.total !== undefined ? `/${p.total}` : ''}`;
    if (tty) process.stderr.write(`\r\x1b[K${text}`);
    else if (p.phase !== lastPhase || (p.total !== undefined && p.done === p.total)) process.stderr.write(`${text}\n`);
    lastPhase = p.phase;
  };
}

export const runCommand: Command = {
  summary: 'run BM25, dense, re-rank or hybrid retrieval over a BEIR dataset and write a TREC run',
  async run(argv) {
    const req = parseRunArgs(argv);
    if (req === 'help') {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    // Runs in this process (no second Node start-up); the editor uses the child process in src/runner/.
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      if (isNeuralJob(req)) {
        const n = await runNeuralJob(req, { signal: controller.signal, onProgress: progressPrinter() });
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
        process.stderr.write(neuralSummary(n));
        return EXIT.ok;
      }
      const r = await runBm25(req, { signal: controller.signal, onProgress: progressPrinter() });
      if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
      process.stderr.write(
        `wrote ${r.out}: ${r.queries} queries, ${r.lines} lines, tag ${r.tag}; ` +
          `index ${r.index === 'cache' ? 'from cache' : 'built'} in ${Math.round(r.millis.index)} ms, ` +
          `search ${Math.round(r.millis.search)} ms\n`,
      );
      if (r.cacheWarning) process.stderr.write(`irw run: warning: ${r.cacheWarning}\n`);
      return EXIT.ok;
    } catch (e) {
      if (controller.signal.aborted) {
        process.stderr.write('\nirw run: cancelled; no run file written\n');
        return EXIT.cancelled;
      }
      throw e;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
