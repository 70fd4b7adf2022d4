// Holes panel: Hole@10 per run both ways, and the depth-k pool of unjudged pairs of the chosen runs. Built
// afresh when the pool's runs, depth or order change; a new model with the same pool (a judgement) updates the
// figures and the list in place (morph): the page keeps its scroll and focus and does not jump.
import type { ViewEvents } from '../../src/protocol/webview.js';
import { fix4, h, isolate, morph, name, replace, shortName } from '../components/dom.js';
import { keyed } from '../components/patch.js';
import { gradeButton } from '../components/grades.js';
import { Host } from '../components/host.js';
import { keepScroll } from '../components/scroll.js';
import { button, checkbox, dropdown } from '../components/toolkit.js';
import { meterNode } from '../components/trust.js';

type Model = ViewEvents['holes']['model'];
const app = document.getElementById('app')!;
const host = new Host<'holes'>({ model: render });
// Where the page was scrolled to, kept across a window reload (the host restores the pool and the order).
const scroll = keepScroll(window, host.state.scroll, () => (host.state = { scroll: scroll.top() }));
const status = h('span', { className: 'muted', attrs: { id: 'status', role: 'status' } });

function report(p: Promise<unknown>, done?: string): void {
  p.then(
    () => {
      status.className = 'muted';
      status.textContent = done ?? '';
    },
    (e: Error) => {
      status.className = 'error';
      status.textContent = e.message;
    },
  );
}

type Pair = Model['queue'][number];
type Group = { queryId: string; queryText: string; pairs: Pair[]; key: string };

/** The listed pairs by query, in list order (in the impact and sampling orders a query may come back further down). */
function groupsOf(m: Model): Group[] {
  const groups: Group[] = [];
  const seen = new Map<string, number>();
  for (const p of m.queue) {
    const last = groups.at(-1);
    if (last && last.queryId === p.queryId) last.pairs.push(p);
    else {
      // A query's k-th group in the list: the key that matches it to the shown one when the model changes.
      const k = (seen.get(p.queryId) ?? 0) + 1;
      seen.set(p.queryId, k);
      groups.push({ queryId: p.queryId, queryText: p.queryText, pairs: [p], key: `${p.queryId}\t${k}` });
    }
  }
  return groups;
}

/**
 * The listed pairs, grouped by query (its text once, in the group's heading): each document with its title,
 * then its grade. Only the rows whose pair changed are built again (a judgement changes one): the others keep
 * their nodes, the focus and the scroll.
 */
function fillQueue(table: HTMLTableElement, m: Model): void {
  const groups = groupsOf(m);
  const head = () => h('thead', {}, h('tr', {}, ...['Document', 'Title', 'Grade'].map((t) => h('th', { className: 'text' }, t))));
  // The table's sections: its head, then a tbody per group (kept while the group is listed)...
  keyed(table, [null, ...groups], (g) => g?.key ?? '', (g) => (g ? h('tbody', { attrs: { 'data-query': g.queryId } }) : head()), (g) => g?.key ?? '');
  // ... and in each, the group's heading and its pairs.
  const scale = JSON.stringify([m.grades, m.dataset]);
  groups.forEach((g, i) => keyed(table.tBodies[i], [null, ...g.pairs], (p) => (p ? `${p.queryId}\t${p.docId}` : ''), (p) => (p
    ? h('tr', { attrs: { 'data-pair': `${p.queryId}\t${p.docId}` } },
        h('td', { className: 'text' }, name(p.docId)),
        h('td', { className: 'text doc-title', title: p.title ?? '' }, h('bdi', {}, p.title ?? '')),
        h('td', { className: 'text' }, gradeButton(p.grade, m.grades, (grade) => report(host.request('judge', { queryId: p.queryId, docId: p.docId, grade }), `judged ${p.docId}: ${grade}`), m.dataset)))
    : h('tr', { className: 'group' }, h('th', { className: 'text', attrs: { colspan: '3', scope: 'rowgroup' } }, 'Query ', name(g.queryId), ' ', h('bdi', { className: 'query-text', title: g.queryText }, g.queryText)))),
  (p) => (p ? `${p.grade}\t${p.title ?? ''}\t${scale}` : g.queryText)));
}

function note(m: Model): HTMLElement {
  const judgements = m.qrels?.judgements ?? 0;
  return h('p', { className: 'muted', attrs: { id: 'holes-note' } },
    'A hole is a retrieved document without a judgement. Hole@10 (BEIR) is the share of the top 10 judged for no query at all; ',
    // trec_eval's own name, where the page says which of its measures this is (the one place an id belongs).
    'Unjudged@10 (trec_eval 10\'s ', h('code', { className: 'trec-eval' }, 'unj.10'), ') is the share not judged for that query, 1 - Judged@10 where a run returns 10 or more. Both average over the queries a run answers (Queries: a query it does not answer has no top 10 to judge). ',
    (judgements > 0 ? `"original": on the original qrels; "with yours": with your ${judgements} judgement${judgements === 1 ? '' : 's'}.` : 'No judgements of yours yet: both columns are on the original qrels.'));
}

function holesTable(m: Model): HTMLElement {
  const judgements = m.qrels?.judgements ?? 0;
  return h('div', { className: 'table-scroll', attrs: { id: 'holes-region' } }, h('table', { attrs: { id: 'holes' } },
    h('thead', {}, h('tr', {},
      h('th', { className: 'run' }, 'Run'),
      h('th', { title: 'BEIR Hole@10: judged for no query, on the original qrels' }, 'Hole@10 original'),
      h('th', { title: `with your ${judgements} judgements` }, 'with yours'),
      h('th', { title: 'Unjudged@10: not judged for the query, on the original qrels' }, 'Unjudged@10 original'),
      h('th', { title: `with your ${judgements} judgements` }, 'with yours'),
      h('th', { title: "Queries of the split the run answers / the split's queries" }, 'Queries'))),
    h('tbody', {}, ...m.rows.map((r) => {
      const partial = r.coverage.answered < r.coverage.total;
      return h('tr', { attrs: { 'data-run': r.key, 'data-key': r.key } }, h('td', { className: 'run', title: r.key }, name(r.label, undefined, shortName(r.label, m.rows.map((x) => x.label), 24))),
        // Each figure says its column (data-label): a narrow panel shows each run as a card (media/webview.css).
        h('td', { attrs: { 'data-label': 'Hole@10 original' } }, fix4(r.holeBeir)), h('td', { attrs: { 'data-label': 'with yours' } }, fix4(r.holeBeirAnnotated)),
        h('td', { attrs: { 'data-label': 'Unjudged@10 original' } }, fix4(r.holeQuery)), h('td', { attrs: { 'data-label': 'with yours' } }, fix4(r.holeQueryAnnotated)),
        h('td', { className: `coverage${partial ? ' partial' : ''}`, attrs: { 'data-label': 'Queries' }, title: partial ? `Answers ${r.coverage.answered} of the ${r.coverage.total} queries: its figures are over those ${r.coverage.answered}.` : `Answers all ${r.coverage.total} queries.` },
          `${r.coverage.answered}/${r.coverage.total}${partial ? ' ⚠' : ''}`));
    }))));
}

const poolSize = (m: Model) => h('span', { attrs: { id: 'pool-size' } }, `${m.poolSize} distinct (query, document) pairs pooled from the top ${m.depth} of ${m.pooled.length} runs; ${m.remaining} still unjudged.`);

function meterRegion(m: Model): HTMLElement {
  return h('div', { attrs: { id: 'meter-region' } },
    m.order !== 'blind' && m.order !== undefined && !m.meter ? h('p', { className: 'muted', attrs: { id: 'meter' } }, `Pool two runs or more for the ${m.order === 'sample' ? 'sampling' : 'impact'} order: it works on the comparison of the first two.`) : null,
    m.meter ? meterNode(m.meter) : null);
}

// The impact and sampling orders list only the pairs still unjudged.
const listedNote = (m: Model) =>
  h('p', { className: 'muted', attrs: { id: 'listed' } }, m.queue.length < (m.order === 'impact' || m.order === 'sample' ? m.remaining : m.poolSize) ? `The first ${m.queue.length} pairs are listed; the sidebar takes them all.` : '');

/** What the controls are built from: a model that changes none of it is shown in place. */
let built = '';
/** What each part of the page in place was last built from (by the part's id). */
const shown = new Map<string, string>();

function render(m: Model): void {
  // Kept for a window reload: the panel comes back with this pool and order.
  host.choose({ pooled: m.pooled, depth: m.depth, order: m.order ?? 'blind' });
  const controls = JSON.stringify([m.dataset, m.split, m.rows.map((r) => [r.key, r.label]), m.pooled, m.depth, m.order ?? 'blind', m.grades]);
  if (controls === built) {
    // Each part again only if what it shows changed, in place (morph): most judgements change a figure or two.
    const parts = [
      ['holes-note', m.qrels?.judgements ?? 0, note],
      ['holes-region', [m.rows, m.qrels?.judgements ?? 0], holesTable],
      ['pool-size', [m.poolSize, m.depth, m.pooled.length, m.remaining], poolSize],
      ['meter-region', [m.order, m.meter], meterRegion],
      ['listed', [m.queue.length, m.order, m.remaining, m.poolSize], listedNote],
    ] as const;
    for (const [id, of, build] of parts) {
      const key = JSON.stringify(of);
      if (shown.get(id) === key) continue;
      shown.set(id, key);
      morph(document.getElementById(id)!, build(m));
    }
    fillQueue(document.getElementById('queue') as HTMLTableElement, m);
    return;
  }
  built = controls;
  let pooled = new Set(m.pooled);
  let depth = m.depth;
  let order = m.order ?? 'blind';
  const setPool = () => report(host.request('setPool', { runs: [...pooled], depth, order }));
  shown.clear();
  const queue = h('table', { attrs: { id: 'queue' } });
  replace(
    app,
    h('h1', {}, 'Holes: ', name(m.dataset), ` (${m.split})`),
    note(m),
    holesTable(m),
    h('h2', {}, 'Annotation pool'),
    h('div', { className: 'toolbar', attrs: { id: 'pool-runs' } },
      ...m.rows.map((r) => checkbox(isolate(r.label), pooled.has(r.key), (on) => {
        pooled = new Set(pooled);
        if (on) pooled.add(r.key);
        else pooled.delete(r.key);
        setPool();
      }))),
    h('div', { className: 'toolbar' },
      h('span', {}, 'Depth'),
      Object.assign(dropdown([5, 10, 20].map((d) => ({ value: String(d), label: `top ${d}` })), String(m.depth), (v) => {
        depth = Number(v);
        setPool();
      }), { id: 'depth' }),
      poolSize(m),
      h('span', {}, 'Order'),
      Object.assign(dropdown([
        { value: 'blind', label: 'blind (hash of the document)' },
        { value: 'impact', label: 'impact (what decides the first two runs)' },
        { value: 'sample', label: 'sample (where the estimate of the first two runs narrows)' },
      ], order, (v) => {
        order = v === 'impact' || v === 'sample' ? v : 'blind';
        setPool();
      }, 'Impact: holes first whose judgement can most narrow the range of the first two pooled runs\' comparison. Sample: holes of their top 100 drawn at random where judging them narrows the estimate of that comparison most (seeded, so its estimate stays unbiased). Both blind to which run retrieved them'), { id: 'order' }),
      button('Judge in the sidebar', () => report(host.request('annotate', {})), { id: 'annotate' }),
      status),
    meterRegion(m),
    h('div', { className: 'table-scroll', attrs: { id: 'queue-region' } }, queue),
    listedNote(m),
  );
  fillQueue(queue, m);
}
