import { resolve } from 'node:path';
import { MeasureSpecError } from '../core/eval';
import { PAIRED_TESTS } from '../core/eval/stats';
import { checkDataset } from '../core/formats/datasetFolder';
import { checkOutPath } from '../core/formats/runWriter';
import { ProgressReporter } from '../core/progress/reporter';
import { stageOf } from '../core/progress/stages';
import { cliCommand } from '../core/provenance/record';
import { RM3_DEFAULTS } from '../core/retrieval/bm25/rm3';
import { METHODS, type Method } from '../core/retrieval/fusion/fuse';
import { NORMALIZATIONS, type Normalization } from '../core/retrieval/fusion/normalize';
import { FUSION_DEFAULTS } from '../core/retrieval/fusion/run';
import type { Bm25Grid } from '../core/tune/bm25Grid';
import type { FusionGrid } from '../core/tune/fusionGrid';
import { overfitWarning, renderTune } from '../core/tune/report';
import { TUNE_DEFAULTS, tuneBm25, tuneFusion, type TuneOptions, type TuneReport } from '../core/tune/tune';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';

const HELP = `usage: irw tune --dataset DIR [BM25 grid] [options]
       irw tune --qrels FILE RUN RUN... [fusion grid] [options]

Tunes BM25 (k1, b, RM3) over a dataset, or the fusion of runs (normalization, method, weights), on one
measure, with honest validation: k-fold cross-validation over the queries (seeded). For each fold, the setting
best on the other folds is scored on that fold, unseen. The report gives each fold's choice, the held-out
score per fold, the mean held-out gain over the defaults (BM25 k1 0.9 b 0.4; fusion min-max arithmetic, equal
weights) with a paired bootstrap 95% interval and a paired test, and warns when the gain on the tuning folds
lies above that interval (the grid fits the tuning queries' noise). With --out, the setting best on all queries
is written as a run whose sidecar records the tuning, the qrels used, and whether they were the test split's.

BM25 grid (a LIST is comma-separated values, or FROM:TO:STEP):
  --k1 LIST                 default 0.9 (e.g. 0.5:1.5:0.1)
  --b LIST                  default 0.4 (e.g. 0.2:1.0:0.1)
  --rm3                     tune RM3 too, over:
  --fb-terms LIST           default 10
  --fb-docs LIST            default 10
  --original-query-weight LIST   default 0.5
  --split NAME              qrels split tuned on (default test: then say so when you report it)
  --fields, --top-k, --cache, --no-remove-query   as irw run

fusion grid (runs in order; weights share: the last run's part of the weight, two runs only):
  --norm LIST               default min-max (none, min-max, max, sum, l2, z-score, rank)
  --method LIST             default arithmetic (arithmetic, geometric, harmonic, linear, combsum, combmnz, rrf)
  --weight-share LIST       e.g. 0:1:0.1 for weights (1-s, s); default equal weights
  --rrf-k LIST              default 60
  --depth N[,N...], --top-k N   as irw fuse

options:
  -m, --measure M           the measure tuned, one trec_eval value (default ${TUNE_DEFAULTS.measure})
  -l N                      lowest grade counted as relevant (default 1)
  --folds K                 cross-validation folds (default ${TUNE_DEFAULTS.folds})
  --seed S                  seeds the folds, the bootstrap and the randomization test (default ${TUNE_DEFAULTS.seed})
  --test NAME               paired test: ${Object.keys(PAIRED_TESTS).join(', ')} (default t)
  --resamples N             bootstrap resamples (default ${TUNE_DEFAULTS.resamples})
  --out FILE                write the tuned run (chosen on all queries)
  --tag TAG                 its run tag
  --format F                text (default) or json
`;

/** A LIST option: "a,b,c" or "from:to:step" (inclusive, rounded to 10 decimals). */
export function parseList(name: string, v: string | undefined, dflt: number[]): number[] {
  if (v === undefined) return dflt;
  const range = /^\s*(-?[\d.]+)\s*:\s*(-?[\d.]+)\s*:\s*([\d.]+)\s*$/.exec(v);
  if (range) {
    const [from, to, step] = range.slice(1).map(Number);
    if (!(step > 0) || !(to >= from)) throw new UsageError(`--${name} ${v}: FROM:TO:STEP needs TO >= FROM and STEP > 0`);
    const n = Math.floor((to - from) / step + 1e-9);
    return Array.from({ length: n + 1 }, (_, i) => Number((from + i * step).toFixed(10)));
  }
  const parts = v.split(',');
  const xs = parts.map(Number);
  if (parts.some((p) => p.trim() === '') || xs.some((x) => !Number.isFinite(x))) throw new UsageError(`--${name} needs numbers (a,b,c or FROM:TO:STEP), got '${v}'`);
  return xs;
}

function names<T extends string>(name: string, v: string | undefined, allowed: readonly T[], dflt: T[]): T[] {
  if (v === undefined) return dflt;
  const xs = v.split(',').map((s) => s.trim());
  for (const x of xs) if (!allowed.includes(x as T)) throw new UsageError(`unknown --${name} '${x}' (available: ${allowed.join(', ')})`);
  return xs as T[];
}

function int(name: string, v: string | undefined, dflt: number, min: number): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (!Number.isInteger(x) || x < min) throw new UsageError(`--${name} needs an integer >= ${min}, got '${v}'`);
  return x;
}

export const tuneCommand: Command = {
  cancellable: true,
  async run(argv, signal) {
    const { values, positionals } = parseCommandArgs({
      args: argv,
      allowPositionals: true,
      options: {
        dataset: { type: 'string' },
        qrels: { type: 'string' },
        split: { type: 'string' },
        k1: { type: 'string' },
        b: { type: 'string' },
        rm3: { type: 'boolean' },
        'fb-terms': { type: 'string' },
        'fb-docs': { type: 'string' },
        'original-query-weight': { type: 'string' },
        fields: { type: 'string' },
        'top-k': { type: 'string' },
        cache: { type: 'string' },
        'no-remove-query': { type: 'boolean' },
        norm: { type: 'string' },
        method: { type: 'string' },
        'weight-share': { type: 'string' },
        'rrf-k': { type: 'string' },
        depth: { type: 'string' },
        measure: { type: 'string', short: 'm' },
        l: { type: 'string' },
        folds: { type: 'string' },
        seed: { type: 'string' },
        test: { type: 'string' },
        resamples: { type: 'string' },
        out: { type: 'string' },
        tag: { type: 'string' },
        format: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    const format = values.format ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(`unknown --format '${format}' (available: text, json)`);
    const fusion = positionals.length > 0;
    if (fusion === Boolean(values.dataset)) throw new UsageError('give either --dataset DIR (tune BM25) or --qrels FILE and two or more RUN files (tune their fusion)');
    const options: TuneOptions = {
      measure: values.measure ?? TUNE_DEFAULTS.measure,
      folds: int('folds', values.folds, TUNE_DEFAULTS.folds, 2),
      seed: int('seed', values.seed, TUNE_DEFAULTS.seed, 0),
      relevanceLevel: int('l', values.l, TUNE_DEFAULTS.relevanceLevel, 1),
      resamples: int('resamples', values.resamples, TUNE_DEFAULTS.resamples, 1),
      test: values.test ?? TUNE_DEFAULTS.test,
    };
    if (!PAIRED_TESTS[options.test]) throw new UsageError(`unknown --test '${options.test}' (available: ${Object.keys(PAIRED_TESTS).join(', ')})`);
    if (values.tag !== undefined && (/\s/.test(values.tag) || values.tag === '')) throw new UsageError('--tag must be non-empty, without whitespace');
    const out = values.out === undefined ? null : resolve(values.out);
    if (out) checkOutPath(out);
    const common = { ...options, out, command: cliCommand(['tune', ...argv]), ...(values.tag ? { tag: values.tag } : {}) };
    const progress = new ProgressReporter(process.stderr);
    const onProgress = (p: { phase: string; done: number; total?: number }) => {
      const stage = stageOf(p);
      progress.update(p.phase === 'search' ? 'writing the tuned run' : stage.label, p.done, p.total, stage.unit);
    };
    let report: TuneReport;
    try {
      if (fusion) {
        const bm25Only = ['k1', 'b', 'rm3', 'fb-terms', 'fb-docs', 'original-query-weight', 'fields', 'cache', 'no-remove-query', 'split'].filter((o) => values[o as keyof typeof values] !== undefined);
        if (bm25Only.length) throw new UsageError(`--${bm25Only[0]} has no effect when tuning a fusion (it is a BM25 option)`);
        if (!values.qrels) throw new UsageError('tuning a fusion needs --qrels FILE (the judgements it is tuned on)');
        if (positionals.length < 2) throw new UsageError('tuning a fusion needs two or more RUN files');
        const methods = names('method', values.method, METHODS, [FUSION_DEFAULTS.method]);
        const grid: FusionGrid = {
          norm: names('norm', values.norm, NORMALIZATIONS, [FUSION_DEFAULTS.norm]) as Normalization[],
          method: methods as Method[],
          share: values['weight-share'] === undefined ? null : parseList('weight-share', values['weight-share'], []),
          rrfK: parseList('rrf-k', values['rrf-k'], [FUSION_DEFAULTS.rrfK]),
        };
        if (grid.share?.some((s) => s < 0 || s > 1)) throw new UsageError('--weight-share values must be between 0 and 1');
        if (grid.share && positionals.length !== 2) throw new UsageError('--weight-share applies to two runs');
        report = await tuneFusion(
          { ...common, runs: positionals.map((p) => resolve(p)), qrels: resolve(values.qrels), grid, depth: values.depth === undefined ? null : parseList('depth', values.depth, []), topK: int('top-k', values['top-k'], FUSION_DEFAULTS.topK, 1) },
          { signal, onProgress },
        );
      } else {
        const fusionOnly = ['norm', 'method', 'weight-share', 'rrf-k', 'depth', 'qrels'].filter((o) => values[o as keyof typeof values] !== undefined);
        if (fusionOnly.length) throw new UsageError(`--${fusionOnly[0]} has no effect when tuning BM25 (it is a fusion option)`);
        const rm3Opts = values['fb-terms'] ?? values['fb-docs'] ?? values['original-query-weight'];
        if (rm3Opts !== undefined && !values.rm3) throw new UsageError('--fb-terms, --fb-docs and --original-query-weight need --rm3');
        const fields = values.fields ?? 'flat';
        if (fields !== 'flat' && fields !== 'multifield') throw new UsageError(`--fields must be flat or multifield (got ${fields})`);
        if (values.rm3 && fields !== 'flat') throw new UsageError('RM3 needs a flat index (--fields flat)');
        const grid: Bm25Grid = {
          k1: parseList('k1', values.k1, [0.9]),
          b: parseList('b', values.b, [0.4]),
          rm3: values.rm3
            ? {
                fbTerms: parseList('fb-terms', values['fb-terms'], [RM3_DEFAULTS.fbTerms]),
                fbDocs: parseList('fb-docs', values['fb-docs'], [RM3_DEFAULTS.fbDocs]),
                originalQueryWeight: parseList('original-query-weight', values['original-query-weight'], [RM3_DEFAULTS.originalQueryWeight]),
              }
            : null,
        };
        if (grid.k1.some((x) => x < 0) || grid.b.some((x) => x < 0 || x > 1)) throw new UsageError('k1 must be >= 0 and b between 0 and 1');
        const dataset = resolve(values.dataset!);
        const split = values.split ?? 'test';
        checkDataset(dataset, split);
        report = await tuneBm25(
          {
            ...common,
            dataset,
            split,
            fields,
            topK: int('top-k', values['top-k'], 1000, 1),
            removeQuery: !values['no-remove-query'],
            cacheDir: values.cache ? resolve(values.cache) : null,
            grid,
          },
          { signal, onProgress },
        );
      }
    } catch (e) {
      progress.stop();
      if (signal.aborted) {
        process.stderr.write('irw tune: cancelled; no run file written\n');
        return EXIT.cancelled;
      }
      if (e instanceof MeasureSpecError || (e instanceof Error && /tuning optimizes one value|folds|cannot make/.test(e.message))) throw new UsageError(e.message);
      throw e;
    }
    progress.stop();
    process.stdout.write(format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : renderTune(report));
    if (report.cv.overfit) process.stderr.write(`irw tune: warning: ${overfitWarning(report)}\n`);
    if (report.onTestSplit && report.tuned) process.stderr.write(`irw tune: warning: ${report.tuned.out} was tuned on the ${report.split} split: its figures there are not held out (its sidecar says so)\n`);
    return EXIT.ok;
  },
};

