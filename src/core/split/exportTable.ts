import type { ExportFormat, ResultsModel } from '../../protocol/webview';
import { csvRecord } from '../formats/csv';

/**
 * The results table as text for papers and notes. Values have four decimals (trec_eval's). Markers on a
 * run's value against the baseline, after Holm-Bonferroni over the compared runs: * paired t-test,
 * † randomization test, both at the model's alpha.
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

function markers(model: ResultsModel, row: ResultsModel['rows'][number], mi: number): string {
  const c = row.vsBaseline?.[mi];
  if (!c) return '';
  return (c.tPHolm <= model.alpha ? '*' : '') + (c.randPHolm <= model.alpha ? '†' : '');
}

function caption(model: ResultsModel): string {
  const base = model.rows.find((r) => r.key === model.baseline)?.label ?? model.baseline;
  return (
    `${model.dataset} (${model.split}), ${model.numQueries} queries. Against ${base}, Holm-Bonferroni corrected at ` +
    `alpha ${model.alpha}: * paired t-test, † randomization test (${model.trials} trials, seed ${model.seed}). ` +
    'MRR@10 is recip_rank on the top 10 (trec_eval -M 10). ' +
    coverageNote(model)
  );
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
    lines.push(`| ${[label, coverage(r), ...r.means.map((v, mi) => fix(v) + markers(model, r, mi))].join(' | ')} |`);
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
  ];
  const lines = [csvRecord(head)];
  for (const r of model.rows) {
    const tests = tested.flatMap(({ i }) => {
      const c = r.vsBaseline?.[i];
      return c ? [exact(c.delta), c.tP, c.tPHolm, c.randP, c.randPHolm, c.wins, c.ties, c.losses] : Array<null>(8).fill(null);
    });
    lines.push(csvRecord([r.label, r.key, r.key === model.baseline ? 1 : 0, ...r.means.map(exact), ...tests, r.coverage.answered, r.coverage.total]));
  }
  return lines.join('');
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
    const values = r.means.map((v, mi) => {
      const m = markers(model, r, mi);
      const sup = m === '' ? '' : `$^{${m.replace('†', '\\dagger')}}$`;
      return fix(v) + sup;
    });
    const label = tex(r.label) + (r.key === model.baseline ? ' (baseline)' : '');
    lines.push(`${label} & ${values.join(' & ')} \\\\`);
  }
  lines.push('\\hline', '\\end{tabular}', '\\end{table}');
  return `${lines.join('\n')}\n`;
}
