import { basename, resolve } from 'node:path';
import { MeasureSpecError } from '../core/eval';
import { CORRECTIONS, PAIRED_TESTS } from '../core/eval/stats';
import { buildTable, significantAgainst, TABLE_DEFAULTS, type ResultsTable, type TableOptions } from '../core/eval/stats/table';
import { readQrels } from '../core/formats/qrels';
import { readRun } from '../core/formats/run';
import { checkRun, type ProvenanceWarning } from '../core/provenance/check';
import { shortHash } from '../core/provenance/files';
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
  --pool-depth K      holes are the unjudged documents in the top K of any run (default 10; 0: no holes)
  --resamples N       bootstrap resamples (default 10000); --seed S seeds them and the randomization test
  --format F          text (default), markdown, csv, latex or json
  --fail-if-worse     exit ${EXIT.worse} when a run is significantly worse than the baseline on any measure

Per run and measure: the mean; a superscript names the runs it is significantly better than (after the
correction); [lo, hi] is the 95% percentile bootstrap interval (paired: the same resampled queries for
every run); -J is the judged-only mean (unjudged documents removed); holes [lo, hi] is the range of the
mean over every judgement of the holes (~ marks a bound where a query had too many holes to be exact).
Per comparison: mean difference, its bootstrap interval, effect size (mean difference / sd of the
per-query differences), p and corrected p, wins/ties/losses, the range of the difference over every
judgement of the holes and whether that settles its sign (open: how many holes in how many queries keep
it open), whether judging the holes can lose or gain significance (checked at the two extreme judgements:
every query at its lowest, or highest, difference), and how alike the rankings are without judgements:
rank-biased overlap (p 0.9, extrapolated, top 100), Jaccard of the top 10, tau-AP of the top 10.

exit codes: 0 ok, 1 bad input, 2 usage error, ${EXIT.worse} a run is significantly worse (--fail-if-worse).
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
    if (values['all-pairs'] && values['fail-if-worse']) throw new UsageError('--fail-if-worse needs a baseline, not --all-pairs');
    const qrels = readQrels(qrelsPath);
    if (qrels.queryIds().length === 0) {
      process.stderr.write(`irw compare: ${qrelsPath} judges no query: nothing to compare over.\n`);
      return EXIT.input;
    }
    const runs = runPaths.map((p) => readRun(p));
    const warnings = await provenanceWarnings(qrelsPath, runPaths);
    for (const w of warnings) process.stderr.write(`irw compare: warning: ${w.run}: ${w.message}\n`);
    let compare: TableOptions['compare'] = 0;
    if (values['all-pairs']) compare = 'all-pairs';
    else if (values.baseline !== undefined) {
      compare = runPaths.findIndex((p, i) => p === values.baseline || runs[i].tag === values.baseline);
      if (compare < 0) throw new UsageError(`--baseline '${values.baseline}' is neither a RUN argument nor a run tag (${runs.map((r) => r.tag).join(', ')})`);
    }
    const options: TableOptions = {
      measures: values.m ?? TABLE_DEFAULTS.measures,
      compare,
      test: values.test ?? TABLE_DEFAULTS.test,
      correction: values.correction ?? TABLE_DEFAULTS.correction,
      alpha: number('alpha', values.alpha, TABLE_DEFAULTS.alpha),
      relevanceLevel: number('l', values.l, TABLE_DEFAULTS.relevanceLevel, true),
      poolDepth: number('pool-depth', values['pool-depth'], TABLE_DEFAULTS.poolDepth, true),
      resamples: number('resamples', values.resamples, TABLE_DEFAULTS.resamples, true),
      seed: number('seed', values.seed, TABLE_DEFAULTS.seed, true),
    };
    if (!(options.alpha > 0 && options.alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got ${options.alpha}`);
    if (options.resamples < 1) throw new UsageError('--resamples must be at least 1');
    let table: ResultsTable;
    try {
      table = buildTable(qrels, runs, options);
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
        process.stderr.write(`irw compare: ${labels[p.a]} is significantly worse than ${labels[p.b]} on ${p.measure}: ${fixed(p.delta)} (corrected p ${fixed(p.pAdjusted)})\n`);
      }
      if (worse.length) return EXIT.worse;
    }
    return EXIT.ok;
  },
};

const fixed = (x: number, d = 4): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));
const key = (i: number): string => (i < 26 ? String.fromCharCode(97 + i) : `r${i + 1}`);

type Style = { sup(s: string): string; text(s: string): string };
const STYLES: Record<Exclude<Format, 'json'>, Style> = {
  text: { sup: (s) => (s ? `^${s}` : ''), text: (s) => s },
  csv: { sup: (s) => (s ? ` >${s}` : ''), text: csvSafe },
  markdown: { sup: (s) => (s ? `<sup>${s}</sup>` : ''), text: (s) => s.replace(/[\\|*_`<>]/g, (c) => `\\${c}`) },
  latex: { sup: (s) => (s ? `$^{${s}}$` : ''), text: latexEscape },
};

/** The two tables as grids of cells: runs x measures, then comparisons. */
export function grids(t: ResultsTable, labels: string[], style: Style): { runs: string[][]; pairs: string[][] } {
  const range = (r: { lo: number; hi: number; exact: boolean } | null): string => (r ? style.text(`${r.exact ? '' : '~'}[${fixed(r.lo)}, ${fixed(r.hi)}]`) : '');
  const head = (cells: string[]): string[] => cells.map(style.text);
  const base = t.options.compare;
  const runs = [
    head(['', 'run', 'coverage', ...t.measures.flatMap((m) => [m, `${m} 95% CI`, `${m} -J`, `${m} holes`])]),
    ...labels.map((label, r) => [
      key(r),
      style.text(label + (r === base ? ' (baseline)' : '')),
      `${t.runs[r].answered}/${t.numQueries}`,
      ...t.measures.flatMap((_m, k) => {
        const c = t.cells[r][k];
        const better = significantAgainst(t, r, k, 1).map(key).join('');
        return [fixed(c.mean) + style.sup(better), `[${fixed(c.ci.lo)}, ${fixed(c.ci.hi)}]`, c.judgedOnly === null ? '' : fixed(c.judgedOnly), range(c.holes)];
      }),
    ]),
  ];
  const pairs = [
    head(['measure', 'a', 'b', 'mean a-b', '95% CI', 'effect', 'p', 'corrected p', 'sig', 'W/T/L', 'holes a-b', 'holes verdict', 'significance under holes', 'RBO', 'Jaccard@10', 'tau-AP@10']),
    ...t.pairs.map((p) => [
      style.text(p.measure),
      key(p.a),
      key(p.b),
      fixed(p.delta),
      `[${fixed(p.ci.lo)}, ${fixed(p.ci.hi)}]`,
      fixed(p.effect, 3),
      fixed(p.p),
      fixed(p.pAdjusted),
      p.significant ? (p.delta > 0 ? 'better' : 'worse') : '',
      `${p.wins}/${p.ties}/${p.losses}`,
      range(p.holes),
      p.holes ? (p.holes.verdict === 'settled' ? 'settled' : `open: ${p.holes.openHoles} holes in ${p.holes.openQueries} queries`) : '',
      p.holes ? (p.holes.canLose ? 'can be lost' : p.holes.canGain ? 'can be gained' : 'unchanged at the extremes') : '',
      fixed(p.similarity.rbo, 3),
      fixed(p.similarity.jaccard10, 3),
      fixed(p.similarity.tauAp10, 3),
    ]),
  ];
  return { runs, pairs };
}

/** Runs made on other data than the qrels' dataset, or before the qrels changed (their sidecars' provenance). */
async function provenanceWarnings(qrelsPath: string, runPaths: string[]): Promise<ProvenanceWarning[]> {
  const on = { qrels: resolve(qrelsPath), dataset: datasetOfQrels(qrelsPath) };
  return (await Promise.all(runPaths.map((p) => checkRun(p, on)))).flat();
}

function render(t: ResultsTable, labels: string[], format: Format, qrelsPath: string, qrels: QrelsRecord, warnings: ProvenanceWarning[]): string {
  if (format === 'json') {
    return `${JSON.stringify({ qrels: qrelsPath, qrelsState: qrels, warnings, labels, ...t, runs: t.runs.map((r, i) => ({ ...r, key: key(i), label: labels[i] })) }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2)}\n`;
  }
  const style = STYLES[format];
  const g = grids(t, labels, style);
  const o = t.options;
  const caption =
    `${t.numQueries} queries; ${PAIRED_TESTS[o.test].label}, ${CORRECTIONS[o.correction].label} over the ${t.pairs.length / t.measures.length} comparisons of each measure, alpha ${o.alpha}; ` +
    `${o.resamples} bootstrap resamples (percentile, seed ${o.seed})${o.poolDepth ? `; holes: unjudged in the top ${o.poolDepth}` : ''}; ` +
    `qrels ${qrelsPath}: ${qrels.judgements} judgements of ${qrels.queries} queries, sha256 ${shortHash(qrels.sha256)}` +
    (warnings.length ? `; ${warnings.length} provenance warning${warnings.length > 1 ? 's' : ''} (runs made on other data: see stderr)` : '');
  if (format === 'csv') return [...g.runs, [], ...g.pairs].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
  if (format === 'markdown') {
    const md = (rows: string[][]) => [rows[0], rows[0].map(() => '---'), ...rows.slice(1)].map((r) => `| ${r.join(' | ')} |`).join('\n');
    return `${md(g.runs)}\n\n${md(g.pairs)}\n\n${style.text(caption)}\n`;
  }
  if (format === 'latex') {
    const tex = (rows: string[][]) =>
      `\\begin{tabular}{${'l'.repeat(rows[0].length)}}\n\\hline\n${rows.map((r, i) => `${r.join(' & ')} \\\\${i === 0 ? '\n\\hline' : ''}`).join('\n')}\n\\hline\n\\end{tabular}`;
    return `% ${caption}\n${tex(g.runs)}\n\n${tex(g.pairs)}\n`;
  }
  const align = (rows: string[][]) => {
    const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
    return rows.map((r) => r.map((c, j) => c.padEnd(widths[j])).join('  ').trimEnd()).join('\n');
  };
  return `${align(g.runs)}\n\n${align(g.pairs)}\n\n${caption}\n`;
}

/** A spreadsheet must not run file-derived text as a formula (OWASP CSV injection): quote it with a leading '. */
export function csvSafe(s: string): string {
  return /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(s) ? `'${s}` : s;
}

function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function latexEscape(s: string): string {
  return s.replace(/[\\&%$#_{}~^]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));
}
