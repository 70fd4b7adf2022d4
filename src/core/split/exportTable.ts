import type { Comparison, EstimateView, ExportFormat, HoleVerdict, QrelsLabel, ResultsModel, ScoreRange } from '../../protocol/webview';
import { csvRecord } from '../formats/csv';
import { outwardEnds } from '../formats/outward';

/**
 * The results table as text for papers and notes, holding what the panel shows: each figure on the qrels in
 * effect (with the user's judgements once there are any, the original one beside it), its range over the
 * holes, and the comparisons (each run against the baseline, or every pair) with their Δ = b - a, interval,
 * tests and verdict under the holes, and its estimate with the holes judged (as the panel, once a hole is judged);
 * the caption names the qrels state and the judgements. Values have four
 * decimals (trec_eval's). Markers on a run's value against the baseline, after the model's correction over the
 * compared runs: * paired t-test, † randomization test, both at the model's alpha.
 */
export function exportResults(model: ResultsModel, format: ExportFormat): string {
  switch (format) {
    case 'markdown':
      return markdown(model);
    case 'csv':
      return csv(model);
    case 'latex':
      return latex(model);
  }
}

const fix = (v: number) => v.toFixed(4);

/**
 * A mean or a delta at full useful precision: floating-point noise below 1e-12 (a delta of two equal means
 * computed in different orders, e.g. -8.3e-19) is zero, and zero has no sign.
 */
const exact = (v: number): number => {
  const r = Math.round(v * 1e12) / 1e12;
  return r === 0 ? 0 : r;
};

type Row = ResultsModel['rows'][number];

/** The chosen correction's adjusted p-values (Holm's in a model from before the choice). */
const adjusted = (c: Comparison) => ({ t: c.tPAdj ?? c.tPHolm, rand: c.randPAdj ?? c.randPHolm });
const CORRECTION = { holm: 'Holm', bh: 'Benjamini-Hochberg', bonferroni: 'Bonferroni' } as const;
const correction = (model: ResultsModel) => CORRECTION[model.correction ?? 'holm'];

function markers(model: ResultsModel, row: Row, mi: number): string {
  const c = row.vsBaseline?.[mi];
  if (!c) return '';
  const p = adjusted(c);
  return (p.t <= model.alpha ? '*' : '') + (p.rand <= model.alpha ? '†' : '');
}

const qrelsText = (l: QrelsLabel) => (l.state === 'original' ? 'the original qrels' : `the qrels with the user's ${l.judgements} judgement${l.judgements === 1 ? '' : 's'}`);

/** The figure the panel shows: on the qrels in effect. */
const shown = (r: Row, mi: number) => r.annotated?.[mi] ?? r.means[mi];

/** Two decimals, the lower end rounded down and the upper end up, as the panel prints a range. */
function rangeText(r: { lo: number; hi: number; exact?: boolean }, signed = false): string {
  const f = (v: number) => {
    const t = Math.abs(v).toFixed(2);
    return v < 0 ? `-${t}` : signed && v > 0 ? `+${t}` : t;
  };
  const [lo, hi] = outwardEnds(r.lo, r.hi, 2);
  return `[${f(lo)}, ${f(hi)}]${r.exact === false ? '~' : ''}`;
}

const verdictText = (v: HoleVerdict) => (v.verdict === 'settled' ? 'settled' : `open: ${v.openHoles} holes in ${v.openQueries} queries can flip it`);

/** A cell as the panel shows it: the figure with its markers, the original figure, the range over the holes. */
function cellText(model: ResultsModel, r: Row, mi: number): string {
  const range: ScoreRange | null | undefined = r.intervals?.[mi];
  return `${fix(shown(r, mi))}${markers(model, r, mi)}${r.annotated ? ` (orig ${fix(r.means[mi])})` : ''}${range ? ` ${rangeText(range)}` : ''}`;
}

interface Compared {
  a: string;
  b: string;
  tests: (Comparison | null)[] | null;
  settled: (HoleVerdict | null)[] | null;
  /** b - a estimated with the holes judged, per measure. */
  estimates: (EstimateView | null)[] | null;
}

/** The comparisons the panel lists: each run against the baseline, or every pair; each b - a. */
function comparisons(model: ResultsModel): Compared[] {
  if (model.compare === 'all-pairs') return model.pairs ?? [];
  return model.rows.filter((r) => r.key !== model.baseline).map((r) => ({ a: model.baseline, b: r.key, tests: r.vsBaseline, settled: r.settled ?? null, estimates: r.compared ?? null }));
}

/** An estimate the panel shows: none before a hole is judged (it would be the relevance model's prior). */
const judgedEstimate = (e: EstimateView | null | undefined): EstimateView | null => (e && e.judged > 0 ? e : null);

/** Four decimals, the interval rounded outward (the printed interval holds the computed one). */
function estimateText(e: EstimateView): string {
  const [lo, hi] = outwardEnds(e.lo, e.hi, 4);
  return `${signed(e.estimate)} [${signed(lo)}, ${signed(hi)}]`;
}

/** The estimate's verdict naming the runs (b - a: "b better" is b's). */
function estimateVerdictText(model: ResultsModel, p: Compared, e: EstimateView): string {
  const v = e.verdict ?? 'undecided';
  return v === 'a better' ? `${labelOf(model, p.a)} better` : v === 'b better' ? `${labelOf(model, p.b)} better` : v === 'within' ? 'within ±0.01' : 'undecided';
}

const labelOf = (model: ResultsModel, key: string) => model.rows.find((r) => r.key === key)?.label ?? key;

function caption(model: ResultsModel): string {
  const base = labelOf(model, model.baseline);
  const on = model.judgements > 0
    ? `Figures on ${qrelsText(model.qrels)} (qrels version ${model.qrels.version}); in parentheses, on the original qrels. `
    : 'Figures on the original qrels (no judgements of the user). ';
  const tests = model.significanceOn && model.significanceOn.version !== model.qrels.version ? ` (computed on ${qrelsText(model.significanceOn)})` : '';
  const against = model.compare === 'all-pairs' ? 'Every pair of runs is compared' : `Against ${base}`;
  const ranged = model.rows.some((r) => r.intervals) ? 'In brackets: the range of each figure over every grading of the holes (unjudged documents) left in its top 10 (~: a sound bound). ' : '';
  const estimated = comparisons(model).some((p) => p.estimates?.some((e) => judgedEstimate(e)))
    ? `Estimated: b - a with every hole of both runs' top ${comparisons(model).flatMap((p) => p.estimates ?? []).find((e) => judgedEstimate(e))!.depth} judged, from a relevance model fitted to the judged holes, its 95 % interval and the verdict it gives. `
    : '';
  return (
    `${model.dataset} (${model.split}), ${model.numQueries} queries. ${on}` +
    `${against}, ${correction(model)} corrected at alpha ${model.alpha}${tests}: * paired t-test, † randomization test (${model.trials} trials, seed ${model.seed}). ` +
    ranged +
    estimated +
    'MRR@10 is recip_rank on the top 10 (trec_eval -M 10). ' +
    coverageNote(model) +
    qrelsNote(model)
  );
}

/** The comparisons as rows of cells: Δ = b - a, measure, Δ, 95 % interval, adjusted p-values, W/T/L, Δ under the holes, verdict, Δ estimated, its verdict. */
function comparisonRows(model: ResultsModel): string[][] {
  const out: string[][] = [];
  for (const p of comparisons(model)) {
    p.tests?.forEach((c, mi) => {
      if (!c) return;
      const q = adjusted(c);
      const v = p.settled?.[mi];
      const e = judgedEstimate(p.estimates?.[mi]);
      out.push([
        `${labelOf(model, p.b)} - ${labelOf(model, p.a)}`,
        model.measures[mi].label,
        signed(c.delta),
        c.ci ? `[${signed(c.ci.lo)}, ${signed(c.ci.hi)}]` : '',
        pText(q.t),
        pText(q.rand),
        `${c.wins}/${c.ties}/${c.losses}`,
        v ? rangeText(v, true) : '',
        v ? verdictText(v) : '',
        e ? estimateText(e) : '',
        e ? estimateVerdictText(model, p, e) : '',
      ]);
    });
  }
  return out;
}

const COMPARISON_HEAD = (model: ResultsModel) => ['Δ = b - a', 'Measure', 'Δ', '95 % CI', `t-test p (${correction(model)})`, `randomization p (${correction(model)})`, 'W/T/L', 'Δ under the holes', 'verdict', 'Δ estimated (95 %)', 'estimated verdict'];
const signed = (v: number) => (Math.abs(v) < 5e-5 ? '0.0000' : `${v > 0 ? '+' : '-'}${Math.abs(v).toFixed(4)}`);
const pText = (p: number) => (p < 1e-4 ? '<0.0001' : p.toFixed(4));

/** Which qrels state the figures used: the file's hash and counts, and the user's judgements over it. */
function qrelsNote(model: ResultsModel): string {
  const q = model.provenance?.qrels;
  const file = q ? `qrels ${q.path.split(/[\\/]/).slice(-2).join('/')} (sha256 ${q.sha256.slice(0, 12)}, ${q.judgements} judgements of ${q.queries} queries)` : 'no qrels file (your judgements only)';
  const changed = q?.now ? `, since changed to ${q.now.judgements} judgements of ${q.now.queries} queries (sha256 ${q.now.sha256.slice(0, 12)}): these figures are the earlier qrels'` : '';
  const yours = model.judgements > 0 ? `; the annotated figures add ${model.judgements} judgements of yours` : '';
  const runs = new Set(model.provenance?.warnings.map((w) => w.run)).size;
  const warned = runs ? `; ${runs} run${runs > 1 ? 's were' : ' was'} made on other data (see the Results panel)` : '';
  return ` Judged with ${file}${changed}${yours}${warned}.`;
}

/** How missing queries were counted, and the runs that miss some (their figures are pulled towards 0). */
function coverageNote(model: ResultsModel): string {
  const partial = model.rows.filter((r) => r.coverage.answered < r.coverage.total);
  const which = partial.map((r) => `${r.label} answers ${r.coverage.answered} of ${r.coverage.total}`).join('; ');
  return `A query a run does not answer counts as 0 in the means and tests (trec_eval -c)${partial.length ? `: ${which}` : ''}.`;
}

const coverage = (r: ResultsModel['rows'][number]) => `${r.coverage.answered}/${r.coverage.total}`;

function markdown(model: ResultsModel): string {
  const head = ['Run', 'Queries', ...model.measures.map((m) => m.label)];
  // Run names come from files: no HTML (Markdown renderers pass it through), no table breaks.
  const html = (s: string) => s.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const esc = (s: string) => html(s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' '));
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`];
  for (const r of model.rows) {
    const label = r.key === model.baseline ? `${esc(r.label)} (baseline)` : esc(r.label);
    lines.push(`| ${[label, coverage(r), ...r.means.map((_, mi) => cellText(model, r, mi))].join(' | ')} |`);
  }
  const compared = comparisonRows(model);
  if (compared.length > 0) {
    const ch = COMPARISON_HEAD(model);
    lines.push('', `| ${ch.join(' | ')} |`, `|${ch.map((_, i) => (i < 2 ? ' --- ' : ' ---: ')).join('|')}|`);
    // The first cell and the estimated verdict name runs.
    for (const c of compared) lines.push(`| ${c.map((x, i) => (i === 0 || i === c.length - 1 ? esc(x) : x)).join(' | ')} |`);
  }
  return `${lines.join('\n')}\n\n${html(caption(model))}\n`;
}

function csv(model: ResultsModel): string {
  // Run names and paths come from files: csvRecord quotes and neutralises every text field.
  const tested = model.measures.map((m, i) => ({ m, i })).filter(({ m }) => m.tested);
  const head = [
    'run',
    'file',
    'baseline',
    ...model.measures.map((m) => m.key),
    ...tested.flatMap(({ m }) => ['delta', 't_p', 't_p_holm', 'rand_p', 'rand_p_holm', 'wins', 'ties', 'losses'].map((s) => `${m.key}_${s}`)),
    'queries_answered',
    'queries_total',
    // What the panel shows besides (appended, so the columns above keep their places): the qrels state of the
    // figures, the original figures, the ranges under the holes, and per comparison its interval, the chosen
    // correction's p-values and the verdict under the holes.
    'qrels',
    'judgements',
    'correction',
    ...model.measures.flatMap((m) => ['original', 'lo', 'hi'].map((s) => `${m.key}_${s}`)),
    ...tested.flatMap(({ m }) => COMPARISON_COLUMNS.map((s) => `${m.key}_${s}`)),
    // Then each comparison's estimate with the holes judged (b - a: the run minus the baseline).
    ...tested.flatMap(({ m }) => ESTIMATE_COLUMNS.map((s) => `${m.key}_${s}`)),
  ];
  const lines = [csvRecord(head)];
  for (const r of model.rows) {
    const tests = tested.flatMap(({ i }) => {
      const c = r.vsBaseline?.[i];
      return c ? [exact(c.delta), c.tP, c.tPHolm, c.randP, c.randPHolm, c.wins, c.ties, c.losses] : Array<null>(8).fill(null);
    });
    const ranges = model.measures.flatMap((_, i) => {
      const range = r.intervals?.[i];
      return [exact(r.means[i]), range ? exact(range.lo) : null, range ? exact(range.hi) : null];
    });
    const more = tested.flatMap(({ i }) => comparisonCells(r.vsBaseline?.[i] ?? null, r.settled?.[i] ?? null));
    const estimated = tested.flatMap(({ i }) => estimateCells(r.key === model.baseline ? null : r.compared?.[i]));
    lines.push(csvRecord([r.label, r.key, r.key === model.baseline ? 1 : 0, ...r.means.map((_, mi) => exact(shown(r, mi))), ...tests, r.coverage.answered, r.coverage.total,
      model.qrels.state, model.judgements, model.correction ?? 'holm', ...ranges, ...more, ...estimated]));
  }
  // Every pair: a second table after a blank line, one row per pair and measure.
  if (model.compare === 'all-pairs') {
    lines.push('\r\n', csvRecord(['a', 'b', 'measure', 'delta', 't_p', 'rand_p', 'wins', 'ties', 'losses', ...COMPARISON_COLUMNS, ...ESTIMATE_COLUMNS]));
    for (const p of comparisons(model)) {
      tested.forEach(({ m, i }) => {
        const c = p.tests?.[i];
        if (!c) return;
        lines.push(csvRecord([labelOf(model, p.a), labelOf(model, p.b), m.key, exact(c.delta), c.tP, c.randP, c.wins, c.ties, c.losses, ...comparisonCells(c, p.settled?.[i] ?? null), ...estimateCells(p.estimates?.[i])]));
      });
    }
  }
  return lines.join('');
}

const COMPARISON_COLUMNS = ['ci_lo', 'ci_hi', 't_p_adj', 'rand_p_adj', 'holes_lo', 'holes_hi', 'verdict', 'open_holes'];
/** A comparison's estimate (b - a) with the holes judged, its 95 % interval, verdict ("a better" etc.: a and b as in delta) and the holes judged. */
const ESTIMATE_COLUMNS = ['estimate', 'estimate_lo', 'estimate_hi', 'estimate_verdict', 'estimate_judged'];

function estimateCells(e: EstimateView | null | undefined): (string | number | null)[] {
  const j = judgedEstimate(e);
  return j ? [exact(j.estimate), exact(j.lo), exact(j.hi), j.verdict ?? 'undecided', j.judged] : [null, null, null, null, null];
}

/** A comparison's interval, adjusted p-values and verdict under the holes, as COMPARISON_COLUMNS. */
function comparisonCells(c: Comparison | null, v: HoleVerdict | null): (string | number | null)[] {
  const q = c && adjusted(c);
  return [c?.ci ? exact(c.ci.lo) : null, c?.ci ? exact(c.ci.hi) : null, q ? q.t : null, q ? q.rand : null, v ? exact(v.lo) : null, v ? exact(v.hi) : null, v?.verdict ?? null, v ? v.openHoles : null];
}

const TEX_SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '#': '\\#',
  '^': '\\textasciicircum{}',
  _: '\\_',
  '%': '\\%',
  '~': '\\textasciitilde{}',
};
/**
 * File-derived text in LaTeX: special characters escaped, and line breaks and other control characters made
 * spaces (a blank line from a file name would end the paragraph inside a tabular row, which LaTeX refuses).
 */
// eslint-disable-next-line no-control-regex
const tex = (s: string) => s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/[\\{}$&#^_%~]/g, (c) => TEX_SPECIAL[c]);

function latex(model: ResultsModel): string {
  const cols = `l${'r'.repeat(model.measures.length)}`;
  const lines = [
    '\\begin{table}',
    '\\centering',
    `\\caption{${tex(caption(model)).replace('†', '$^\\dagger$').replace('* paired', '$^*$ paired')}}`,
    `\\begin{tabular}{${cols}}`,
    '\\hline',
    `Run & ${model.measures.map((m) => tex(m.label)).join(' & ')} \\\\`,
    '\\hline',
  ];
  for (const r of model.rows) {
    const values = r.means.map((_, mi) => {
      const m = markers(model, r, mi);
      const sup = m === '' ? '' : `$^{${m.replace('†', '\\dagger')}}$`;
      const range = r.intervals?.[mi];
      // The original figure and the range go beneath, small, as the panel shows them.
      const below = [r.annotated ? `orig ${fix(r.means[mi])}` : '', range ? rangeText(range).replace('~', '$\\approx$') : ''].filter(Boolean).join(' ');
      return fix(shown(r, mi)) + sup + (below ? ` {\\scriptsize ${below}}` : '');
    });
    const label = tex(r.label) + (r.key === model.baseline ? ' (baseline)' : '');
    lines.push(`${label} & ${values.join(' & ')} \\\\`);
  }
  lines.push('\\hline', '\\end{tabular}');
  const compared = comparisonRows(model);
  if (compared.length > 0) {
    lines.push('', '\\medskip', '', `\\begin{tabular}{ll${'r'.repeat(COMPARISON_HEAD(model).length - 2)}}`, '\\hline');
    lines.push(`${COMPARISON_HEAD(model).map((h) => tex(h).replace('Δ', '$\\Delta$')).join(' & ')} \\\\`, '\\hline');
    for (const c of compared) lines.push(`${c.map((x, i) => (i === 0 ? tex(x) : tex(x).replace(/</g, '$<$').replace('±', '$\\pm$'))).join(' & ')} \\\\`);
    lines.push('\\hline', '\\end{tabular}');
  }
  lines.push('\\end{table}');
  return `${lines.join('\n')}\n`;
}
