// Results panel: runs x measures, significance against a chosen baseline, top-10 document lengths, export.
import type { ExportFormat, LengthSummary, ResultsModel, ResultsRow } from '../../src/protocol/webview.js';
import { fix4, h, pValue, replace, svg } from '../components/dom.js';
import { Host } from '../components/host.js';
import { button, dropdown } from '../components/toolkit.js';

const app = document.getElementById('app')!;
const host = new Host<'results'>({ model: render });
const status = h('span', { className: 'muted', attrs: { id: 'status', role: 'status' } });

function act(p: Promise<unknown>, done?: (v: unknown) => void): void {
  p.then(
    (v) => done?.(v),
    (e: Error) => {
      status.className = 'error';
      status.textContent = e.message;
    },
  );
}

function render(m: ResultsModel): void {
  const base = m.rows.find((r) => r.key === m.baseline);
  const exportButton = (f: ExportFormat, label: string) =>
    button(label, () => act(host.request('export', { format: f }), (v) => {
      const path = (v as { path: string | null }).path;
      status.className = 'muted';
      status.textContent = path ? `Saved ${path}` : '';
    }), { secondary: true, id: `export-${f}` });
  replace(
    app,
    h('h1', {}, `Results: ${m.dataset} (${m.split})`),
    h('p', { className: 'muted' },
      `${m.numQueries} queries, queries a run misses score 0 (trec_eval -c). MRR@10 is recip_rank on each query's top 10 (trec_eval -M 10).`,
      m.judgements > 0 ? ` ${m.judgements} of your judgements: "annotated" figures include them, the others use the original qrels.` : ''),
    m.untrusted ? h('p', { className: 'note', attrs: { id: 'untrusted' } }, 'Restricted mode: this workspace is not trusted, so IR Workbench only evaluates existing run files; it starts no retrieval process and loads no model.') : null,
    h('div', { className: 'toolbar' },
      h('span', {}, 'Baseline'),
      dropdown(m.rows.map((r) => ({ value: r.key, label: r.label })), m.baseline, (key) => act(host.request('setBaseline', { key })), 'Run the others are tested against'),
      exportButton('markdown', 'Markdown'),
      exportButton('csv', 'CSV'),
      exportButton('latex', 'LaTeX'),
      button('Holes…', () => act(host.request('openHoles', {})), { secondary: true, id: 'open-holes' }),
      status),
    resultsTable(m),
    h('p', { className: 'muted' },
      `Against ${base?.label ?? '?'}: `, h('span', { className: 'sig' }, '*'), ' paired t-test, ', h('span', { className: 'sig' }, '†'),
      ` randomization test (${m.trials.toLocaleString()} trials, seed ${m.seed}), each significant at ${m.alpha} after Holm-Bonferroni over the ${Math.max(0, m.rows.length - 1)} compared runs.`),
    h('h2', {}, 'Significance against the baseline'),
    m.significancePending ? h('p', { className: 'muted', attrs: { id: 'significance-pending' } }, 'Computing the tests…') : significanceTable(m),
    h('h2', {}, 'Top-10 document length'),
    h('p', { className: 'muted' }, 'Per query, the average length in words (title + text) of the top-10 documents; boxes show quartiles over queries (as Figure 4 of the BEIR paper).'),
    lengthPlot(m.rows),
    m.skipped.length ? h('h2', {}, 'Run files left out') : null,
    m.skipped.length ? h('ul', { attrs: { id: 'skipped' } }, ...m.skipped.map((s) => h('li', {}, `${s.file}: ${s.reason}`))) : null,
  );
}

function resultsTable(m: ResultsModel): HTMLTableElement {
  const annotated = m.rows.some((r) => r.annotated);
  return h('table', { attrs: { id: 'results' } },
    h('thead', {}, h('tr', {}, h('th', {}, 'Run'), ...m.measures.map((c) => h('th', { title: c.key }, c.label)), h('th', {}, ''))),
    h('tbody', {}, ...m.rows.map((r) => {
      const cells = r.means.map((v, mi) => {
        const c = r.vsBaseline?.[mi];
        const marks = c ? (c.tPHolm <= m.alpha ? '*' : '') + (c.randPHolm <= m.alpha ? '†' : '') : '';
        const title = c ? `Δ ${c.delta >= 0 ? '+' : ''}${fix4(c.delta)}; t-test p ${pValue(c.tP)} (Holm ${pValue(c.tPHolm)}); randomization p ${pValue(c.randP)} (Holm ${pValue(c.randPHolm)}); W/T/L ${c.wins}/${c.ties}/${c.losses}` : undefined;
        return h('td', { title, attrs: { 'data-measure': m.measures[mi].key } },
          fix4(v),
          marks ? h('span', { className: 'sig' }, marks) : null,
          annotated && r.annotated ? h('div', { className: 'delta', title: 'with your judgements' }, `annotated ${fix4(r.annotated[mi])}`) : null);
      });
      const diff = r.key === m.baseline ? null : button('Diff', () => act(host.request('openDiff', { a: m.baseline, b: r.key })), { secondary: true, title: 'Per-query differences against the baseline' });
      return h('tr', { className: r.key === m.baseline ? 'baseline' : '', attrs: { 'data-run': r.key } },
        h('td', { title: r.key }, r.label, r.key === m.baseline ? h('span', { className: 'muted' }, ' (baseline)') : null), ...cells, h('td', {}, diff));
    })));
}

function significanceTable(m: ResultsModel): HTMLTableElement {
  const rows: HTMLTableRowElement[] = [];
  for (const r of m.rows) {
    r.vsBaseline?.forEach((c, mi) => {
      if (!c) return;
      const cls = c.delta > 0 ? 'better' : c.delta < 0 ? 'worse' : '';
      rows.push(h('tr', {},
        h('td', {}, r.label), h('td', {}, m.measures[mi].label),
        h('td', { className: cls }, `${c.delta >= 0 ? '+' : ''}${fix4(c.delta)}`),
        h('td', { className: c.tPHolm <= m.alpha ? 'sig' : '' }, `${pValue(c.tP)} (${pValue(c.tPHolm)})`),
        h('td', { className: c.randPHolm <= m.alpha ? 'sig' : '' }, `${pValue(c.randP)} (${pValue(c.randPHolm)})`),
        h('td', {}, `${c.wins} / ${c.ties} / ${c.losses}`)));
    });
  }
  return h('table', { attrs: { id: 'significance' } },
    h('thead', {}, h('tr', {}, ...['Run', 'Measure', 'Δ', 't-test p (Holm)', 'randomization p (Holm)', 'wins / ties / losses'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows));
}

function lengthPlot(rows: ResultsRow[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.lengths.max));
  const width = 420;
  const left = 200;
  const rowH = 26;
  const x = (v: number) => left + (v / max) * (width - 20);
  const box = (l: LengthSummary, y: number, label: string) => [
    svg('text', { x: 0, y: y + 16 }, Object.assign(document.createElementNS('http://www.w3.org/2000/svg', 'tspan'), { textContent: label.length > 28 ? `${label.slice(0, 27)}…` : label })),
    svg('line', { class: 'whisker', x1: x(l.min), x2: x(l.max), y1: y + 12, y2: y + 12 }),
    svg('rect', { class: 'box', x: x(l.q1), y: y + 4, width: Math.max(1, x(l.q3) - x(l.q1)), height: 16 }),
    svg('line', { class: 'median', x1: x(l.median), x2: x(l.median), y1: y + 2, y2: y + 22 }),
  ];
  const plot = svg('svg', { width: left + width, height: rows.length * rowH + 24, role: 'img', 'aria-label': 'Top-10 document length per run' },
    ...rows.flatMap((r, i) => box(r.lengths, i * rowH, r.label)),
    svg('text', { x: left, y: rows.length * rowH + 18 }, Object.assign(document.createElementNS('http://www.w3.org/2000/svg', 'tspan'), { textContent: `0 … ${Math.round(max)} words` })));
  const table = h('table', { attrs: { id: 'lengths' } },
    h('thead', {}, h('tr', {}, ...['Run', 'min', 'Q1', 'median', 'Q3', 'max', 'mean'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, h('td', {}, r.label), ...[r.lengths.min, r.lengths.q1, r.lengths.median, r.lengths.q3, r.lengths.max, r.lengths.mean].map((v) => h('td', {}, v.toFixed(1)))))));
  return h('div', {}, plot, table);
}
