import { readQrels, readQrelsJg } from '../core/formats/qrels';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { encodeId } from '../core/formats/idTable';
import { join } from 'node:path';
import { startRunRead } from '../core/formats/runInParallel';
import { evaluate, FAMILIES, formatTrecEval, MeasureSpecError, NICKNAMES, resolveMeasures } from '../core/eval';
import { readZScores } from '../core/eval/zscores';
import { readPrefs, readQrelsPrefs } from '../core/eval/prefs';
import { EXIT, UsageError, type Command } from './common';
import { didYouMean } from '../core/nearest';

const HELP = `usage: irw eval [-q] [-c] [-J] [-n] [-l N] [-M N] [-N N] [-Z FILE] [-R qrels_jg|qrels_prefs|prefs] [--trec-eval 9|10] [-m measure[.params]]... QRELS RUN

Evaluates a TREC run against qrels and prints exactly what trec_eval 9.0.8 prints.

  QRELS   TREC qrels (qid iter docid grade) or BEIR qrels (query-id corpus-id score, header, CRLF ok)
  RUN     TREC run (qid Q0 docid rank score tag; spaces or TABs)
          either may be gzip-compressed, or - for standard input

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

exit codes: 0 ok, 1 bad input (file, line and what to do are printed), 2 usage error.
`;

/** The options irw eval takes (for "did you mean"). */
const OPTIONS = ['-q', '-c', '-J', '-n', '-o', '-v', '-l', '-M', '-N', '-Z', '-T', '-R', '-m', '-h', '--help', '--trec-eval'];

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
}

function parseArgs(argv: string[]): EvalArgs | { help: string[] } | 'version' {
  const a: EvalArgs = { perQuery: false, judgedOnly: false, summary: true, complete: false, relevanceLevel: 1, measures: [], files: [], trecEval: 9, relInfo: 'qrels' };
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
  if (a.files.length !== 2) throw new UsageError(`expected QRELS and RUN, got ${a.files.length} file argument(s)`);
  return a;
}

export const evalCommand: Command = {
  async run(argv) {
    const args = parseArgs(argv);
    if (args === 'version') {
      process.stderr.write('trec_eval version 9.0.8 (irw eval; --trec-eval 10 for 10.0)\n');
      return EXIT.ok;
    }
    if ('help' in args) {
      process.stdout.write(args.help.length ? explain(args.help) : HELP);
      return EXIT.ok;
    }
    // As trec_eval, a measure takes the parameters of its first -m only: say so for each later one dropped.
    try {
      resolveMeasures(args.measures, true, args.trecEval, (spec, kept, both) =>
        process.stderr.write(`irw eval: warning: -m ${spec} is ignored: as in trec_eval, a measure takes the parameters of its first -m (${kept})${both ? `; give both in one: -m ${both}` : ''}\n`),
      );
    } catch (e) {
      if (e instanceof MeasureSpecError) throw new UsageError(e.message);
      throw e;
    }
    const [qrelsPath, runPath] = args.files;
    if (qrelsPath === '-' && runPath === '-') throw new UsageError('only one of QRELS and RUN can be standard input (-)');
    refuseSwapped(qrelsPath, runPath);
    const zscores = args.zscoresFile === undefined ? undefined : readZScores(args.zscoresFile);
    // A large run's second half is parsed in a worker thread while this one reads the qrels and the first half.
    const reading = startRunRead(runPath, { precision: args.trecEval === 10 ? 'double' : 'float32', duplicatesWithin: args.maxRetrieved }, RUN_READER, {
      busyFirst: QRELS_COST * fileSize(qrelsPath),
    });
    let qrels;
    try {
      qrels = args.relInfo === 'qrels_jg' ? readQrelsJg(qrelsPath) : args.relInfo === 'qrels_prefs' ? readQrelsPrefs(qrelsPath) : args.relInfo === 'prefs' ? readPrefs(qrelsPath) : readQrels(qrelsPath);
    } catch (e) {
      reading.cancel();
      throw e;
    }
    const run = await reading.finish();
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
    // With or without -c, qrels and a run that share no query are a mistake (trec_eval refuses them too).
    const shared = qrels.queryIds().filter((q) => run.queryIndex(q) >= 0).length;
    if (shared === 0) {
      process.stderr.write(
        `irw eval: no query is in both ${qrelsPath} and ${runPath}: check that the run's query ids (column 1) match the qrels'.\n`,
      );
      return EXIT.input;
    }
    const nq = qrels.queryIds().length;
    // A run often covers more queries than one split's qrels; fewer than half of the qrels' queries is suspect.
    if (shared * 2 < nq) {
      process.stderr.write(
        `irw eval: warning: only ${shared} ${shared === 1 ? 'query is' : 'queries are'} in both files (${nq} in the qrels, ${run.qids.length} in the run): ` +
          `check that they belong together${args.complete ? '; with -c the other qrels queries score 0' : ''}.\n`,
      );
    }
    // Ids that are not UTF-8 are printed as the bytes they were read as.
    process.stdout.write(encodeId(formatTrecEval(result, args.perQuery, args.summary)));
    return EXIT.ok;
  },
};

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
