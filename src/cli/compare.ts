import { basename, resolve } from 'node:path';
import { MeasureSpecError } from '../core/eval';
import { checkCoverage } from '../core/eval/coverage';
import { CORRECTIONS, PAIRED_TESTS } from '../core/eval/stats';
import { buildTable, significantAgainst, TABLE_DEFAULTS, type ResultsTable, type TableOptions, type TableProgress } from '../core/eval/stats/table';
import { visibleControls } from '../core/formats/lines';
import { csvRecord } from '../core/formats/csv';
import { readQrels } from '../core/formats/qrels';
import { readRun } from '../core/formats/run';
import { InputError } from '../core/formats/errors';
import { readAnnotations } from '../core/judgements/annotations';
import { ProgressReporter } from '../core/progress/reporter';
import { checkRun, type ProvenanceWarning } from '../core/provenance/check';
import { shortHash } from '../core/provenance/files';
import { outwardEnds } from '../core/formats/outward';
import { datasetOfQrels, describeQrels, type QrelsRecord } from '../core/provenance/record';
import { EXIT, parseCommandArgs, UsageError, type Command } from './common';

const HELP = `usage: irw compare QRELS RUN RUN... [options]

The results table: every run against the baseline (the first run unless --baseline) or every pair, over
all queries of the qrels (a query a run misses scores 0, trec_eval -c).

options:
  -m MEASURE          measure, one value each (repeatable; default ${TABLE_DEFAULTS.measures.join(' ')})
  --baseline RUN      the baseline: a RUN argument's path or its run tag (default: the first run)
  --all-pairs         compare every run with every other run instead of with a baseline
  --test NAME         paired test: ${Object.keys(PAIRED_TESTS).join(', ')} (default t)
  --correction NAME   over the comparisons of each measure: ${Object.keys(CORRECTIONS).join(', ')} (default holm)
  --alpha A           significance level (default 0.05)
  -l N                lowest grade counted as relevant (default 1)
  -M N                evaluate only the top N documents of each ranking (trec_eval -M; -m recip_rank -M 10
                      is MRR@10); holes and similarities see the same cut rankings
  --pool-depth K      holes are the unjudged documents in the top K of any run (default 10; 0: no holes)
  --resamples N       bootstrap resamples (default 10000); --seed S seeds them and the randomization test
  --format F          text (default), markdown, csv, latex or json; csv is one long table, a row per
                      figure: run,versus,measure,statistic,value (versus: the other run of a comparison)
  --fail-if-worse     exit ${EXIT.worse} when a run is significantly worse than the baseline on any measure
  --fail-if-worse-estimate
                      exit ${EXIT.worse} when the estimate with the holes judged says the baseline is better
                      (its 95% interval of the difference is below 0) on any measure
  --judgements FILE   a judging session's annotations (query, document, grade): judged holes the estimates'
                      relevance model learns from (the qrels stay as given)

Runs are keyed a, b, c ... in the order given; a comparison "b vs a" is b - a. Past one second, progress is
shown on stderr. A run that shares no query with the qrels is refused (exit 1), as irw eval refuses it.

Per run and measure: the mean; a superscript names the runs it is significantly better than (after the
correction); [lo, hi] is the 95% percentile bootstrap interval (paired: the same resampled queries for
every run); -J is the judged-only mean (unjudged documents removed); holes [lo, hi] is the range of the
mean over every judgement of the holes (~ marks a bound where a query had too many holes to be exact).
Per comparison: mean difference, its bootstrap interval, effect size (mean difference / sd of the
per-query differences), p and corrected p (adj. p), wins/ties/losses, the range of the difference over every
judgement of the holes and whether that settles its sign (open: how many holes in how many queries keep
it open), whether judging the holes can lose or gain significance (checked at the two extreme judgements:
every query at its lowest, or highest, difference), and how alike the rankings are without judgements:
rank-biased overlap (p 0.9, extrapolated, top 100), Jaccard of the top 10, tau-AP of the top 10, each a
mean over the qrels' queries (tau-AP over those whose top 10s share two documents or more; the others are
counted as undefined).
Estimated (with a pool depth above 0): the difference with every hole of the two runs' top 100 judged,
from a relevance model (logistic, by the rank in each run and the query's relevant count) fitted to the
judged holes (--judgements; none: its prior, and the interval says how little the qrels tell), its 95%
interval over what the holes hide (rounded outward), and the verdict: a run better, within ±0.01, or
undecided. In JSON every difference of a comparison is b - a, its runs[b] minus its runs[a] (its "delta", its
"ci", its "holes" range, and its "estimate": delta, low, high and verdict, one of "a better", "b better",
"within" or "undecided"); its wins are b's.

exit codes: 0 ok, 1 bad input, 2 usage error, ${EXIT.worse} a run is worse (--fail-if-worse, --fail-if-worse-estimate).
`;

const FORMATS = ['text', 'markdown', 'csv', 'latex', 'json'] as const;
type Format = (typeof FORMATS)[number];

function number(name: string, v: string | undefined, dflt: number, integer = false): number {
  if (v === undefined) return dflt;
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || (integer && (!Number.isInteger(x) || x < 0))) {
    throw new UsageError(`--${name} needs ${integer ? 'a non-negative integer' : 'a number'}, got '${v}'`);
  }
  return x;
}

export const compareCommand: Command = {
  async run(argv) {
    const { values, positionals } = parseCommandArgs({
      args: argv,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        m: { type: 'string', multiple: true },
        l: { type: 'string' },
        M: { type: 'string', short: 'M' },
        baseline: { type: 'string' },
        'all-pairs': { type: 'boolean' },
        test: { type: 'string' },
        correction: { type: 'string' },
        alpha: { type: 'string' },
        'pool-depth': { type: 'string' },
        resamples: { type: 'string' },
        seed: { type: 'string' },
        format: { type: 'string' },
        'fail-if-worse': { type: 'boolean' },
        'fail-if-worse-estimate': { type: 'boolean' },
        judgements: { type: 'string' },
      },
    });
    if (values.help) {
      process.stdout.write(HELP);
      return EXIT.ok;
    }
    const [qrelsPath, ...runPaths] = positionals;
    if (!qrelsPath || runPaths.length < 2) throw new UsageError('expected QRELS and at least two RUN files');
    const format = (values.format ?? 'text') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`unknown --format '${values.format}' (available: ${FORMATS.join(', ')})`);
    if (values['all-pairs'] && values.baseline !== undefined) throw new UsageError('--baseline and --all-pairs exclude each other');
    if (values['all-pairs'] && (values['fail-if-worse'] || values['fail-if-worse-estimate'])) throw new UsageError('--fail-if-worse needs a baseline, not --all-pairs');
    const started = performance.now();
    const reporter = new ProgressReporter(process.stderr);
    // Progress once the command has taken a second (a quick table prints nothing else); tests set the delay.
    const after = Number(process.env.IRW_PROGRESS_AFTER_MS ?? 1000);
    const progress: TableProgress = (stage, done, total) => {
      if (performance.now() - started >= after) reporter.update(stage, done, total, 'steps');
    };
    try {
      return await run(values, qrelsPath, runPaths, format, progress);
    } finally {
      reporter.stop();
    }
  },
};

async function run(values: Record<string, string | boolean | string[] | undefined>, qrelsPath: string, runPaths: string[], format: Format, progress: TableProgress): Promise<number> {
  const str = (k: string) => values[k] as string | undefined;
  const maxRetrieved = number('M', str('M'), TABLE_DEFAULTS.maxRetrieved, true);
  if (str('M') !== undefined && maxRetrieved < 1) throw new UsageError(`-M needs a positive integer, got '${str('M')}'`);
  const qrels = readQrels(qrelsPath);
  if (qrels.queryIds().length === 0) {
    process.stderr.write(`irw compare: ${qrelsPath} judges no query: nothing to compare over.\n`);
    return EXIT.input;
  }
  const runs = runPaths.map((p, i) => {
    progress('reading the run files', i, runPaths.length);
    const r = readRun(p, { duplicatesWithin: maxRetrieved || undefined });
    // The rule irw eval follows: no query in common is refused (every mean would be a plausible 0).
    const { warning } = checkCoverage(qrels, r, qrelsPath, p, true);
    if (warning) process.stderr.write(`irw compare: warning: ${visibleControls(p)}: ${visibleControls(warning)}\n`);
    return r;
  });
  const warnings = await provenanceWarnings(qrelsPath, runPaths);
  for (const w of warnings) process.stderr.write(`irw compare: warning: ${visibleControls(w.run)}: ${visibleControls(w.message)}\n`);
  let compare: TableOptions['compare'] = 0;
  if (values['all-pairs']) compare = 'all-pairs';
  else if (str('baseline') !== undefined) {
    compare = runPaths.findIndex((p, i) => p === str('baseline') || runs[i].tag === str('baseline'));
    if (compare < 0) throw new UsageError(`--baseline '${str('baseline')}' is neither a RUN argument nor a run tag (${runs.map((r) => r.tag).join(', ')})`);
  }
  const options: TableOptions = {
    measures: (values.m as string[] | undefined) ?? TABLE_DEFAULTS.measures,
    compare,
    test: str('test') ?? TABLE_DEFAULTS.test,
    correction: str('correction') ?? TABLE_DEFAULTS.correction,
    alpha: number('alpha', str('alpha'), TABLE_DEFAULTS.alpha),
    relevanceLevel: number('l', str('l'), TABLE_DEFAULTS.relevanceLevel, true),
    poolDepth: number('pool-depth', str('pool-depth'), TABLE_DEFAULTS.poolDepth, true),
    resamples: number('resamples', str('resamples'), TABLE_DEFAULTS.resamples, true),
    seed: number('seed', str('seed'), TABLE_DEFAULTS.seed, true),
    maxRetrieved,
    judged: str('judgements') === undefined ? undefined : readJudgements(str('judgements')!),
  };
  if (!(options.alpha > 0 && options.alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${options.alpha}`);
  if (options.resamples < 1) throw new UsageError('--resamples must be at least 1');
  let table: ResultsTable;
  try {
    table = buildTable(qrels, runs, options, progress);
  } catch (e) {
    if (e instanceof MeasureSpecError) throw new UsageError(e.message);
    throw e;
  }
  // Tags can repeat (two runs of one system): label by file when they do.
  const tags = runs.map((r) => r.tag);
  const labels = tags.map((t, i) => (tags.indexOf(t) === tags.lastIndexOf(t) ? t : `${t} (${basename(runPaths[i])})`));
  process.stdout.write(render(table, labels, format, qrelsPath, await describeQrels(qrelsPath, undefined, qrels), warnings));
  if (values['fail-if-worse']) {
    const worse = table.pairs.filter((p) => p.b === compare && p.significant && p.delta < 0);
    for (const p of worse) {
      process.stderr.write(`irw compare: ${visibleControls(labels[p.a])} is significantly worse than ${visibleControls(labels[p.b])} on ${p.measure}: ${fixed(p.delta)} (corrected p ${fixed(p.pAdjusted)})\n`);
    }
    if (worse.length) return EXIT.worse;
  }
  if (values['fail-if-worse-estimate']) {
    // Worse with 95 % by the estimate with the holes judged: the baseline (b) better.
    const worse = table.pairs.filter((p) => p.b === compare && p.estimate?.verdict === 'b better');
    for (const p of worse) {
      process.stderr.write(`irw compare: ${visibleControls(labels[p.a])} is worse than ${visibleControls(labels[p.b])} on ${p.measure} by the estimate with the holes judged: ${fixed(p.estimate!.delta)} ${outward(p.estimate!.low, p.estimate!.high)}\n`);
    }
    if (worse.length) return EXIT.worse;
  }
  return EXIT.ok;
}

/** A judging session's annotations file: its judgements of holes teach the estimates; a bad line is an error naming it. */
function readJudgements(path: string): { queryId: string; docId: string; grade: number }[] {
  const read = readAnnotations(path);
  // The views skip a bad line of the user's file and say so; a check that gates on the estimate must not.
  const bad = read.problems;
  if (bad.length) {
    const lines = bad.map((p) => `line ${p.line}: ${p.message}`).join('; ');
    throw new InputError({ code: 'malformed', file: path, line: bad[0].line, message: `${bad.length} bad line(s) in the judgements file: ${lines}`, hint: 'fix or delete those lines; every other judgement is kept as it is' });
  }
  return read.judgements;
}

const fixed = (x: number, d = 4): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));
/** A p-value at four decimals; under 0.0001 it is "<0.0001", not a 0.0000 that reads as impossible. */
export const pText = (p: number): string => (p < 1e-4 ? '<0.0001' : fixed(p));

/** An interval at d decimals rounded outward, so the printed interval holds the computed one. */
export function outward(lo: number, hi: number, d = 4): string {
  const [l, h] = outwardEnds(lo, hi, d);
  return `[${l.toFixed(d)}, ${h.toFixed(d)}]`;
}
const key = (i: number): string => (i < 26 ? String.fromCharCode(97 + i) : `r${i + 1}`);

/** How a format marks up a cell: superscripts (the runs a mean is significantly better than) and file-derived text. */
type Style = { sup(s: string): string; text(s: string): string };
const STYLES: Record<'text' | 'markdown' | 'latex', Style> = {
  // Run tags and file names are shown, never obeyed: a tag's escape sequences could rewrite the terminal.
  text: { sup: (s) => (s ? `^${s}` : ''), text: visibleControls },
  markdown: { sup: (s) => (s ? `<sup>${s}</sup>` : ''), text: markdownEscape },
  latex: { sup: (s) => (s ? `$^{${s}}$` : ''), text: (s) => latexEscape(visibleControls(s)) },
};

/** A titled grid of cells: its first row is the header. */
interface Grid {
  title: string;
  rows: string[][];
}

/**
 * The table as long grids, each a few columns wide (the text form fits 100 columns for any number of runs and
 * measures): the runs (key, label, coverage); per measure and run, the mean and its intervals; per comparison
 * and measure, the difference and its test; the same under the holes; per comparison, how alike the rankings
 * are. A comparison is named "b vs a" (b - a) by the runs' keys.
 */
export function grids(t: ResultsTable, labels: string[], style: Style): Grid[] {
  const range = (r: { lo: number; hi: number; exact: boolean } | null): string => (r ? `${r.exact ? '' : '~'}${outward(r.lo, r.hi)}` : '');
  const base = t.options.compare;
  const versus = (a: number, b: number) => `${key(a)} vs ${key(b)}`;
  const measure = (k: number, first: boolean) => (first ? style.text(t.measures[k]) : '');
  const runs: Grid = {
    title: `runs (${t.numQueries} queries: a query a run misses scores 0)`,
    rows: [['', 'run', 'queries answered'], ...labels.map((label, r) => [key(r), style.text(label + (r === base ? ' (baseline)' : '')), `${t.runs[r].answered}/${t.numQueries}`])],
  };
  const means: Grid = {
    title: 'means (^ the runs a mean is significantly better than)',
    rows: [
      ['measure', 'run', 'mean', '95% CI', '-J', 'holes'],
      ...t.measures.flatMap((_m, k) =>
        labels.map((_l, r) => {
          const c = t.cells[r][k];
          const better = significantAgainst(t, r, k, 1).map(key).join('');
          return [measure(k, r === 0), key(r), fixed(c.mean) + style.sup(better), `[${fixed(c.ci.lo)}, ${fixed(c.ci.hi)}]`, c.judgedOnly === null ? '' : fixed(c.judgedOnly), range(c.holes)];
        }),
      ),
    ],
  };
  const byMeasure = t.measures.map((m) => t.pairs.filter((p) => p.measure === m));
  const tests: Grid = {
    title: 'comparisons',
    rows: [
      ['measure', 'runs', 'difference', '95% CI', 'effect', 'p', 'adj. p', 'sig', 'W/T/L'],
      ...byMeasure.flatMap((ps, k) =>
        ps.map((p, i) => [
          measure(k, i === 0),
          versus(p.a, p.b),
          fixed(p.delta),
          `[${fixed(p.ci.lo)}, ${fixed(p.ci.hi)}]`,
          fixed(p.effect, 3),
          pText(p.p),
          pText(p.pAdjusted),
          p.significant ? (p.delta > 0 ? 'better' : 'worse') : '',
          `${p.wins}/${p.ties}/${p.losses}`,
        ]),
      ),
    ],
  };
  const estimated: Grid = {
    title: 'comparisons estimated with the holes of both top 100 judged (relevance model, 95% interval)',
    rows: [
      ['measure', 'runs', 'estimate', '95% interval', 'verdict', 'holes', 'judged'],
      ...byMeasure.flatMap((ps, k) =>
        ps.map((p, i) => {
          const e = p.estimate;
          if (!e) return [measure(k, i === 0), versus(p.a, p.b), '', '', '', '', ''];
          const verdict = e.verdict === 'a better' ? `${key(p.a)} better` : e.verdict === 'b better' ? `${key(p.b)} better` : e.verdict === 'within' ? 'within ±0.01' : 'undecided';
          return [measure(k, i === 0), versus(p.a, p.b), fixed(e.delta), outward(e.low, e.high), verdict, String(e.holes), String(e.judged)];
        }),
      ),
    ],
  };
  const holes: Grid = {
    title: 'comparisons over every judgement of the holes',
    rows: [
      ['measure', 'runs', 'difference', 'verdict', 'significance'],
      ...byMeasure.flatMap((ps, k) =>
        ps.map((p, i) => [
          measure(k, i === 0),
          versus(p.a, p.b),
          range(p.holes),
          p.holes ? (p.holes.verdict === 'settled' ? 'settled' : `open: ${p.holes.openHoles} holes in ${p.holes.openQueries} queries`) : '',
          p.holes ? (p.holes.canLose ? 'can be lost' : p.holes.canGain ? 'can be gained' : 'unchanged at the extremes') : '',
        ]),
      ),
    ],
  };
  const similar: Grid = {
    title: 'how alike the rankings are (no judgements)',
    rows: [
      ['runs', 'RBO', 'Jaccard@10', 'tau-AP@10', 'tau-AP undefined'],
      ...(byMeasure[0] ?? []).map((p) => [versus(p.a, p.b), fixed(p.similarity.rbo, 3), fixed(p.similarity.jaccard10, 3), fixed(p.similarity.tauAp10, 3), `${p.similarity.tauAp10Undefined} queries`]),
    ],
  };
  return t.options.poolDepth > 0 ? [runs, means, tests, holes, estimated, similar] : [runs, means, tests, similar];
}

/**
 * The CSV form: one long table, a row per figure (pandas.read_csv reads it; pivot it as needed). A run's
 * figures have no `versus`; a comparison's `run` and `versus` are its two runs (the difference is run - versus);
 * the figures of a whole run or comparison (queries answered, similarities) have no measure. Values are numbers
 * (1/0 for yes/no), never text.
 */
export function csvRows(t: ResultsTable, labels: string[]): (string | number)[][] {
  const rows: (string | number)[][] = [['run', 'versus', 'measure', 'statistic', 'value']];
  const add = (run: number, versus: number | null, measure: string, stats: Record<string, number | null | undefined>) => {
    for (const [statistic, value] of Object.entries(stats)) if (value !== null && value !== undefined) rows.push([labels[run], versus === null ? '' : labels[versus], measure, statistic, value]);
  };
  const yes = (b: boolean) => (b ? 1 : 0);
  t.runs.forEach((r, i) => add(i, null, '', { queries_answered: r.answered, queries: t.numQueries, baseline: t.options.compare === i ? 1 : 0 }));
  t.measures.forEach((m, k) =>
    t.cells.forEach((row, r) => {
      const c = row[k];
      add(r, null, m, { mean: c.mean, ci_lo: c.ci.lo, ci_hi: c.ci.hi, judged_only: c.judgedOnly, holes_lo: c.holes?.lo, holes_hi: c.holes?.hi, holes_exact: c.holes && yes(c.holes.exact) });
    }),
  );
  for (const p of t.pairs) {
    const h = p.holes;
    add(p.a, p.b, p.measure, {
      difference: p.delta,
      ci_lo: p.ci.lo,
      ci_hi: p.ci.hi,
      effect: p.effect,
      p: p.p,
      corrected_p: p.pAdjusted,
      significant: yes(p.significant),
      wins: p.wins,
      ties: p.ties,
      losses: p.losses,
      holes_lo: h?.lo,
      holes_hi: h?.hi,
      holes_exact: h && yes(h.exact),
      holes_settled: h && yes(h.verdict === 'settled'),
      open_queries: h?.openQueries,
      open_holes: h?.openHoles,
      can_lose_significance: h && yes(h.canLose),
      can_gain_significance: h && yes(h.canGain),
      estimate: p.estimate?.delta,
      estimate_lo: p.estimate?.low,
      estimate_hi: p.estimate?.high,
      estimate_run_better: p.estimate && yes(p.estimate.verdict === 'a better'),
      estimate_versus_better: p.estimate && yes(p.estimate.verdict === 'b better'),
      estimate_within: p.estimate && yes(p.estimate.verdict === 'within'),
    });
  }
  for (const p of t.pairs.filter((x) => x.measure === t.measures[0])) add(p.a, p.b, '', { rbo: p.similarity.rbo, jaccard_10: p.similarity.jaccard10, tau_ap_10: p.similarity.tauAp10, tau_ap_10_undefined_queries: p.similarity.tauAp10Undefined });
  return rows;
}

/** Runs made on other data than the qrels' dataset, or before the qrels changed (their sidecars' provenance). */
async function provenanceWarnings(qrelsPath: string, runPaths: string[]): Promise<ProvenanceWarning[]> {
  const on = { qrels: resolve(qrelsPath), dataset: datasetOfQrels(qrelsPath) };
  return (await Promise.all(runPaths.map((p) => checkRun(p, on)))).flat();
}

/**
 * A comparison as JSON names it (issue 23): every difference in it is b - a, the runs[b] minus the runs[a]
 * of its `a` and `b` (the table's own pair is the other way round: its a is the run, its b the baseline, and
 * its difference a - b); the text's "b vs a" is the same b - a. Wins are of b (queries where b - a > 0).
 */
function asBMinusA(p: ResultsTable['pairs'][number]): ResultsTable['pairs'][number] {
  const swap = { 'a better': 'b better', 'b better': 'a better', within: 'within', undecided: 'undecided' } as const;
  return { ...p, a: p.b, b: p.a, ...(p.estimate ? { estimate: { ...p.estimate, verdict: swap[p.estimate.verdict] } } : {}) };
}

function render(t: ResultsTable, labels: string[], format: Format, qrelsPath: string, qrels: QrelsRecord, warnings: ProvenanceWarning[]): string {
  if (format === 'json') {
    return `${JSON.stringify({ qrels: qrelsPath, qrelsState: qrels, warnings, labels, ...t, runs: t.runs.map((r, i) => ({ ...r, key: key(i), label: labels[i] })), pairs: t.pairs.map(asBMinusA) }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2)}\n`;
  }
  if (format === 'csv') return csvRows(t, labels).map((row) => csvRecord(row.map((c) => (typeof c === 'number' && !Number.isFinite(c) ? String(c) : c)))).join('');
  const style = STYLES[format];
  const g = grids(t, labels, style);
  const o = t.options;
  const notes = [
    `${t.numQueries} queries`,
    `${PAIRED_TESTS[o.test].label}, ${CORRECTIONS[o.correction].label} over the ${t.pairs.length / t.measures.length} comparisons of each measure, alpha ${o.alpha}`,
    `${o.resamples} bootstrap resamples (percentile, seed ${o.seed})`,
    ...(o.poolDepth ? [`holes: unjudged in the top ${o.poolDepth} of any run compared`] : []),
    ...(o.maxRetrieved ? [`rankings cut at ${o.maxRetrieved} (-M)`] : []),
    // Which qrels state the figures used, and runs whose recorded data is not this dataset's.
    `qrels ${qrelsPath}`,
    `${qrels.judgements} judgements of ${qrels.queries} queries in the qrels, sha256 ${shortHash(qrels.sha256)}`,
    ...(warnings.length ? [`${warnings.length} provenance warning${warnings.length > 1 ? 's' : ''} (runs made on other data: see stderr)`] : []),
  ];
  const caption = notes.join('; ');
  if (format === 'markdown') {
    const md = (rows: string[][]) => [rows[0], rows[0].map(() => '---'), ...rows.slice(1)].map((r) => `| ${r.join(' | ')} |`).join('\n');
    return `${g.map((x) => `**${x.title}**\n\n${md(x.rows)}`).join('\n\n')}\n\n${style.text(caption)}\n`;
  }
  if (format === 'latex') {
    // A comment runs to the end of the line: a line break in a file name would start live LaTeX.
    const comment = (text: string) => `% ${visibleControls(text).replace(/[\n\u0085\u2028\u2029]/g, '\u240a')}`;
    const tex = (x: Grid) =>
      `${comment(x.title)}\n\\begin{tabular}{${'l'.repeat(x.rows[0].length)}}\n\\hline\n${x.rows.map((r, i) => `${r.join(' & ')} \\\\${i === 0 ? '\n\\hline' : ''}`).join('\n')}\n\\hline\n\\end{tabular}`;
    return `${comment(caption)}\n${g.map(tex).join('\n\n')}\n`;
  }
  const align = (rows: string[][]) => {
    const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
    return rows.map((r) => r.map((c, j) => c.padEnd(widths[j])).join('  ').trimEnd()).join('\n');
  };
  return `${g.map((x) => `${x.title}\n${align(x.rows)}`).join('\n\n')}\n\n${notes.join(';\n')}\n`;
}

/**
 * File-derived text in a Markdown table: controls made visible, and every character Markdown (and the HTML it
 * allows) gives a meaning escaped, so a tag like ![](https://...) stays text and a preview loads nothing.
 */
export function markdownEscape(s: string): string {
  return visibleControls(s).replace(/[\\|*_`<>[\]()!#~&]/g, (c) => `\\${c}`);
}

export function latexEscape(s: string): string {
  return s.replace(/[\\&%$#_{}~^]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));
}
