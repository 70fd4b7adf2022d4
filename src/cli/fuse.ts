import { resolve } from 'node:path';
import { METHODS, type Method } from '../core/retrieval/fusion/fuse';
import { NORMALIZATIONS, type Normalization } from '../core/retrieval/fusion/normalize';
import { FUSION_DEFAULTS, checkFusion, runFuse, type FusionSpec } from '../core/retrieval/fusion/run';
import { checkOutPath } from '../core/formats/runWriter';
import { ProgressReporter } from '../core/progress/reporter';
import { stageOf } from '../core/progress/stages';
import { cliCommand } from '../core/provenance/record';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';

const HELP = `usage: irw fuse RUN RUN... --out FILE [options]

Fuses two or more TREC runs (ours or imported) into one. Per query, each run's first results are
normalized, then combined; a document missing from a run counts 0 for it.

options:
  --out FILE        fused run to write (required); written only when complete
  --norm NAME       normalization (default min-max):
                      none, min-max (x-min)/(max-min), max x/max, sum (x-min)/sum(x-min),
                      l2 x/||x||, z-score (x-mean)/std, rank 1-(r-1)/n
  --method NAME     combination (default arithmetic):
                      arithmetic sum(w s)/sum(w), geometric, harmonic (weighted means),
                      linear sum(w s) (the OpenSearch study's b + f*n is --weights 1,f),
                      combsum, combmnz (combsum x runs containing the document),
                      rrf sum(w/(k+rank)), ranks 1-based (refuses --norm: ranks have no scale)
  --weights W,W...  one weight per run (default all 1)
  --depth N[,N...]  results used from each run per query: one for all, or one per run
                    (default all; the study used --depth 9999,250 for BM25,dense)
  --rrf-k K         RRF's k (default 60; --method rrf only)
  --top-k N         results kept per query (default 1000)
  --tag TAG         run tag (default fused-<norm>-<method> or fused-rrf<k>)

Ranks are positions in trec_eval's order (score descending, ties by docid descending); the rank column
of the inputs is ignored, as trec_eval ignores it. A score of inf or -inf ranks first or last in its run, as
in trec_eval, and normalizes like a score one span above (below) the run's finite ones. Fused scores are
written so that trec_eval, which reads them as 32-bit floats, ranks each query's lines in the fused order:
6 decimals, or more digits where 6 would tie neighbours that fusion told apart. An option that has no effect
with the chosen --method is refused.
`;

function numbers(name: string, v: string | undefined): number[] | null {
  if (v === undefined) return null;
  const parts = v.split(',');
  const xs = parts.map(Number);
  if (parts.some((p) => p.trim() === '') || xs.some((x) => !Number.isFinite(x))) {
    throw new UsageError(`--${name} needs comma-separated numbers, got '${v}'`);
  }
  return xs;
}

function single(name: string, v: string | undefined, dflt: number): number {
  const xs = numbers(name, v);
  if (xs && xs.length !== 1) throw new UsageError(`--${name} needs one number, got '${v}'`);
  return xs ? xs[0] : dflt;
}

/** Parses the fusion options shared by `irw fuse` and `irw run --retriever hybrid`. */
export function parseFusion(values: Record<string, string | boolean | undefined>, runs: number): FusionSpec {
  const norm = (values.norm as string | undefined) ?? FUSION_DEFAULTS.norm;
  const method = (values.method as string | undefined) ?? FUSION_DEFAULTS.method;
  if (!METHODS.includes(method as Method)) throw new UsageError(`unknown --method '${method}' (available: ${METHODS.join(', ')})`);
  if (!NORMALIZATIONS.includes(norm as Normalization)) throw new UsageError(`unknown --norm '${norm}' (available: ${NORMALIZATIONS.join(', ')})`);
  if (method === 'rrf' && values.norm !== undefined) throw new UsageError('--norm has no effect with --method rrf: rrf fuses ranks, not scores (drop --norm)');
  if (method !== 'rrf' && values['rrf-k'] !== undefined) throw new UsageError(`--rrf-k has no effect with --method ${method}: only rrf has a k (drop --rrf-k)`);
  const spec: FusionSpec = {
    method: method as Method,
    norm: norm as Normalization,
    weights: numbers('weights', values.weights as string | undefined),
    depth: numbers('depth', values.depth as string | undefined),
    rrfK: single('rrf-k', values['rrf-k'] as string | undefined, FUSION_DEFAULTS.rrfK),
    topK: single('top-k', values['top-k'] as string | undefined, FUSION_DEFAULTS.topK),
  };
  const problem = checkFusion(spec, runs);
  if (problem) throw new UsageError(problem);
  return spec;
}

export const FUSION_OPTIONS = {
  norm: { type: 'string' },
  method: { type: 'string' },
  weights: { type: 'string' },
  'rrf-k': { type: 'string' },
} as const;

export const fuseCommand: Command = {
  async run(argv) {
    const { values, positionals } = parseCommandArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        ...FUSION_OPTIONS,
        out: { type: 'string' },
        depth: { type: 'string' },
        'top-k': { type: 'string' },
        tag: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    if (!values.out) throw new UsageError('--out FILE is required');
    if (values.tag !== undefined && (/\s/.test(values.tag) || values.tag === '')) throw new UsageError('--tag must be non-empty, without whitespace');
    const fusion = parseFusion(values, positionals.length);
    checkOutPath(resolve(values.out));
    // One step (reading, fusing and writing are quick and synchronous): its name, as every command shows progress.
    const progress = new ProgressReporter(process.stderr);
    progress.update(`${stageOf({ phase: 'read-runs' }).label} and ${stageOf({ phase: 'fuse' }).label}`, 0);
    let r;
    try {
      r = await runFuse({ runs: positionals.map((p) => resolve(p)), fusion, tag: values.tag ?? null, out: resolve(values.out), command: cliCommand(['fuse', ...argv]) });
    } finally {
      progress.stop();
    }
    process.stderr.write(
      `wrote ${r.out}: ${r.queries} queries, ${r.lines} lines, tag ${r.tag}; read ${Math.round(r.millis.read)} ms, fused ${Math.round(r.millis.fuse)} ms\n`,
    );
    return EXIT.ok;
  },
};
