import { readQrels, readQrelsJg, type JudgmentGroups, type Qrels } from '../core/formats/qrels';
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { encodeId } from '../core/formats/idTable';
import { join } from 'node:path';
import { startRunRead } from '../core/formats/runInParallel';
import { readRun, type Run } from '../core/formats/run';
import { isInputError } from '../core/formats/errors';
import { visibleControls } from '../core/formats/lines';
import { evaluate, FAMILIES, formatRow, formatTrecEval, MeasureSpecError, NICKNAMES, resolveMeasures, resultRows, type EvalResult } from '../core/eval';
import { readZScores, type ZScores } from '../core/eval/zscores';
import { readPrefs, readQrelsPrefs, type PrefsQrels } from '../core/eval/prefs';
import { checkCoverage } from '../core/eval/coverage';
import { EXIT, UsageError, type Command } from './common';
import { io } from './io';
import { csvField } from '../core/formats/csv';
import { didYouMean } from '../core/nearest';

const HELP = `usage: irw eval [-q] [-c] [-J] [-n] [-l N] [-M N] [-N N] [-Z FILE] [-R qrels_jg|qrels_prefs|prefs] [--trec-eval 9|10] [-m measure[.params]]... [--format text|json|csv] QRELS RUN [RUN|FOLDER]...

Evaluates a TREC run against qrels and prints exactly what trec_eval 9.0.8 prints.

  QRELS   TREC qrels (qid iter docid grade) or BEIR qrels (query-id corpus-id score, header, CRLF ok)
  RUN     TREC run (qid Q0 docid rank score tag; spaces or TABs)
          either may be gzip-compressed, or - for standard input
  several RUNs, or a FOLDER (its files, in name order; hidden files, .json sidecars and .md notes skipped): each run
          against the qrels read once; per run, what trec_eval prints for it, its runid line first with the
          run's file name in place of its tag (a bad run is reported on stderr, the others still printed, exit 1)

  --format F  text (default: trec_eval's lines), json (one object per run: run, tag, measures and, with -q,
              queries) or csv (one long table: run,tag,query,measure,value, query 'all' for the summary)

options (trec_eval's):
  -q          also print each query's values
  -c          average over all queries in the qrels; queries missing from the run score 0
  -l N        lowest grade counted as relevant (default 1)
  -M N        evaluate only the top N documents of each query
  -J          judged documents only: drop documents not judged for the query from each ranking (after -M)
  -n          no summary: only the per-query values (with -q)
  -o          accepted and ignored (obsolete in trec_eval)
  -v          print the trec_eval version followed and exit
  -N N        number of documents in the collection (utility's last coefficient)
  -Z FILE     print z-scores instead of values: FILE has lines "qid measure mean stddev" (measure as
              printed, e.g. P_10); a query or measure not in FILE gives -1000000, as in trec_eval
  -T FORMAT   results format: only trec_results (trec_eval's only one)
  -R FORMAT   relevance format: qrels (default), qrels_jg (column 2 names a judgment group, e.g. an
              assessor; for -m qrels_jg: map_avgjg, P_avgjg, Rprec_mult_avgjg) or qrels_prefs (qrels
              read as preferences within each judgment group; for -m all_prefs / -m prefs) or prefs
              (lines "qid jg jsg docid rel_level": sub-groups combined transitively)
  -m MEASURE  measure or nickname, with optional parameters: -m ndcg_cut.10,100 -m official
              (repeatable; as in trec_eval, only the first -m's parameters for a measure are used)
  --trec-eval 10
              rank on scores read as doubles, as trec_eval 10.0 does (default 9: as trec_eval 9.0.8, which
              reads scores into a C float, so scores equal as float32 tie and are ordered by docno)
  -h, --help  this help; with -m MEASURE, what that measure is (as trec_eval -h -m)

${measureList()}

Ranking follows trec_eval: by score descending, ties by docid descending (byte order); the rank column
is ignored. Negative grades are pooled-but-unjudged (gain 0). nDCG gain is the grade (linear).

On a terminal, control characters in ids, tags and file names are shown as visible symbols (␛ for ESC);
into a file or pipe the bytes are trec_eval's.

exit codes: 0 ok, 1 bad input (file, line and what to do are printed), 2 usage error.
`;

/** The options irw eval takes (for "did you mean"). */
const OPTIONS = ['-q', '-c', '-J', '-n', '-o', '-v', '-l', '-M', '-N', '-Z', '-T', '-R', '-m', '-h', '--help', '--trec-eval', '--format'];

/** The run reader's worker: bundled beside dist/irw.js, or the TypeScript source when run through tsx. */
const RUN_READER = __filename.endsWith('.ts') ? join(__dirname, '..', 'core', 'formats', 'runInParallel.ts') : join(__dirname, 'run-reader.js');

/**
 * A qrels byte takes about as long to read as this many run-file bytes (a string and map entry per qrels line,
 * columns for the run): the run's first part, read after the qrels, is cut shorter. From CPU profiles of
 * bench:eval (load 4-5): with 8 the main thread waited ~220 ms for the worker, with 4 ~60 ms, with 0 not at all.
 * With today's faster run reading (profile at load ~6) the main thread no longer waits: the worker ends first, so
 * a larger value may shorten wall time on a quiet machine (not re-tuned: CPU time is the same either way).
 */
const QRELS_COST = 3;

function fileSize(path: string): number {
  try {
    return path === '-' ? 0 : statSync(path).size;
  } catch {
    return 0; // the reader reports the unreadable file
  }
}

interface EvalArgs {
  perQuery: boolean;
  judgedOnly: boolean;
  summary: boolean;
  complete: boolean;
  relevanceLevel: number;
  maxRetrieved?: number;
  numDocsInColl?: number;
  measures: string[];
  files: string[];
  trecEval: 9 | 10;
  zscoresFile?: string;
  relInfo: 'qrels' | 'qrels_jg' | 'qrels_prefs' | 'prefs';
  format: 'text' | 'json' | 'csv';
}

function parseArgs(argv: string[]): EvalArgs | { help: string[] } | 'version' {
  const a: EvalArgs = { perQuery: false, judgedOnly: false, summary: true, complete: false, relevanceLevel: 1, measures: [], files: [], trecEval: 9, relInfo: 'qrels', format: 'text' };
  let help = false;
  const intValue = (opt: string, v: string | undefined): number => {
    if (v === undefined || !/^-?\d+$/.test(v)) throw new UsageError(`${opt} needs an integer, got '${v ?? ''}'`);
    return Number(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (arg === '--trec-eval' || arg.startsWith('--trec-eval=')) {
      const v = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (v !== '9' && v !== '10') throw new UsageError(`--trec-eval takes 9 (9.0.8, the default) or 10 (10.0), got '${v ?? ''}'`);
      a.trecEval = v === '10' ? 10 : 9;
      continue;
    }
    if (arg === '--format' || arg.startsWith('--format=')) {
      const v = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (v !== 'text' && v !== 'json' && v !== 'csv') throw new UsageError(`--format takes text, json or csv, got '${v ?? ''}'`);
      a.format = v;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      a.files.push(arg);
      continue;
    }
    // trec_eval (getopt) accepts both "-l2" and "-l 2", and bundled flags such as "-qc".
    const flag = arg[1];
    const attached = arg.slice(2);
    const value = (): string | undefined => (attached !== '' ? attached : argv[++i]);
    switch (flag) {
      case 'q':
      case 'c':
      case 'J':
      case 'n':
      case 'o':
      case 'v':
        for (const ch of arg.slice(1)) {
          if (ch === 'q') a.perQuery = true;
          else if (ch === 'c') a.complete = true;
          else if (ch === 'J') a.judgedOnly = true;
          else if (ch === 'n') a.summary = false;
          else if (ch === 'v') return 'version';
          else if (ch !== 'o') throw new UsageError(`unknown option '-${ch}' in '${arg}'`);
        }
        break;
      case 'l':
        a.relevanceLevel = intValue('-l', value());
        break;
      case 'M':
        a.maxRetrieved = intValue('-M', value());
        if (a.maxRetrieved <= 0) throw new UsageError(`-M needs a positive number of documents per query, got ${a.maxRetrieved}`);
        break;
      case 'N':
        a.numDocsInColl = intValue('-N', value());
        break;
      case 'Z': {
        const v = value();
        if (!v) throw new UsageError('-Z needs a file of "qid measure mean stddev" lines');
        a.zscoresFile = v;
        break;
      }
      case 'R': {
        const v = value();
        if (v === 'qrels' || v === 'qrels_jg' || v === 'qrels_prefs' || v === 'prefs') a.relInfo = v;
        else throw new UsageError(`-R: unknown relevance format '${v ?? ''}': qrels (default), qrels_jg, qrels_prefs or prefs`);
        break;
      }
      case 'T': {
        // trec_eval's only results format.
        const v = value();
        if (v !== 'trec_results') throw new UsageError(`-T: unknown results format '${v ?? ''}': trec_eval (and irw) read only 'trec_results'`);
        break;
      }
      case 'm': {
        const v = value();
        if (!v) throw new UsageError('-m needs a measure, e.g. -m ndcg_cut.10');
        a.measures.push(v);
        break;
      }
      default:
        throw new UsageError(`unknown option '${arg}'${didYouMean(arg, OPTIONS)}`);
    }
  }
  if (help) return { help: a.measures };
  if (a.files.length < 2) throw new UsageError(`expected QRELS and RUN (or several runs, or a folder of runs), got ${a.files.length} file argument(s)`);
  return a;
}

export const evalCommand: Command = {
  async run(argv) {
    const args = parseArgs(argv);
    if (args === 'version') {
      io.err('trec_eval version 9.0.8 (irw eval; --trec-eval 10 for 10.0)\n');
      return EXIT.ok;
    }
    if ('help' in args) {
      io.out(args.help.length ? explain(args.help) : HELP);
      return EXIT.ok;
    }
    // As trec_eval, a measure takes the parameters of its first -m only: say so for each later one dropped.
    try {
      resolveMeasures(args.measures, true, args.trecEval, (spec, kept, both) =>
        io.err(`irw eval: warning: -m ${spec} is ignored: as in trec_eval, a measure takes the parameters of its first -m (${kept})${both ? `; give both in one: -m ${both}` : ''}\n`),
      );
    } catch (e) {
      if (e instanceof MeasureSpecError) throw new UsageError(e.message);
      throw e;
    }
    const [qrelsPath, ...runArgs] = args.files;
    const runPaths = runArgs.flatMap(runsIn);
    if (runPaths.length === 0) throw new UsageError(`no run file in ${runArgs.join(', ')}`);
    if (runPaths.filter((p) => p === '-').length + (qrelsPath === '-' ? 1 : 0) > 1) throw new UsageError('only one of QRELS and the runs can be standard input (-)');
    refuseSwapped(qrelsPath, runPaths[0]);
    const zscores = args.zscoresFile === undefined ? undefined : readZScores(args.zscoresFile);
    // On a terminal, ids, tags and file names could carry escape sequences: shown, not obeyed. A file or pipe
    // gets trec_eval's bytes (the differential tests compare them).
    const shown = io.outIsTTY ? visibleControls : (s: string) => s;
    const single = runArgs.length === 1 && runPaths[0] === runArgs[0];
    if (single && args.format === 'text') {
      const { result } = await evaluateOne(args, qrelsPath, runPaths[0], zscores);
      // Ids that are not UTF-8 are printed as the bytes they were read as.
      io.out(encodeId(shown(formatTrecEval(result, args.perQuery, args.summary))));
      return EXIT.ok;
    }
    const qrels = readQrelsOf(args, qrelsPath);
    const out = new MultiRunOutput(args, shown);
    let failed = false;
    for (const runPath of runPaths) {
      try {
        const run = readRun(runPath, readOptions(args));
        out.add(runPath, evaluateRun(args, qrels, qrelsPath, run, runPath, zscores));
      } catch (e) {
        if (!isInputError(e)) throw e;
        failed = true;
        io.err(`irw eval: ${shown(e.format())}\n`);
      }
    }
    out.end();
    return failed ? EXIT.input : EXIT.ok;
  },
};

/** A RUN argument's run files: itself, or a folder's files in name order (no hidden files, .json sidecars, .md notes or sub-folders). */
function runsIn(path: string): string[] {
  let names: string[];
  try {
    if (path === '-' || !statSync(path).isDirectory()) return [path];
    names = readdirSync(path);
  } catch {
    return [path]; // the reader reports what is wrong with it
  }
  return names
    .filter((n) => !n.startsWith('.') && !/\.(json|md)$/.test(n))
    .sort()
    .map((n) => join(path, n))
    .filter((p) => statSync(p).isFile());
}

type AnyQrels = Qrels | JudgmentGroups | PrefsQrels;

function readQrelsOf(args: EvalArgs, path: string): AnyQrels {
  return args.relInfo === 'qrels_jg' ? readQrelsJg(path) : args.relInfo === 'qrels_prefs' ? readQrelsPrefs(path) : args.relInfo === 'prefs' ? readPrefs(path) : readQrels(path);
}

const readOptions = (args: EvalArgs) => ({ precision: args.trecEval === 10 ? ('double' as const) : ('float32' as const), duplicatesWithin: args.maxRetrieved });

/** One run, as `irw eval QRELS RUN` always read it: a large run's second half parsed in a worker thread while this one reads the qrels. */
async function evaluateOne(args: EvalArgs, qrelsPath: string, runPath: string, zscores: ZScores | undefined): Promise<{ result: EvalResult }> {
  const reading = startRunRead(runPath, readOptions(args), RUN_READER, { busyFirst: QRELS_COST * fileSize(qrelsPath) });
  let qrels;
  try {
    qrels = readQrelsOf(args, qrelsPath);
  } catch (e) {
    reading.cancel();
    throw e;
  }
  const run = await reading.finish();
  return { result: evaluateRun(args, qrels, qrelsPath, run, runPath, zscores) };
}

/** evaluate() with the command's options; refuses a run that shares no query with the qrels, warns of one that shares few. */
function evaluateRun(args: EvalArgs, qrels: AnyQrels, qrelsPath: string, run: Run, runPath: string, zscores: ZScores | undefined): EvalResult {
  let result;
  try {
    result = evaluate(qrels, run, {
      measures: args.measures,
      complete: args.complete,
      relevanceLevel: args.relevanceLevel,
      maxRetrieved: args.maxRetrieved,
      numDocsInColl: args.numDocsInColl,
      judgedOnly: args.judgedOnly,
      firstParamsWin: true,
      trecEval: args.trecEval,
      zscores,
    });
  } catch (e) {
    if (e instanceof MeasureSpecError) throw new UsageError(e.message);
    throw e;
  }
  const { warning } = checkCoverage(qrels, run, qrelsPath, runPath, args.complete);
  if (warning) io.err(`irw eval: warning: ${warning}\n`);
  return result;
}

/**
 * Several runs' results as they are evaluated: text blocks (each what trec_eval prints for the run, its runid
 * line first and naming the run's file), a JSON array, or one long CSV table.
 */
class MultiRunOutput {
  private first = true;

  constructor(
    private readonly args: EvalArgs,
    private readonly shown: (s: string) => string,
  ) {
    if (args.format === 'csv') this.write('run,tag,query,measure,value\r\n');
    if (args.format === 'json') this.write('[');
  }

  add(runPath: string, result: EvalResult): void {
    const rows = resultRows(result, this.args.perQuery, this.args.summary).filter((r) => r.kind !== 'runid');
    if (this.args.format === 'text') {
      const runid = { measure: 'runid', prefix: '' as const, query: 'all', value: runPath, kind: 'runid' as const, at: null };
      this.write([runid, ...rows].map((r) => formatRow(result, r)).join(''));
    } else if (this.args.format === 'csv') {
      const head = `${csvField(runPath)},${csvField(result.runId)},`;
      this.write(rows.map((r) => `${head}${csvField(r.query)},${csvField(r.prefix + r.measure)},${csvField(typeof r.value === 'number' ? jsonNumber(r.value) : r.value)}\r\n`).join(''));
    } else {
      const measures: Record<string, number | string> = {};
      const queries: Record<string, Record<string, number | string>> = {};
      for (const r of rows) {
        const value = typeof r.value === 'number' ? jsonNumber(r.value) : r.value;
        if (r.at === null || r.at < 0) measures[r.prefix + r.measure] = value; // a summary ("all") row
        else (queries[r.query] ??= {})[r.prefix + r.measure] = value;
      }
      const entry = { run: runPath, tag: result.runId, ...(this.args.summary ? { measures } : {}), ...(this.args.perQuery ? { queries } : {}) };
      this.write(`${this.first ? '' : ','}\n${JSON.stringify(entry)}`);
    }
    this.first = false;
  }

  end(): void {
    if (this.args.format === 'json') this.write(this.first ? ']\n' : '\n]\n');
  }

  private write(s: string): void {
    io.out(encodeId(this.shown(s)));
  }
}

/** A value for JSON and CSV: full precision; NaN and infinities as trec_eval prints them (JSON has no number for them). */
function jsonNumber(v: number): number | string {
  return Number.isFinite(v) ? v : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}

/** Columns of the first data line of a file (0 if unreadable or empty): enough to tell a run (6+) from qrels (3-4). */
function firstLineColumns(path: string): number {
  if (path === '-') return 0;
  try {
    const fd = openSync(path, 'r');
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    closeSync(fd);
    if (n >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return 0;
    const line = buf.toString('utf8', 0, n).split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'));
    return line ? line.trim().split(/[ \t]+/).length : 0;
  } catch {
    return 0; // the reader reports unreadable files
  }
}

function refuseSwapped(qrelsPath: string, runPath: string): void {
  const q = firstLineColumns(qrelsPath);
  const r = firstLineColumns(runPath);
  if (q >= 6 && (r === 3 || r === 4)) {
    throw new UsageError(`QRELS and RUN look swapped: ${qrelsPath} has run lines (${q} columns) and ${runPath} has qrels lines (${r} columns). Usage: irw eval QRELS RUN`);
  }
}

/** The help's list of measures, from the registry (irw eval -h -m NAME explains one). */
function measureList(): string {
  const names = (origin: string) => FAMILIES.filter((f) => f.origin === origin).map((f) => f.name).join(' ');
  const text =
    `measures (irw eval -h -m NAME explains one): nicknames ${Object.keys(NICKNAMES).join(' ')} (default official); ` +
    `trec_eval 9.0.8's ${names('trec_eval 9')}; trec_eval 10's ${names('trec_eval 10')}; ` +
    `BEIR's measures trec_eval lacks: ${names('irw')}.`;
  // Wrapped at 100 columns, continuation lines indented.
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > 100) {
      lines.push(line);
      line = ` ${word}`;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n ');
}

/** trec_eval -h -m: each named measure (or a nickname's measures) with its explanation from the registry. */
function explain(specs: string[]): string {
  let measures;
  try {
    measures = resolveMeasures(specs);
  } catch (e) {
    if (e instanceof MeasureSpecError) throw new UsageError(e.message);
    throw e;
  }
  return measures.map((m) => `${m.family.name}\n    ${m.family.help}\n`).join('');
}
