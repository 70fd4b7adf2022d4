// Results panel: runs x measures on the qrels in effect (and the original ones beneath), tests against the
// baseline or between every pair, Δ with intervals against the baseline, one comparison's Δ query by query,
// top-10 document lengths, export.
// Built once, then updated in place (morph): a new model after a judgement changes the figures that moved
// and nothing else, so the page keeps its scroll, its focus and its sort.
import { ESTIMATE_METHOD, type CompareMode, type QueryDeltas, type QueryPlotState, type Comparison, type CorrectionName, type EstimateView, type ExportFormat, type HoleVerdict, type LengthSummary, type PairResult, type ResultsModel, type ResultsRow } from '../../src/protocol/webview.js';
import { barChart, intervalChart, themeColor } from '../components/chart.js';
import { outwardEnds } from '../../src/core/formats/outward.js';
import { fix4, h, isolate, name, pValue, shortName, signed4, svg } from '../components/dom.js';
import { Host } from '../components/host.js';
import { patch, patchInPlace } from '../components/patch.js';
import { restoreSorts, sortable, tableSorts } from '../components/table.js';
import { estimateNode, estimateText, estimateTitle, estimateVerdictNode } from '../components/estimate.js';
import { button, checkbox, dropdown } from '../components/toolkit.js';
import { deltaOf, qrelsText, rangeNode, rangeText, verdictNode, verdictText, significanceText } from '../components/trust.js';
import { provenanceNode } from '../components/provenance.js';
import { keepScroll } from '../components/scroll.js';

const app = document.getElementById('app')!;
const host = new Host<'results'>({ model: show, queries: showQueries });

/** What the panel keeps across a reload of the window (VS Code's view state; the host restores the rest). */
interface Saved {
  ranges?: boolean;
  plot?: string;
  /** The comparison of the per-query plot: "a\tb". */
  pair?: string;
  sorts?: unknown;
  scroll?: number;
}
const saved = host.state as Saved;
let showRanges = saved.ranges === true;
let plotMeasure = typeof saved.plot === 'string' ? saved.plot : 'ndcg_cut_10';
let plotPair = typeof saved.pair === 'string' ? saved.pair : '';
function save(): void {
  host.state = { ranges: showRanges, plot: plotMeasure, pair: plotPair, sorts: tableSorts(), scroll: scroll.top() } satisfies Saved;
}
const scroll = keepScroll(window, saved.scroll, save);
restoreSorts(saved.sorts, save);

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

// The page: regions updated in place, and the controls and the chart, built once.
const head = h('div', { attrs: { id: 'head' } });
const baselinePick = h('span');
const toolbar = h('div', { className: 'toolbar', attrs: { id: 'toolbar' } });
const tableRegion = h('div', { attrs: { id: 'table-region' } });
const sigRegion = h('div', { attrs: { id: 'sig-region' } });
const plotHead = h('div', { attrs: { id: 'plot-head' } });
const plotCanvas = h('canvas', { attrs: { id: 'delta-plot', 'aria-label': 'Δ against the baseline with 95 % intervals' } });
const plotBox = h('div', { className: 'plot', attrs: { id: 'plot-box' } }, plotCanvas);
const queryHead = h('div', { attrs: { id: 'query-plot-head' } });
const queryCanvas = h('canvas', { attrs: { id: 'query-deltas', role: 'img', 'aria-label': 'Δ of each query, sorted, with the mean and its 95 % interval; summarised in words below', 'aria-describedby': 'query-delta-summary' } });
const queryBox = h('div', { className: 'chart plot', attrs: { id: 'query-plot-box' } }, queryCanvas);
const querySummary = h('p', { attrs: { id: 'query-delta-summary' } });
const lengthsRegion = h('div', { attrs: { id: 'lengths-region' } });
const plot = intervalChart(plotCanvas);
app.replaceChildren(head, toolbar, tableRegion, sigRegion, plotHead, plotBox, queryHead, queryBox, querySummary, lengthsRegion);

let model: ResultsModel | undefined;
let shown = '';
let controlsOf = '';

/** Short run names, cut where the runs of this table differ. */
const short = (label: string) => shortName(label, model?.rows.map((r) => r.label) ?? [], 22);

// Buttons inside the regions act through one listener (a morphed node keeps no listener of its own).
app.addEventListener('click', (e) => {
  const el = (e.target as Element).closest<HTMLElement>('[data-action]');
  if (!el || !model) return;
  if (el.dataset.action === 'diff') act(host.request('openDiff', { a: el.dataset.a!, b: el.dataset.b! }));
});

function show(m: ResultsModel): void {
  // The same model again (a second event for one change) changes nothing on the page.
  const json = JSON.stringify(m);
  if (json === shown) return;
  shown = json;
  model = m;
  host.choose({ compare: m.compare ?? 'baseline', correction: m.correction ?? 'holm' });
  document.body.classList.toggle('show-ranges', showRanges);
  controls(m);
  // Each region again only if what it shows changed, in place (morph): a judgement changes some figures of the
  // table and the tests, never the document lengths.
  const labels = m.rows.map((r) => [r.key, r.label]);
  const { skipped, significanceOn, significancePending, pairs, ...rest } = m;
  const table = { ...rest, rows: m.rows.map((r) => ({ ...r, lengths: undefined })) };
  patchInPlace(head, JSON.stringify([m.dataset, m.split, m.qrels, m.judgements, m.numQueries, m.untrusted]), () => renderHead(m));
  patchInPlace(tableRegion, JSON.stringify(table), () => h('div', { attrs: { id: 'table-region' } }, resultsTable(m), coverageNote(m), provenanceNode(m.provenance, m.judgements), legend(m)));
  patchInPlace(sigRegion, JSON.stringify([table, significanceOn, significancePending, pairs]), () => h('div', { attrs: { id: 'sig-region' } }, ...significanceSection(m)));
  deltaPlot(m);
  queryPlot(m);
  patchInPlace(lengthsRegion, JSON.stringify([labels, m.rows.map((r) => r.lengths), skipped]), () => h('div', { attrs: { id: 'lengths-region' } }, ...lengthsSection(m)));
}

function renderHead(m: ResultsModel): HTMLElement {
  const on = m.judgements > 0 ? h('p', { className: 'muted', attrs: { id: 'qrels' } },
    `Figures on ${qrelsText(m.qrels)}; beneath each, in grey ("orig"), on the original qrels. ${m.numQueries} queries; a query a run misses scores 0 (trec_eval -c).`)
    : h('p', { className: 'muted', attrs: { id: 'qrels' } }, `Figures on ${qrelsText(m.qrels)} (no judgements of yours yet). ${m.numQueries} queries; a query a run misses scores 0 (trec_eval -c).`);
  return h('div', { attrs: { id: 'head' } },
    h('h1', {}, 'Results: ', name(m.dataset), ` (${m.split})`),
    on,
    m.untrusted ? h('p', { className: 'note', attrs: { id: 'untrusted' } }, 'Restricted mode: this workspace is not trusted, so IR Workbench only evaluates existing run files; it starts no retrieval process and loads no model.') : null);
}

/** The toolbar: built once, its baseline list again only when the runs or the baseline change. */
function controls(m: ResultsModel): void {
  if (toolbar.childElementCount === 0) {
    const exportButton = (f: ExportFormat, label: string) =>
      button(label, () => act(host.request('export', { format: f }), (v) => {
        const path = (v as { path: string | null }).path;
        status.className = 'muted';
        status.textContent = path ? `Saved ${path}` : '';
      }), { secondary: true, id: `export-${f}`, title: `Export the table as shown (figures, intervals, verdicts) as ${label}` });
    const testing = () => ({ compare: (compare as HTMLElement & { value: string }).value as CompareMode, correction: (correction as HTMLElement & { value: string }).value as CorrectionName });
    const compare = dropdown([{ value: 'baseline', label: 'each run vs the baseline' }, { value: 'all-pairs', label: 'every pair of runs' }], m.compare ?? 'baseline',
      () => act(host.request('setTesting', testing())), 'Which comparisons are tested');
    compare.id = 'compare';
    const correction = dropdown([{ value: 'holm', label: 'Holm' }, { value: 'bh', label: 'Benjamini-Hochberg' }, { value: 'bonferroni', label: 'Bonferroni' }], m.correction ?? 'holm',
      () => act(host.request('setTesting', testing())), 'Correction over the comparisons of each measure');
    correction.id = 'correction';
    const ranges = checkbox('ranges', showRanges, (on) => {
      showRanges = on;
      document.body.classList.toggle('show-ranges', on);
      save();
    });
    ranges.id = 'show-ranges';
    ranges.title = 'Show each figure\'s range over every grading of the holes left in its top 10';
    toolbar.append(
      h('span', {}, 'Baseline'), baselinePick,
      h('span', {}, 'Test'), compare, h('span', {}, 'corrected by'), correction, ranges,
      h('span', { className: 'toolbar-gap' }),
      h('span', { className: 'muted' }, 'Export'), exportButton('markdown', 'Markdown'), exportButton('csv', 'CSV'), exportButton('latex', 'LaTeX'),
      button('Holes…', () => act(host.request('openHoles', {})), { secondary: true, id: 'open-holes' }),
      status);
  }
  const of = JSON.stringify([m.baseline, m.rows.map((r) => [r.key, r.label])]);
  if (of !== controlsOf) {
    controlsOf = of;
    const pick = dropdown(m.rows.map((r) => ({ value: r.key, label: isolate(short(r.label)) })), m.baseline, (key) => act(host.request('setBaseline', { key })), 'Run the others are tested against');
    pick.id = 'baseline';
    baselinePick.replaceChildren(pick);
  }
}

const isBase = (m: ResultsModel, r: ResultsRow) => r.key === m.baseline;
/** The chosen correction's adjusted p-values (Holm's for a model from before the choice existed). */
const adj = (c: Comparison) => ({ t: c.tPAdj ?? c.tPHolm, rand: c.randPAdj ?? c.randPHolm });
const correctionName = (m: ResultsModel) => ({ holm: 'Holm', bh: 'Benjamini-Hochberg', bonferroni: 'Bonferroni' })[m.correction ?? 'holm'];

function resultsTable(m: ResultsModel): HTMLElement {
  const annotated = m.rows.some((r) => r.annotated);
  const base = m.rows.find((r) => isBase(m, r));
  const table = sortable(h('table', { attrs: { id: 'results' } },
    // Coverage next to the name: a run that misses queries is read with that in mind, before its figures.
    h('thead', {}, h('tr', {},
      h('th', { className: 'run' }, 'Run'),
      h('th', { title: "Queries of the split the run answers / the split's queries" }, 'Queries'),
      // Where both qrels states are shown, each column says which line is which.
      ...m.measures.map((c) => h('th', { title: `${c.onAnswered ? `${c.label}: over the queries each run answers (Queries)` : c.label}${annotated ? `\nfirst line: on ${qrelsText(m.qrels)}; second: on the original qrels` : ''}` },
        c.label, annotated ? h('div', { className: 'sub' }, 'yours', h('span', { className: 'orig' }, ' / orig')) : null)),
      h('th', {}, ''))),
    h('tbody', {}, ...m.rows.map((r) => {
      const cells = r.means.map((orig, mi) => {
        const c = r.vsBaseline?.[mi];
        const p = c && adj(c);
        const marks = c ? (p!.t <= m.alpha ? '*' : '') + (p!.rand <= m.alpha ? '†' : '') : '';
        const d = c ? signed4(c.delta) : undefined;
        const value = r.annotated?.[mi] ?? orig;
        const under = r.settled?.[mi];
        const range = r.intervals?.[mi];
        const est = r.compared?.[mi];
        const own = r.estimates?.[mi];
        const measure = m.measures[mi];
        const titles = [
          `${measure.label} ${fix4(value)} on ${qrelsText(m.qrels)}${r.annotated ? `; ${fix4(orig)} on the original qrels` : ''}${measure.onAnswered ? ` (over the ${r.coverage.answered} queries it answers)` : ''}`,
          c && base ? `Δ = ${r.label} − ${base.label}: ${d!.text}${c.ci ? ` [${signed4(c.ci.lo).text}, ${signed4(c.ci.hi).text}]` : ''}; t-test p ${pValue(c.tP)} (${correctionName(m)} ${pValue(p!.t)}); randomization p ${pValue(c.randP)} (${correctionName(m)} ${pValue(p!.rand)}); W/T/L ${c.wins}/${c.ties}/${c.losses}` : '',
          under ? `under the holes Δ ${rangeText(under.lo, under.hi, true)}: ${verdictText(under)}, ${significanceText(under)}` : '',
          est && est.judged > 0 ? `estimated Δ with the holes judged ${estimateText(est, true)}: ${est.verdict ?? 'undecided'} (95 %)` : '',
        ].filter(Boolean);
        // The markers sit in a fixed-width slot after the figure, so decimals align down a column.
        return h('td', {
          title: titles.join('\n'),
          attrs: { 'data-measure': measure.key, 'data-value': fix4(value), 'data-original': fix4(orig), ...(r.annotated ? { 'data-annotated': fix4(r.annotated[mi]) } : {}) },
        },
        h('span', { className: 'num' }, fix4(value)),
        h('span', { className: `marks${marks ? ` sig ${d!.cls}` : ''}` }, marks),
        annotated ? h('div', { className: 'orig', title: 'on the original qrels' }, r.annotated ? fix4(orig) : '\u00a0') : null,
        range ? h('div', { className: 'cell-range' }, rangeNode(range)) : null,
        // The estimate with every hole of the top 100 judged goes with the ranges (behind their toggle). With no
        // hole judged it is the relevance model's prior: nothing worth a figure yet.
        own && own.judged > 0 ? h('div', { className: 'cell-range estimated' }, estimateNode(own)) : null);
      });
      const diff = isBase(m, r) ? null : h('button', { className: 'small', title: `Per-query differences: ${r.label} − ${base?.label ?? ''}`, attrs: { 'data-action': 'diff', 'data-a': m.baseline, 'data-b': r.key } }, 'Diff');
      return h('tr', { className: isBase(m, r) ? 'baseline' : '', attrs: { 'data-key': r.key, 'data-run': r.key } },
        h('td', { className: 'run', attrs: { 'data-value': r.label } }, name(r.label, undefined, short(r.label)), isBase(m, r) ? h('span', { className: 'muted base-mark' }, 'baseline') : null),
        coverageCell(r, m), ...cells, h('td', {}, diff));
    }))), [m.measures.length + 2]);
  // The table scrolls in its own box, the run column staying put.
  return h('div', { className: 'table-scroll', attrs: { id: 'results-scroll' } }, table);
}

const partial = (r: ResultsRow) => r.coverage.answered < r.coverage.total;

/** "answered/total", with a warning where the run misses queries: they count as 0 in its means and tests. */
function coverageCell(r: ResultsRow, m: ResultsModel): HTMLTableCellElement {
  const { answered, total } = r.coverage;
  const missing = total - answered;
  const title = partial(r)
    ? `Answers ${answered} of the ${total} queries of ${m.split}: the ${missing} it misses count as 0 in its means and in the significance tests; Judged@10 and Hole@10 are over the ${answered} it answers.`
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
    `${short.length} run${short.length === 1 ? '' : 's'} answer${short.length === 1 ? 's' : ''} only part of ${m.split} (`, ...which, '). ', how,
    ' Judged@10 and Hole@10 are over the queries each run answers.');
}

function legend(m: ResultsModel): HTMLElement {
  const base = m.rows.find((r) => isBase(m, r));
  return h('p', { className: 'muted', attrs: { id: 'legend' } },
    m.compare === 'all-pairs' ? 'Every pair of runs is tested (below); ' : h('span', {}, 'Against ', name(base?.label ?? '?'), ': '),
    h('span', { className: 'sig' }, '*'), ' paired t-test, ', h('span', { className: 'sig' }, '†'),
    ` randomization test (${m.trials.toLocaleString()} trials, seed ${m.seed}), each significant at ${m.alpha} after ${correctionName(m)} over the comparisons of each measure; coloured by the sign of Δ (`,
    h('span', { className: 'better' }, 'better'), ', ', h('span', { className: 'worse' }, 'worse'), '). MRR@10 is trec_eval\'s ', h('code', { className: 'trec-eval' }, 'recip_rank'), ' on each query\'s top 10 (-M 10). ',
    m.rows.some((r) => r.intervals) ? '"ranges": each figure\'s range over every grading of the holes (unjudged documents) left in its own top 10, with your judgements; ≈ marks a sound bound; none for R@100 and MAP, which look deeper than the top-10 pool. ' : '',
    m.rows.some((r) => r.estimates?.some((e) => e && e.judged > 0)) ? '≈ x [lo, hi] beneath a range: the estimate with every hole of the top 100 judged, and its 95 % interval (hover for how). ' : '',
    'Click a column header to sort, a cell then Copy to copy it.');
}

/** Which qrels the tests are on; while the next ones are computed (a judgement, a large split), the last ones stay. */
function significanceNote(m: ResultsModel): HTMLElement {
  const on = m.significanceOn;
  if (!on) return h('p', { className: 'muted', attrs: { id: 'significance-pending' } }, 'Computing the tests…');
  return h('p', { className: 'muted', attrs: { id: 'significance-on' } },
    `Tests on ${qrelsText(on)}`,
    m.significancePending ? h('span', { attrs: { id: 'significance-pending' } }, ` — updating for ${qrelsText(m.qrels)}…`) : '.');
}

function significanceSection(m: ResultsModel): (HTMLElement | null)[] {
  return [
    h('h2', {}, m.compare === 'all-pairs' ? 'Every pair of runs' : 'Significance against the baseline'),
    significanceNote(m),
    m.significanceOn ? significanceTable(m) : null,
  ];
}

/**
 * The tests of every comparison, grouped by pair: a group's heading names the difference ("Δ = b − a" with
 * both runs), its rows the measures.
 */
function significanceTable(m: ResultsModel): HTMLElement {
  const label = (k: string) => m.rows.find((r) => r.key === k)?.label ?? k;
  const pairs = testedPairs(m);
  const width = 9;
  const groups = pairs.filter((p) => p.tests?.some((c) => c)).map((p) => {
    const rows = (p.tests ?? []).flatMap((c, mi) => {
      if (!c) return [];
      const d = signed4(c.delta);
      const q = adj(c);
      const sig = (x: number) => (x <= m.alpha ? `sig ${d.cls}` : '');
      return [h('tr', { attrs: { 'data-key': `${p.a}\t${p.b}\t${mi}`, 'data-a': p.a, 'data-b': p.b } },
        h('td', {}, m.measures[mi].label),
        h('td', { className: d.cls, attrs: { 'data-value': String(c.delta) } }, d.text),
        h('td', { className: 'ci', attrs: { 'data-value': String(c.ci?.lo ?? '') }, title: c.ci ? `[${signed4(c.ci.lo).text}, ${signed4(c.ci.hi).text}]` : '' }, c.ci ? ciText(c.ci) : ''),
        h('td', { className: sig(q.t), attrs: { 'data-value': String(q.t) }, title: `t-test p ${pValue(c.tP)}, ${correctionName(m)} ${pValue(q.t)}` }, pValue(q.t)),
        h('td', { className: sig(q.rand), attrs: { 'data-value': String(q.rand) }, title: `randomization p ${pValue(c.randP)}, ${correctionName(m)} ${pValue(q.rand)}` }, pValue(q.rand)),
        h('td', { title: 'wins / ties / losses of the first run over the second, by query' }, `${c.wins}/${c.ties}/${c.losses}`),
        estimateCell(p.estimates?.[mi] ?? null, label(p.a), label(p.b)),
        ...holesCells(p.settled?.[mi] ?? null))];
    });
    return h('tbody', { attrs: { 'data-key': `${p.a}\t${p.b}` } },
      h('tr', { className: 'group' }, h('th', { attrs: { colspan: String(width), scope: 'rowgroup' } }, deltaOf('', label(p.b), label(p.a), short))),
      ...rows);
  });
  const head = [
    h('th', {}, 'Measure'),
    h('th', { attrs: { id: 'delta-head' } }, 'Δ'),
    h('th', { title: 'Paired bootstrap 95 % interval of Δ (10,000 resamples)' }, '95 % CI'),
    h('th', { title: `Paired t-test, ${correctionName(m)}-adjusted` }, 't p'),
    h('th', { title: `Paired randomization test, ${correctionName(m)}-adjusted` }, 'rand. p'),
    h('th', {}, 'W/T/L'),
    h('th', { title: `Δ estimated with every hole of both top 100s judged, its 95 % interval, and the verdict from it: a run better, within ±0.01, or undecided. ${ESTIMATE_METHOD}` }, 'Δ estimated'),
    h('th', { title: 'The range of Δ over every grading of the holes in either top 10, with your judgements' }, 'Δ under holes'),
    h('th', { title: 'Settled: the sign of Δ is fixed for every grading of the top-10 pool' }, 'sound verdict'),
  ];
  return h('div', { className: 'table-scroll', attrs: { id: 'significance-scroll' } },
    h('table', { attrs: { id: 'significance' } }, h('thead', {}, h('tr', {}, ...head)), ...groups));
}

/** A 95 % interval at three decimals, widened outwards so the printed interval still holds the computed one. */
function ciText(ci: { lo: number; hi: number }): string {
  const f = (v: number) => (v < 0 ? `\u2212${Math.abs(v).toFixed(3)}` : v > 0 ? `+${v.toFixed(3)}` : '0.000');
  const [lo, hi] = outwardEnds(ci.lo, ci.hi, 3);
  return `[${f(lo)}, ${f(hi)}]`;
}

/** The comparison estimated with the holes judged: Δ and its interval, the verdict from it beneath (b - a). */
function estimateCell(e: EstimateView | null, a: string, b: string): HTMLTableCellElement {
  if (!e) return h('td', {}, '');
  // With no hole judged the estimate is the relevance model's prior: nothing worth a figure yet.
  if (e.judged === 0) return h('td', { className: 'muted', title: `No hole judged yet: judge a sample (the sampling order) to estimate. ${estimateTitle(e)}` }, 'judge a sample');
  return h('td', { className: 'estimate-cell', title: estimateTitle(e), attrs: { 'data-value': String(e.estimate), 'data-verdict': e.verdict ?? 'undecided' } },
    h('span', { className: 'estimate' }, estimateText(e, true)),
    h('div', {}, estimateVerdictNode(e, a, b, short)));
}

/** The comparison under holes: the range of Δ, and settled or open (the sentence in the tooltip). */
function holesCells(v: HoleVerdict | null): HTMLTableCellElement[] {
  if (!v) return [h('td', {}, ''), h('td', {}, '')];
  return [
    h('td', { attrs: { 'data-value': String(v.lo) } }, rangeNode(v, true)),
    h('td', { className: `verdict-cell ${v.verdict}`, attrs: { 'data-value': v.verdict } }, verdictNode(v)),
  ];
}

/** Δ of each run against the baseline with its 95 % interval, on one measure: what a reader looks at first. */
function deltaPlot(m: ResultsModel): void {
  const tested = m.measures.map((c, i) => ({ c, i })).filter(({ c }) => c.tested);
  if (!tested.some(({ c }) => c.key === plotMeasure)) plotMeasure = tested[0]?.c.key ?? plotMeasure;
  const mi = m.measures.findIndex((c) => c.key === plotMeasure);
  const label = (k: string) => m.rows.find((r) => r.key === k)?.label ?? k;
  const against = m.compare === 'all-pairs'
    ? (m.pairs ?? []).filter((p) => p.a === m.baseline).map((p) => ({ key: p.b, c: p.tests?.[mi] ?? null }))
    : m.rows.filter((r) => !isBase(m, r)).map((r) => ({ key: r.key, c: r.vsBaseline?.[mi] ?? null }));
  const rows = against.filter((x) => x.c?.ci);
  if (plotHead.childElementCount === 0 || plotHead.dataset.of !== JSON.stringify([plotMeasure, m.measures.map((c) => c.key)])) {
    plotHead.dataset.of = JSON.stringify([plotMeasure, m.measures.map((c) => c.key)]);
    // The measure's dropdown (a toolkit element, costly to build) only when the measures or the choice change.
    const pick = dropdown(tested.map(({ c }) => ({ value: c.key, label: c.label })), plotMeasure, (v) => {
      plotMeasure = v;
      save();
      if (model) {
        deltaPlot(model);
        queryPlot(model);
      }
    }, 'Measure of the plots');
    pick.id = 'plot-measure';
    plotHead.replaceChildren(h('h2', {}, 'Δ against the baseline'), h('div', { className: 'toolbar' }, h('span', {}, 'Measure'), pick), h('p', { className: 'muted', attrs: { id: 'plot-caption' } }));
  }
  const caption = plotHead.querySelector('#plot-caption')!;
  patch(caption, JSON.stringify([rows.length, m.measures[mi]?.label, label(m.baseline), m.rows.map((r) => r.label), m.significanceOn ?? m.qrels]), () => [
    rows.length ? deltaOf(m.measures[mi]?.label ?? '', 'run', label(m.baseline)) : 'No interval yet: the tests are being computed.',
    rows.length ? `, mean over the queries with its paired bootstrap 95 % interval, on ${qrelsText(m.significanceOn ?? m.qrels)}.` : '']);
  const height = `${Math.max(60, 34 * rows.length + 50)}px`;
  if (plotBox.style.height !== height) plotBox.style.height = height;
  plotBox.hidden = rows.length === 0;
  const green = themeColor('--vscode-charts-green', '#388a34');
  const red = themeColor('--vscode-charts-red', '#e51400');
  const grey = themeColor('--vscode-descriptionForeground', '#888');
  plot.update(
    rows.map((x) => isolate(short(label(x.key)), 30)),
    rows.map(({ c }) => ({ value: c!.delta, lo: c!.ci!.lo, hi: c!.ci!.hi, color: c!.ci!.lo > 0 ? green : c!.ci!.hi < 0 ? red : grey })),
    `Δ ${m.measures[mi]?.label ?? ''} = run − ${isolate(short(label(m.baseline)), 30)}`,
  );
}

/** The comparisons tested, each b - a with its tests by measure (in all-pairs mode every pair, else each run against the baseline). */
function testedPairs(m: ResultsModel): PairResult[] {
  return m.compare === 'all-pairs'
    ? (m.pairs ?? [])
    : m.rows.filter((r) => !isBase(m, r)).map((r) => ({ a: m.baseline, b: r.key, tests: r.vsBaseline, settled: r.settled ?? null, estimates: r.compared ?? null }));
}

/** The per-query plot's state as last pushed (its deltas sorted here), the comparison last chosen, whether drawn. */
let queries: QueryPlotState | undefined;
let plotChosen = '';
let queriesDrawn = false;

function showQueries(q: QueryPlotState): void {
  queries = 'deltas' in q ? { plot: q.plot, deltas: sortedDeltas(q.deltas) } : q;
  if (model) paintQueries(model);
}

/** The deltas best gain first (then by query id), each query's range with it; the state pushed is left as it is. */
function sortedDeltas(d: QueryDeltas): QueryDeltas {
  const order = d.queries.map((_, i) => i).sort((x, y) => d.deltas[y] - d.deltas[x] || (d.queries[x] < d.queries[y] ? -1 : 1));
  const pick = <T>(xs: T[]) => order.map((i) => xs[i]);
  return { ...d, queries: pick(d.queries), deltas: pick(d.deltas), ...(d.ranges ? { ranges: { lo: pick(d.ranges.lo), hi: pick(d.ranges.hi) } } : {}) };
}

const queryChart = barChart(queryCanvas, () => undefined, 'Δ', {
  overlay: true,
  tooltip: (i) => {
    const d = queries && 'deltas' in queries ? queries.deltas : undefined;
    if (!d) return [];
    return [`Δ ${signed4(d.deltas[i]).text}`, ...(d.ranges && d.ranges.hi[i] - d.ranges.lo[i] > 1e-12 ? [`over the grading of its holes ${rangeText(d.ranges.lo[i], d.ranges.hi[i], true)}`] : [])];
  },
});

/**
 * One comparison (b - a) query by query on the plots' measure, sorted by Δ: bars on the qrels in effect, each
 * query's range over its holes behind its bar, and the table's mean Δ with its bootstrap 95 % interval across
 * them (taken from the model, not computed here); the same in words beneath, for a screen reader.
 */
function queryPlot(m: ResultsModel): void {
  const pairs = testedPairs(m);
  const label = (k: string) => m.rows.find((r) => r.key === k)?.label ?? k;
  if (!pairs.some((p) => `${p.a}\t${p.b}` === plotPair)) plotPair = pairs[0] ? `${pairs[0].a}\t${pairs[0].b}` : '';
  const pair = pairs.find((p) => `${p.a}\t${p.b}` === plotPair);
  const of = JSON.stringify([plotPair, pairs.map((p) => [p.a, p.b, label(p.a), label(p.b)])]);
  if (queryHead.dataset.of !== of) {
    queryHead.dataset.of = of;
    const pick = dropdown(pairs.map((p) => ({ value: `${p.a}\t${p.b}`, label: `${isolate(short(label(p.b)), 30)} \u2212 ${isolate(short(label(p.a)), 30)}` })), plotPair, (v) => {
      plotPair = v;
      save();
      if (model) queryPlot(model);
    }, 'The comparison shown query by query (b − a)');
    pick.id = 'query-pair';
    queryHead.replaceChildren(h('h2', {}, 'Δ query by query'), h('div', { className: 'toolbar' }, h('span', {}, 'Comparison'), pick), h('p', { className: 'muted', attrs: { id: 'query-caption' } }));
  }
  const caption = queryHead.querySelector('#query-caption')!;
  queryBox.hidden = !pair;
  if (!pair) {
    caption.textContent = 'Add a second run to compare runs query by query.';
    querySummary.replaceChildren();
    return;
  }
  // The comparison and measure chosen: the host sends their deltas now, and again with every model after.
  const chosen = JSON.stringify([pair.a, pair.b, plotMeasure]);
  if (chosen !== plotChosen) {
    plotChosen = chosen;
    host.request('plot', { a: pair.a, b: pair.b, measure: plotMeasure }).catch((e: Error) => {
      caption.className = 'error';
      caption.textContent = e.message;
    });
  }
  paintQueries(m);
}

/** Draws the per-query deltas held (if of the comparison and measure picked) with the model's mean and interval. */
function paintQueries(m: ResultsModel): void {
  const pair = testedPairs(m).find((p) => `${p.a}\t${p.b}` === plotPair);
  const mi = m.measures.findIndex((c) => c.key === plotMeasure);
  const caption = queryHead.querySelector('#query-caption')!;
  const q = queries && pair && queries.plot.a === pair.a && queries.plot.b === pair.b && queries.plot.measure === plotMeasure ? queries : undefined;
  if (q && 'error' in q) {
    caption.className = 'error';
    caption.textContent = q.error;
    return;
  }
  const d = q?.deltas;
  if (!pair || !d) {
    caption.className = 'muted';
    caption.textContent = 'Computing the queries\' differences…';
    return;
  }
  // Deltas of fewer judgements than the model's: the plot stays as drawn until the new ones come (drawn now under
  // the new mean, they would be drawn over a moment later).
  if (d.qrels.version < m.qrels.version && queriesDrawn) return;
  queriesDrawn = true;
  const label = (k: string) => m.rows.find((r) => r.key === k)?.label ?? k;
  const measure = m.measures[mi]?.label ?? plotMeasure;
  const c = pair.tests?.[mi] ?? null;
  const on = m.significanceOn;
  const green = themeColor('--vscode-gitDecoration-addedResourceForeground', themeColor('--vscode-charts-green', '#388a34'));
  const red = themeColor('--vscode-gitDecoration-deletedResourceForeground', themeColor('--vscode-charts-red', '#e51400'));
  const grey = themeColor('--vscode-descriptionForeground', '#888');
  const uncertain = d.ranges ? d.deltas.filter((_, i) => d.ranges!.hi[i] - d.ranges!.lo[i] > 1e-12).length : 0;
  (queryChart.chart.options.scales!.y as { title: { text: string } }).title.text = `Δ ${measure} (b − a)`;
  queryChart.update(
    d.queries.map((q) => isolate(q, 40)),
    d.deltas,
    d.deltas.map((v) => (v > 1e-9 ? green : v < -1e-9 ? red : grey)),
    -1,
    { ranges: d.ranges, band: c?.ci ? { value: c.delta, lo: c.ci.lo, hi: c.ci.hi } : undefined },
  );
  caption.className = 'muted';
  caption.replaceChildren(
    deltaOf(measure, label(d.b), label(d.a), short),
    ` for each of the ${d.queries.length} queries on ${qrelsText(d.qrels)}, sorted by Δ`,
    d.ranges && uncertain ? `; pale behind a bar: its range over every grading of the query's holes (${uncertain} queries)` : '',
    c?.ci && on
      ? `. Dashed line: the mean Δ ${signed4(c.delta).text}, over the pale band of its paired bootstrap 95 % interval ${ciText(c.ci)} (the table's, on ${qrelsText(on)}${on.version !== d.qrels.version ? ', being updated' : ''}).`
      : '. The mean and its interval come with the tests.');
  querySummary.replaceChildren(...queriesInWords(d, label));
}

/** The plot in words: wins, ties and losses, and the largest gains and losses with their queries (ids as text, isolated). */
function queriesInWords(d: QueryDeltas, label: (k: string) => string): (HTMLElement | string)[] {
  const top = (idx: number[]) => idx.flatMap((i, k) => [k ? ', ' : '', name(d.queries[i]), ` (${signed4(d.deltas[i]).text})`]);
  const n = d.deltas.length;
  const gains = [...Array(Math.min(3, d.wins)).keys()];
  const losses = [...Array(Math.min(3, d.losses)).keys()].map((k) => n - 1 - k);
  return [
    name(label(d.b), undefined, short(label(d.b))), ` − `, name(label(d.a), undefined, short(label(d.a))),
    `: better on ${d.wins} queries, tied on ${d.ties}, worse on ${d.losses}.`,
    ...(gains.length ? [' Largest gains: ', ...top(gains), '.'] : []),
    ...(losses.length ? [' Largest losses: ', ...top(losses), '.'] : []),
  ];
}

function lengthsSection(m: ResultsModel): (HTMLElement | null)[] {
  return [
    h('h2', {}, 'Top-10 document length'),
    h('p', { className: 'muted' }, 'Per query, the average length in words (title + text) of the top-10 documents; boxes show quartiles over queries (as Figure 4 of the BEIR paper).'),
    lengthPlot(m.rows),
    m.skipped.length ? h('h2', {}, 'Run files left out') : null,
    m.skipped.length ? h('ul', { attrs: { id: 'skipped' } }, ...m.skipped.map((s) => h('li', {}, name(s.file), ': ', h('bdi', {}, s.reason)))) : null,
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
    svg('text', { class: 'run-label', x: 0, y: y + 16 }, tspan(isolate(short(label), 28))),
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
  const plotSvg = svg('svg', { width: left + width + 20, height: axisY + 40, role: 'img', 'aria-label': 'Top-10 document length per run' },
    ...rows.flatMap((r, i) => box(r.lengths, i * rowH, r.label)),
    ...axis);
  const table = sortable(h('table', { attrs: { id: 'lengths' } },
    h('thead', {}, h('tr', {}, ...['Run', 'min', 'Q1', 'median', 'Q3', 'max', 'mean'].map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows.map((r) => h('tr', { attrs: { 'data-key': r.key } }, h('td', { className: 'run', attrs: { 'data-value': r.label } }, name(r.label, undefined, short(r.label))), ...[r.lengths.min, r.lengths.q1, r.lengths.median, r.lengths.q3, r.lengths.max, r.lengths.mean].map((v) => h('td', {}, v.toFixed(1))))))));
  return h('div', { className: 'lengths' }, plotSvg, h('div', { className: 'table-scroll' }, table));
}
