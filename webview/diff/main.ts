// Run diff: per-query nDCG@10 delta (b - a) as a sorted bar chart, the queries' list beside the selected
// query's two top-k lists. Updated in place (morph) when a judgement changes the model: the list keeps its
// scroll, the page its focus.
import type { DiffModel, QueryDetail, RankedDoc } from '../../src/protocol/webview.js';
import { barChart, onThemeChange, themeColor, type BarChart } from '../components/chart.js';
import { fix4, h, morph, name, replace, shortName, signed4 } from '../components/dom.js';
import { gradeButton } from '../components/grades.js';
import { keyed, setText } from '../components/patch.js';
import { diffExplanationNode } from '../components/explain.js';
import { highlight } from '../components/highlight.js';
import { keepScroll } from '../components/scroll.js';
import { Host } from '../components/host.js';
import { estimateNode, estimateVerdictNode } from '../components/estimate.js';
import { checkbox, dropdown } from '../components/toolkit.js';
import { deltaOf, qrelsText, rangeNode, rangeText, significanceText, verdictText } from '../components/trust.js';
import { whatIfNode } from '../components/whatIf.js';

type Filter = 'wins' | 'losses' | 'ties' | 'holes';
const app = document.getElementById('app')!;
const host = new Host<'diff'>({ model: show });

let model: DiffModel | undefined;
const filters = new Set<Filter>();
/** Indexes into model.queries of the queries shown, in chart order. */
let visible: number[] = [];
let selected: string | undefined = host.state.selected as string | undefined;
let depth = 10;
/** Order of the chart and list: by Δ (the model's), or most divergent rankings first (lowest RBO). */
let sortBy: 'delta' | 'divergence' = host.state.sortBy === 'divergence' ? 'divergence' : 'delta';
// The list's scroll and the page's are kept across a window reload with the selection and the order.
const save = () => (host.state = { selected, sortBy, listScroll: listScroll.top(), scroll: pageScroll.top() });

const header = h('div', { attrs: { id: 'header' } });
const filtersBar = h('div', { className: 'toolbar', attrs: { id: 'filters' } });
const canvas = h('canvas', { attrs: { id: 'deltas', 'aria-label': 'Per-query delta bar chart' } });
const rows = h('tbody');
const more = h('p', { className: 'muted', attrs: { id: 'more-queries' } });
const list = h('div', { className: 'query-list', attrs: { id: 'list' } }, h('table', { attrs: { id: 'queries' } }, rows), more);
const detail = h('div', { attrs: { id: 'detail' } });
const status = h('div', { className: 'muted', attrs: { id: 'status', role: 'status' } });
// The detail beside the list (not below it): at 1280x800 both are on screen with the chart above.
replace(app, header, filtersBar, h('div', { className: 'chart' }, canvas), status, h('div', { className: 'diff-panes' }, list, detail));
const chart: BarChart = barChart(canvas, (i) => select(model!.queries[visible[i * perBar]]), 'Δ nDCG@10 (b − a)');
const listScroll = keepScroll(list, host.state.listScroll, save);
const pageScroll = keepScroll(window, host.state.scroll, save);
list.addEventListener('click', (e) => {
  const tr = (e.target as Element).closest<HTMLElement>('tr[data-query]');
  if (tr) select(tr.dataset.query!);
});
let filtersOf = '';
/** Queries per bar: 1, unless there are more queries than the canvas has pixels (then contiguous runs of the
 * sorted deltas share a bar, drawn at their middle value; chart.js takes ~0.3 s for 10,000 bars). */
let perBar = 1;

const EPS = 1e-9;
function keep(i: number): boolean {
  const d = model!.deltas[i];
  if (filters.size === 0) return true;
  const outcome = (filters.has('wins') && d > EPS) || (filters.has('losses') && d < -EPS) || (filters.has('ties') && Math.abs(d) <= EPS);
  const anyOutcome = filters.has('wins') || filters.has('losses') || filters.has('ties');
  return (!anyOutcome || outcome) && (!filters.has('holes') || model!.holes[i] === 1);
}

function show(m: DiffModel): void {
  const same = model !== undefined && JSON.stringify(m) === JSON.stringify(model);
  model = m;
  if (same) return;
  const wins = m.deltas.filter((d) => d > EPS).length;
  const losses = m.deltas.filter((d) => d < -EPS).length;
  const runs = [m.a.label, m.b.label];
  const short = (l: string) => shortName(l, runs, 30);
  const yours = m.judgements > 0;
  morph(header, h('div', { attrs: { id: 'header' } },
    h('h1', {}, 'Run diff: ', deltaOf(m.measure, m.b.label, m.a.label, short)),
    // Where the user's judgements move a figure, both are given and labelled (the bars use the ones in effect).
    h('p', { className: 'muted', attrs: { id: 'means' } }, name(m.dataset), ` (${m.split}), ${m.queries.length} queries. ${m.measure} on ${qrelsText(m.qrels)}: `,
      'a ', name(m.a.label, undefined, short(m.a.label)), ` ${fix4(m.meanA)}, b `, name(m.b.label, undefined, short(m.b.label)), ` ${fix4(m.meanB)}`,
      yours ? `; on the original qrels: a ${fix4(m.originalA)}, b ${fix4(m.originalB)}` : '', '. Bars: b − a per query; click one to compare the rankings.'),
    m.range ? h('p', { attrs: { id: 'verdict' } },
      `Δ ${signed4(m.range.delta).text} on ${qrelsText(m.qrels)}; over every grading of the holes left `, h('strong', {}, rangeText(m.range.lo, m.range.hi, true)),
      ': ', h('strong', { className: `verdict ${m.range.verdict}` }, verdictText(m.range)), ` (${significanceText(m.range)}).`,
      m.intervalA && m.intervalB ? h('span', { className: 'muted', attrs: { id: 'mean-ranges' } }, ' Means over the holes: a', rangeNode(m.intervalA), ', b', rangeNode(m.intervalB), '.') : null) : null,
    m.estimate && m.estimate.judged > 0 ? h('p', { attrs: { id: 'estimate' } }, `Estimated with the holes of both top ${m.estimate.depth} judged: Δ `, estimateNode(m.estimate, true), ': ', h('strong', {}, estimateVerdictNode(m.estimate, m.a.label, m.b.label)), '.') : null));
  const of = JSON.stringify([wins, losses, m.queries.length, m.rbo !== undefined, m.rboMean]);
  if (of !== filtersOf) {
    filtersOf = of;
    replace(filtersBar,
      ...([['wins', `wins (${wins})`], ['losses', `losses (${losses})`], ['ties', `ties (${m.queries.length - wins - losses})`], ['holes', 'has holes']] as [Filter, string][]).map(([f, label]) =>
        checkbox(label, filters.has(f), (on) => {
          if (on) filters.add(f);
          else filters.delete(f);
          redraw();
        }),
      ),
      m.rbo ? h('span', {}, 'Sort') : null,
      m.rbo ? Object.assign(dropdown([
        { value: 'delta', label: 'by Δ' },
        { value: 'divergence', label: 'most divergent rankings first (1 − RBO)' },
      ], sortBy, (v) => {
        sortBy = v === 'divergence' ? 'divergence' : 'delta';
        save();
        redraw();
      }, 'Rank-biased overlap of the two top-100 lists (p = 0.9, extrapolated), no judgements needed'), { id: 'sort' }) : null,
      m.rboMean !== undefined ? h('span', { className: 'muted', attrs: { id: 'rbo-mean' } }, `mean RBO ${m.rboMean.toFixed(3)}`) : null);
  }
  redraw();
  if (selected && m.queries.includes(selected)) void load(selected);
}

function redraw(): void {
  const m = model!;
  visible = [];
  for (let i = 0; i < m.queries.length; i++) if (keep(i)) visible.push(i);
  const rbo = m.rbo;
  if (sortBy === 'divergence' && rbo) visible.sort((x, y) => rbo[x] - rbo[y] || x - y);
  perBar = Math.max(1, Math.ceil(visible.length / Math.max(200, canvas.clientWidth)));
  bars = [];
  for (let i = 0; i < visible.length; i += perBar) bars.push(visible[Math.min(visible.length - 1, i + (perBar >> 1))]);
  paintChart();
  status.textContent = `${visible.length} of ${m.queries.length} queries shown${perBar > 1 ? ` (one bar per ${perBar} queries)` : ''}`;
  // The list is for reading and keyboard moves; the chart holds every query, the list the first LISTED. A row is
  // built only when what it shows changed (a judgement changes a query or two): the others keep their nodes.
  const row = (i: number) => {
    const d = signed4(m.deltas[i]);
    return h('tr', { attrs: { 'data-query': m.queries[i] } },
      h('td', {}, name(m.queries[i])),
      h('td', { className: 'text query-text', title: m.texts[i] }, h('bdi', {}, m.texts[i])),
      h('td', { className: d.cls }, d.text),
      h('td', { className: 'rbo', title: 'RBO: rank-biased overlap of the two top-100 lists' }, rbo ? rbo[i].toFixed(2) : ''),
      // The range says whether holes are left: one value when none can move it, "holes" otherwise.
      h('td', { className: 'range', title: m.holes[i] ? 'Range of b − a over every grading of this query\'s holes (unjudged documents in either top 10)' : 'No hole in either top 10' },
        m.perQuery ? rangeText(m.perQuery.lo[i], m.perQuery.hi[i], true) : m.holes[i] ? 'holes' : ''));
  };
  const shows = (i: number) => `${m.texts[i]}\t${signed4(m.deltas[i]).text}\t${rbo ? rbo[i].toFixed(2) : ''}\t${m.holes[i]}\t${m.perQuery ? rangeText(m.perQuery.lo[i], m.perQuery.hi[i], true) : ''}`;
  const fill = (n: number) => {
    keyed(rows, visible.slice(0, n), (i) => m.queries[i], row, shows);
    for (const tr of rows.children) tr.classList.toggle('selected', tr.getAttribute('data-query') === selected);
  };
  // The rows already listed are updated in place (the list keeps its scroll); new ones come after the first frame.
  const now = Math.max(FIRST_ROWS, Math.min(rows.childElementCount, LISTED));
  fill(now);
  setText(more, visible.length > LISTED ? `… and ${visible.length - LISTED} more in the chart` : '');
  more.hidden = visible.length <= LISTED;
  // The rows below the first screens after the first frame (laying out 500 rows took ~35 ms of a 10,000-query
  // diff's ~120 ms first draw); a redraw before then drops them.
  cancelAnimationFrame(moreRows);
  if (visible.length > now && now < LISTED) {
    moreRows = requestAnimationFrame(() => {
      moreRows = requestAnimationFrame(() => fill(LISTED));
    });
  }
  // The detail pane shows only a query the filters keep.
  if (selected !== undefined && !visible.some((i) => m.queries[i] === selected)) {
    replace(detail, h('p', { className: 'muted', attrs: { id: 'detail-hidden' } }, 'The selected query is hidden by the filters.'));
  } else if (selected !== undefined && detail.querySelector('#detail-hidden')) {
    void load(selected);
  }
}

/** Bar indexes (into model.queries) in chart order. */
let bars: number[] = [];
/** Rows of the list: the first FIRST_ROWS with the chart, up to LISTED in the frame after. */
const FIRST_ROWS = 100;
const LISTED = 500;
let moreRows = 0;

/** Draws the bars in the theme's colours, the selected query's bar outlined in the focus colour. */
function paintChart(): void {
  const m = model!;
  const green = themeColor('--vscode-gitDecoration-addedResourceForeground', themeColor('--vscode-charts-green', '#3c3'));
  const red = themeColor('--vscode-gitDecoration-deletedResourceForeground', themeColor('--vscode-charts-red', '#c33'));
  const grey = themeColor('--vscode-descriptionForeground', '#888');
  const at = selected === undefined ? -1 : Math.floor(visible.findIndex((i) => m.queries[i] === selected) / perBar);
  const labels = bars.map((i, k) => (perBar === 1 ? m.queries[i] : `${m.queries[visible[k * perBar]]} … (${Math.min(perBar, visible.length - k * perBar)} queries)`));
  const values = bars.map((i) => m.deltas[i]);
  const colors = bars.map((i) => (m.deltas[i] > EPS ? green : m.deltas[i] < -EPS ? red : grey));
  chart.update(labels, values, colors, at);
}

// A theme switch changes the CSS variables; the canvas keeps the colours it was drawn with until redrawn.
onThemeChange(() => {
  if (model) paintChart();
});

function select(queryId: string): void {
  selected = queryId;
  depth = 10;
  save();
  for (const tr of list.querySelectorAll('tr')) tr.classList.toggle('selected', tr.getAttribute('data-query') === queryId);
  paintChart();
  void load(queryId);
}

async function load(queryId: string): Promise<void> {
  try {
    const d = await host.request('query', { queryId, depth });
    if (d.queryId === selected) renderDetail(d);
  } catch (e) {
    replace(detail, h('p', { className: 'error' }, (e as Error).message));
  }
}

const MOVE = { up: '▲', down: '▼', same: '•', new: '+', dropped: '✕' } as const;
const MOVE_TEXT = { up: 'ranked higher by b', down: 'ranked lower by b', same: 'same rank', new: `not in a's top list`, dropped: `not in b's top list` } as const;

function docRow(d: RankedDoc, q: QueryDetail): HTMLElement {
  const judge = (grade: number) => {
    status.textContent = `saving grade ${grade} for ${d.docId}…`;
    host.request('judge', { queryId: q.queryId, docId: d.docId, grade }).then(
      () => (status.textContent = `judged ${d.docId}: ${grade}`),
      (e: Error) => {
        status.className = 'error';
        status.textContent = e.message;
      },
    );
  };
  const other = d.otherRank === null ? 'absent from the other run' : `rank ${d.otherRank} in the other run`;
  return h('div', { className: 'doc', attrs: { 'data-doc': d.docId, 'data-move': d.move, 'data-key': d.docId } },
    h('div', {},
      h('span', { className: 'muted' }, `${d.rank}. `),
      h('span', { className: `move ${d.move}`, title: `${MOVE_TEXT[d.move]}; ${other}` }, MOVE[d.move]),
      ' ', gradeButton(d.grade, q.grades, judge, model!.dataset), ' ',
      h('bdi', { className: 'title' }, ...(d.title ? highlight(d.title, q.text) : [d.docId])),
      ' ', name(d.docId), ' ', whyButton(d)),
    h('div', { className: 'snippet', attrs: { dir: 'auto' } }, ...highlight(d.snippet, q.text)));
}

/** This query's b - a and its range over the query's holes (what judging them can still do). */
function queryRange(queryId: string): HTMLElement | null {
  const m = model!;
  const i = m.queries.indexOf(queryId);
  if (i < 0 || !m.perQuery) return null;
  const [lo, hi] = [m.perQuery.lo[i], m.perQuery.hi[i]];
  return h('p', { className: 'muted', attrs: { id: 'query-range' } },
    `b − a ${signed4(m.deltas[i]).text} on ${qrelsText(m.qrels)}; over every grading of this query's holes `, h('strong', {}, rangeText(lo, hi, true)),
    lo > 1e-12 || hi < -1e-12 ? ': the sign is settled.' : hi - lo > 1e-12 ? ': judging them can change the sign.' : '.');
}

function renderDetail(q: QueryDetail): void {
  const m = model!;
  // The same query again (a judgement refreshed it): updated in place; another query: built anew.
  if (detail.dataset.key !== q.queryId) {
    detail.replaceChildren();
    detail.dataset.key = q.queryId;
  }
  morph(detail, h('div', { attrs: { id: 'detail', 'data-key': q.queryId } },
    h('h2', {}, 'Query ', name(q.queryId)),
    h('p', { attrs: { id: 'query-text', dir: 'auto' } }, q.text),
    queryRange(q.queryId),
    h('div', { className: 'columns' },
      h('div', { attrs: { id: 'list-a' } }, h('h2', {}, 'a: ', name(m.a.label, undefined, shortName(m.a.label, [m.b.label], 24)), ` (${fix4(q.scoreA)})`), ...q.a.map((d) => docRow(d, q))),
      h('div', { attrs: { id: 'list-b' } }, h('h2', {}, 'b: ', name(m.b.label, undefined, shortName(m.b.label, [m.a.label], 24)), ` (${fix4(q.scoreB)})`), ...q.b.map((d) => docRow(d, q)))),
    h('p', { className: 'muted' }, '▲ b ranks it higher, ▼ lower, + new in b\'s top list, ✕ dropped from it; ? is an unjudged document (a hole): click a grade to judge; why? explains its rank in each run.'),
    h('button', { className: 'grade', attrs: { id: 'more', 'data-action': 'more' } }, `Show ${depth + 10}`),
    // The explanation and the what-if editor are the page's own (a refresh keeps what was typed and asked).
    h('div', { attrs: { id: 'extras', 'data-key': 'extras', 'data-own': '' } })));
  shownDetail = q;
  const extras = detail.querySelector('#extras')!;
  const editor = whatIfFor(q);
  if (extras.firstChild !== explainBox || extras.lastChild !== editor) extras.replaceChildren(explainBox, editor);
}

/** The explanation of the last document asked about, and the what-if editor of the selected query (kept across redraws). */
const explainBox = h('div', { attrs: { id: 'explain-box' } });
let whatIf: { queryId: string; node: HTMLElement } | undefined;
/** The query detail on screen. */
let shownDetail: QueryDetail | undefined;

function whyButton(d: RankedDoc): HTMLElement {
  return h('button', { className: 'why', title: 'Why is it ranked here in a and there in b?', attrs: { 'data-why': d.docId } }, 'why?');
}

/** Why the shown query's document `docId` is ranked where it is in a and in b. */
function explain(docId: string): void {
  const q = shownDetail;
  const d = q && [...q.a, ...q.b].find((x) => x.docId === docId);
  if (!q || !d) return;
  replace(explainBox, h('p', { className: 'muted' }, 'explaining…'));
  host.request('explain', { queryId: q.queryId, docId }).then(
    (e) => replace(explainBox, diffExplanationNode(e, { a: model!.a.label, b: model!.b.label }, { title: d.title, snippet: d.snippet })),
    (e: Error) => replace(explainBox, h('p', { className: 'error' }, e.message)));
}

function whatIfFor(q: QueryDetail): HTMLElement {
  if (whatIf?.queryId !== q.queryId) {
    replace(explainBox);
    whatIf = { queryId: q.queryId, node: whatIfNode(q.queryId, q.text, { a: model!.a.label, b: model!.b.label }, {
      run: (side, edit) => host.request('whatIf', { queryId: q.queryId, side, edit }),
      save: (side) => host.request('saveWhatIf', { side }),
    }) };
  }
  return whatIf.node;
}

detail.addEventListener('click', (e) => {
  const why = (e.target as Element).closest<HTMLElement>('[data-why]');
  if (why) return explain(why.dataset.why!);
  if (!(e.target as Element).closest('#more') || selected === undefined) return;
  depth += 10;
  void load(selected);
});

document.addEventListener('keydown', (e) => {
  if (!model || visible.length === 0 || e.target instanceof HTMLInputElement) return;
  const at = selected === undefined ? -1 : visible.findIndex((i) => model!.queries[i] === selected);
  if (e.key === 'j' || e.key === 'ArrowDown') select(model.queries[visible[Math.min(visible.length - 1, at + 1)]]);
  else if (e.key === 'k' || e.key === 'ArrowUp') select(model.queries[visible[Math.max(0, at - 1)]]);
  else return;
  e.preventDefault();
});
