// Results panel: runs x measures, significance against a chosen baseline, top-10 document lengths, export.
import type { EstimateView, ExportFormat, HoleVerdict, LengthSummary, QrelsLabel, ResultsModel, ResultsRow } from '../../src/protocol/webview.js';
import { fix4, h, isolate, name, pValue, replace, signed4, svg } from '../components/dom.js';
import { Host } from '../components/host.js';
import { sortable } from '../components/table.js';
import { estimateNode, estimateText, estimateTitle, estimateVerdictNode } from '../components/estimate.js';
import { button, dropdown } from '../components/toolkit.js';
import { rangeNode, rangeText, significanceText, verdictText } from '../components/trust.js';

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
    h('h1', {}, 'Results: ', name(m.dataset), ` (${m.split})`),
    h('p', { className: 'muted' },
      `${m.numQueries} queries, queries a run misses score 0 (trec_eval -c). MRR@10 is recip_rank on each query's top 10 (trec_eval -M 10).`,
      m.judgements > 0 ? ` ${m.judgements} of your judgements: "annotated" figures include them, the others use the original qrels.` : ''),
    m.untrusted ? h('p', { className: 'note', attrs: { id: 'untrusted' } }, 'Restricted mode: this workspace is not trusted, so IR Workbench only evaluates existing run files; it starts no retrieval process and loads no model.') : null,
    h('div', { className: 'toolbar' },
      h('span', {}, 'Baseline'),
      dropdown(m.rows.map((r) => ({ value: r.key, label: isolate(r.label) })), m.baseline, (key) => act(host.request('setBaseline', { key })), 'Run the others are tested against'),
      exportButton('markdown', 'Markdown'),
      exportButton('csv', 'CSV'),
      exportButton('latex', 'LaTeX'),
      button('Holes…', () => act(host.request('openHoles', {})), { secondary: true, id: 'open-holes' }),
      status),
    resultsTable(m),
    coverageNote(m),
    h('p', { className: 'muted' },
      'Against ', name(base?.label ?? '?'), ': ', h('span', { className: 'sig' }, '*'), ' paired t-test, ', h('span', { className: 'sig' }, '†'),
      ` randomization test (${m.trials.toLocaleString()} trials, seed ${m.seed}), each significant at ${m.alpha} after Holm-Bonferroni over the ${Math.max(0, m.rows.length - 1)} compared runs; coloured by the sign of Δ (`,
      h('span', { className: 'better' }, 'better'), ', ', h('span', { className: 'worse' }, 'worse'), '). Click a column header to sort, a cell then Copy to copy it.'),
    m.rows.some((r) => r.intervals) ? h('p', { className: 'muted', attrs: { id: 'ranges-legend' } },
      '[low, high]: the range the mean can take over every grading of the holes (unjudged documents) left in the run\'s own top 10, with your judgements (a comparison: in either run\'s top 10); ' +
      'nDCG is not monotone in a hole\'s grade, so the high end is not "every hole relevant". ≈ marks a sound bound where an exact search would take too long. ' +
      'No range is given for R@100 and MAP, which look deeper than the top-10 pool. ≈ x [lo, hi] below a figure: the estimate with every hole of the top 100 judged, and its 95 % interval (hover for how).') : null,
    h('h2', {}, 'Significance against the baseline'),
    significanceNote(m),
    m.significanceOn ? significanceTable(m) : null,
    h('h2', {}, 'Top-10 document length'),
    h('p', { className: 'muted' }, 'Per query, the average length in words (title + text) of the top-10 documents; boxes show quartiles over queries (as Figure 4 of the BEIR paper).'),
    lengthPlot(m.rows),
    m.skipped.length ? h('h2', {}, 'Run files left out') : null,
    m.skipped.length ? h('ul', { attrs: { id: 'skipped' } }, ...m.skipped.map((s) => h('li', {}, name(s.file), ': ', h('bdi', {}, s.reason)))) : null,
  );
}

function resultsTable(m: ResultsModel): HTMLTableElement {
  const annotated = m.rows.some((r) => r.annotated);
  return sortable(h('table', { attrs: { id: 'results' } },
    // Coverage next to the name: a run that misses queries is read with that in mind, before its figures.
    h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', { title: "Queries of the split the run answers / the split's queries" }, 'Queries'),
      ...m.measures.map((c) => h('th', { title: c.key }, c.label)), h('th', {}, ''))),
    h('tbody', {}, ...m.rows.map((r) => {
      const cells = r.means.map((v, mi) => {
        const c = r.vsBaseline?.[mi];
        const marks = c ? (c.tPHolm <= m.alpha ? '*' : '') + (c.randPHolm <= m.alpha ? '†' : '') : '';
        const d = c ? signed4(c.delta) : undefined;
        const under = r.settled?.[mi];
        const holes = under ? `; under the holes Δ ${rangeText(under.lo, under.hi, true)}, ${verdictText(under)}, ${significanceText(under)}` : '';
        const est = r.compared?.[mi];
        const estimated = est && est.judged > 0 ? `; estimated Δ ${estimateText(est, true)}: ${est.verdict ?? ''}` : '';
        const title = c ? `Δ ${d!.text}; t-test p ${pValue(c.tP)} (Holm ${pValue(c.tPHolm)}); randomization p ${pValue(c.randP)} (Holm ${pValue(c.randPHolm)}); W/T/L ${c.wins}/${c.ties}/${c.losses}${holes}${estimated}` : undefined;
        const range = r.intervals?.[mi];
        const own = r.estimates?.[mi];
        // The markers sit in a fixed-width slot after the figure, so decimals align down a column.
        return h('td', { title, attrs: { 'data-measure': m.measures[mi].key, 'data-value': fix4(v) } },
          h('span', { className: 'num' }, fix4(v)),
          h('span', { className: `marks${marks ? ` sig ${d!.cls}` : ''}` }, marks),
          // The range is over the holes left after the user's judgements: it goes with the annotated figure.
          range && !r.annotated ? rangeNode(range) : null,
          annotated && r.annotated ? h('div', { className: 'delta', title: 'with your judgements' }, `annotated ${fix4(r.annotated[mi])}`, range ? rangeNode(range) : null) : null,
          // With no hole judged the estimate is the relevance model's prior: nothing worth a figure yet.
          own && own.judged > 0 ? h('div', { className: 'estimated' }, estimateNode(own)) : null);
      });
      const diff = r.key === m.baseline ? null : button('Diff', () => act(host.request('openDiff', { a: m.baseline, b: r.key })), { secondary: true, title: 'Per-query differences against the baseline' });
      return h('tr', { className: r.key === m.baseline ? 'baseline' : '', attrs: { 'data-run': r.key } },
        h('td', { title: r.key, attrs: { 'data-value': r.label } }, name(r.label), r.key === m.baseline ? h('span', { className: 'muted' }, ' (baseline)') : null),
        coverageCell(r, m), ...cells, h('td', {}, diff));
    }))), [m.measures.length + 2]);
}

const partial = (r: ResultsRow) => r.coverage.answered < r.coverage.total;

/** "answered/total", with a warning where the run misses queries: they count as 0 in its means and tests. */
function coverageCell(r: ResultsRow, m: ResultsModel): HTMLTableCellElement {
  const { answered, total } = r.coverage;
  const missing = total - answered;
  const title = partial(r)
    ? `Answers ${answered} of the ${total} queries of ${m.split}: the ${missing} it misses count as 0 in its means and in the significance tests.`
    : `Answers all ${total} queries of ${m.split}.`;
  return h('td', { className: `coverage${partial(r) ? ' partial' : ''}`, title, attrs: { 'data-value': String(total ? answered / total : 1) } },
    h('span', { className: 'num' }, `${answered}/${total}`),
    h('span', { className: 'marks', attrs: { 'aria-label': partial(r) ? 'warning: part of the split' : '' } }, partial(r) ? '⚠' : ''));
}

/** Under the table: how missing queries were counted, and which runs it matters for. */
function coverageNote(m: ResultsModel): HTMLElement {
  const short = m.rows.filter(partial);
  const how = m.missingQueries === 'zero' ? 'A query a run does not answer counts as 0 in the means and in the significance tests (trec_eval -c).' : '';
  const which = short.flatMap((r, i) => [i ? ', ' : '', name(r.label), ` ${Math.floor((100 * r.coverage.answered) / Math.max(1, r.coverage.total))} %`]);
  if (short.length === 0) return h('p', { className: 'muted', attrs: { id: 'coverage-note' } }, how);
  return h('p', { className: 'note', attrs: { id: 'coverage-note' } },
    h('span', { className: 'coverage partial' }, '⚠ '),
    `${short.length} run${short.length === 1 ? '' : 's'} answer${short.length === 1 ? 's' : ''} only part of ${m.split} (`, ...which, '). ', how);
}

/** Which qrels the tests are on; while the next ones are computed (a judgement, a large split), the last ones stay. */
function significanceNote(m: ResultsModel): HTMLElement {
  const on = m.significanceOn;
  const qrels = (l: QrelsLabel) => (l.state === 'original' ? 'the original qrels' : `the qrels with your ${l.judgements} judgement${l.judgements === 1 ? '' : 's'}`);
  if (!on) return h('p', { className: 'muted', attrs: { id: 'significance-pending' } }, 'Computing the tests…');
  return h('p', { className: 'muted', attrs: { id: 'significance-on' } },
    `Tests on ${qrels(on)}`,
    m.significancePending ? h('span', { attrs: { id: 'significance-pending' } }, ` — updating for ${qrels(m.qrels)}…`) : '.');
}

function significanceTable(m: ResultsModel): HTMLTableElement {
  const rows: HTMLTableRowElement[] = [];
  const base = m.rows.find((r) => r.key === m.baseline)?.label ?? '';
  for (const r of m.rows) {
    r.vsBaseline?.forEach((c, mi) => {
      if (!c) return;
      const d = signed4(c.delta);
      const sig = (p: number) => (p <= m.alpha ? `sig ${d.cls}` : '');
      rows.push(h('tr', {},
        h('td', { attrs: { 'data-value': r.label } }, name(r.label)), h('td', {}, m.measures[mi].label),
        h('td', { className: d.cls, attrs: { 'data-value': d.text.replace('\u2212', '-') } }, d.text),
        h('td', { className: sig(c.tPHolm), attrs: { 'data-value': String(c.tPHolm) } }, `${pValue(c.tP)} (${pValue(c.tPHolm)})`),
        h('td', { className: sig(c.randPHolm), attrs: { 'data-value': String(c.randPHolm) } }, `${pValue(c.randP)} (${pValue(c.randPHolm)})`),
        h('td', {}, `${c.wins} / ${c.ties} / ${c.losses}`),
        ...estimateCells(r.compared?.[mi] ?? null, base, r.label),
        ...holesCells(r.settled?.[mi] ?? null)));
    });
  }
  return sortable(h('table', { attrs: { id: 'significance' } },
    h('thead', {}, h('tr', {}, ...['Run', 'Measure', 'Δ', 't-test p (Holm)', 'randomization p (Holm)', 'wins / ties / losses', 'Δ estimated (95 %)', 'verdict (95 %)', 'Δ over the top-10 holes', 'sound verdict'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows)));
}

/** The comparison estimated with the holes judged: Δ and its interval, and the verdict from it (a: the baseline, b: the run). */
function estimateCells(e: EstimateView | null, a: string, b: string): HTMLTableCellElement[] {
  if (!e) return [h('td', {}, ''), h('td', {}, '')];
  if (e.judged === 0) return [h('td', { className: 'muted', title: estimateTitle(e), attrs: { colspan: '2' } }, 'no hole judged yet: judge a sample (sampling order) to estimate')];
  return [
    h('td', { title: estimateTitle(e), attrs: { 'data-value': String(e.estimate) } }, estimateText(e, true)),
    h('td', { attrs: { 'data-value': e.verdict ?? 'undecided' } }, estimateVerdictNode(e, a, b)),
  ];
}

/** The comparison under holes: the range of Δ, and settled or open (with what judging can do to significance). */
function holesCells(v: HoleVerdict | null): HTMLTableCellElement[] {
  if (!v) return [h('td', {}, ''), h('td', {}, '')];
  const range = rangeNode(v, true);
  return [
    h('td', { attrs: { 'data-value': String(v.lo) } }, range),
    h('td', { className: `verdict ${v.verdict}`, attrs: { 'data-value': v.verdict } }, verdictText(v), h('div', { className: 'delta' }, significanceText(v))),
  ];
}

/** Tick values for an axis from 0 to `max`: about five, at 1, 2 or 5 times a power of ten. */
function ticks(max: number): number[] {
  const raw = max / 5;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * pow).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = 0; v <= max + 1e-9; v += step) out.push(v);
  return out;
}

function lengthPlot(rows: ResultsRow[]): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.lengths.max));
  const width = 420;
  const left = 200;
  const rowH = 26;
  const axisY = rows.length * rowH + 4;
  const x = (v: number) => left + (v / max) * (width - 20);
  const tspan = (text: string) => Object.assign(document.createElementNS('http://www.w3.org/2000/svg', 'tspan'), { textContent: text });
  const box = (l: LengthSummary, y: number, label: string) => [
    svg('text', { class: 'run-label', x: 0, y: y + 16 }, tspan(isolate(label, 28))),
    svg('line', { class: 'whisker', x1: x(l.min), x2: x(l.max), y1: y + 12, y2: y + 12 }),
    svg('rect', { class: 'box', x: x(l.q1), y: y + 4, width: Math.max(1, x(l.q3) - x(l.q1)), height: 16 }),
    svg('line', { class: 'median', x1: x(l.median), x2: x(l.median), y1: y + 2, y2: y + 22 }),
  ];
  const axis = [
    svg('line', { class: 'axis', x1: x(0), x2: x(max), y1: axisY, y2: axisY }),
    ...ticks(max).flatMap((v) => [
      svg('line', { class: 'axis tick', x1: x(v), x2: x(v), y1: axisY, y2: axisY + 4 }),
      svg('text', { class: 'tick-label', x: x(v), y: axisY + 16, 'text-anchor': 'middle' }, tspan(String(v))),
    ]),
    svg('text', { class: 'axis-label', x: x(max / 2), y: axisY + 32, 'text-anchor': 'middle' }, tspan('words per document (title + text), averaged over each query\'s top 10')),
  ];
  const plot = svg('svg', { width: left + width + 20, height: axisY + 40, role: 'img', 'aria-label': 'Top-10 document length per run' },
    ...rows.flatMap((r, i) => box(r.lengths, i * rowH, r.label)),
    ...axis);
  const table = sortable(h('table', { attrs: { id: 'lengths' } },
    h('thead', {}, h('tr', {}, ...['Run', 'min', 'Q1', 'median', 'Q3', 'max', 'mean'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, h('td', { attrs: { 'data-value': r.label } }, name(r.label)), ...[r.lengths.min, r.lengths.q1, r.lengths.median, r.lengths.q3, r.lengths.max, r.lengths.mean].map((v) => h('td', {}, v.toFixed(1))))))));
  return h('div', {}, plot, table);
}
