// Holes panel: Hole@10 per run both ways, and the depth-k pool of unjudged pairs of the chosen runs.
// Built once and updated in place: a judgement changes a few figures and one row of the queue, so only those
// are rebuilt, and the scroll, the focus and the open grade picker of another row stay.
import type { QueueOrder, ViewEvents } from '../../src/protocol/webview.js';
import { fix4, h, isolate, name } from '../components/dom.js';
import { gradeButton } from '../components/grades.js';
import { Host } from '../components/host.js';
import { keyed, patch, setText } from '../components/patch.js';
import { button, checkbox, dropdown } from '../components/toolkit.js';
import { meterNode } from '../components/trust.js';

type Model = ViewEvents['holes']['model'];
const app = document.getElementById('app')!;
const host = new Host<'holes'>({ model: render });
const status = h('span', { className: 'muted', attrs: { id: 'status', role: 'status' } });

/** The pool as the panel's controls set it (from the last model, then the user's clicks). */
let pooled = new Set<string>();
let depth = 10;
let order: QueueOrder = 'blind';
let shown: Model | undefined;

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

const setPool = () => report(host.request('setPool', { runs: [...pooled], depth, order }));

const title = h('h1');
const holeRows = h('tbody');
const poolRuns = h('div', { className: 'toolbar', attrs: { id: 'pool-runs' } });
const depthSlot = h('span');
const poolSize = h('span', { attrs: { id: 'pool-size' } });
const orderSlot = h('span');
const meterSlot = h('div');
const queueRows = h('tbody');
const listed = h('div');

const page = [
  title,
  h('p', { className: 'muted' },
    'A hole is a retrieved document without a judgement. Hole@10 (BEIR) is the share of the top 10 judged for no query at all; ' +
    'unjudged@10 (trec_eval 10\'s unj.10) is the share not judged for that query, 1 - Judged@10 where a run returns 10 or more. Both average over the split\'s queries; "annotated" counts your judgements.'),
  h('table', { attrs: { id: 'holes' } },
    h('thead', {}, h('tr', {}, ...['Run', 'Hole@10 (BEIR: judged for no query)', 'annotated', 'unjudged@10 (not judged for the query)', 'annotated'].map((t) => h('th', {}, t)))),
    holeRows),
  h('h2', {}, 'Annotation pool'),
  poolRuns,
  h('div', { className: 'toolbar' },
    h('span', {}, 'Depth'), depthSlot, poolSize,
    h('span', {}, 'Order'), orderSlot,
    button('Judge in the sidebar', () => report(host.request('annotate', {})), { id: 'annotate' }),
    status),
  meterSlot,
  h('table', { attrs: { id: 'queue' } },
    h('thead', {}, h('tr', {}, ...['Query', 'Text', 'Document', 'Grade'].map((t) => h('th', { className: 'text' }, t)))),
    queueRows),
  listed,
];

function render(m: Model): void {
  if (!shown) app.replaceChildren(...page);
  shown = m;
  pooled = new Set(m.pooled);
  depth = m.depth;
  order = m.order ?? 'blind';
  patch(title, JSON.stringify([m.dataset, m.split]), () => ['Holes: ', name(m.dataset), ` (${m.split})`]);
  keyed(holeRows, m.rows, (r) => r.key, (r) =>
    h('tr', { attrs: { 'data-run': r.key } }, h('td', { title: r.key }, name(r.label)), h('td', {}, fix4(r.holeBeir)), h('td', {}, fix4(r.holeBeirAnnotated)),
      h('td', {}, fix4(r.holeQuery)), h('td', {}, fix4(r.holeQueryAnnotated))));
  patch(poolRuns, JSON.stringify([m.rows.map((r) => [r.key, r.label]), m.pooled]), () => m.rows.map((r) => checkbox(isolate(r.label), pooled.has(r.key), (on) => {
    pooled = new Set(pooled);
    if (on) pooled.add(r.key);
    else pooled.delete(r.key);
    setPool();
  })));
  patch(depthSlot, String(m.depth), () => [Object.assign(dropdown([5, 10, 20].map((d) => ({ value: String(d), label: `top ${d}` })), String(m.depth), (v) => {
    depth = Number(v);
    setPool();
  }), { id: 'depth' })]);
  setText(poolSize, `${m.poolSize} distinct (query, document) pairs pooled from the top ${m.depth} of ${m.pooled.length} runs; ${m.remaining} still unjudged.`);
  patch(orderSlot, order, () => [Object.assign(dropdown([
    { value: 'blind', label: 'blind (hash of the document)' },
    { value: 'impact', label: 'impact (what decides the first two runs)' },
    { value: 'sample', label: 'sample (where the estimate of the first two runs narrows)' },
  ], order, (v) => {
    order = v === 'impact' || v === 'sample' ? v : 'blind';
    setPool();
  }, 'Impact: holes first whose judgement can most narrow the range of the first two pooled runs\' comparison. Sample: holes of their top 100 drawn at random where judging them narrows the estimate of that comparison most (seeded, so its estimate stays unbiased). Both blind to which run retrieved them'), { id: 'order' })]);
  patch(meterSlot, JSON.stringify([m.order, m.meter ?? null]), () => [
    m.order !== 'blind' && m.order !== undefined && !m.meter ? h('p', { className: 'muted', attrs: { id: 'meter' } }, `Pool two runs or more for the ${m.order === 'sample' ? 'sampling' : 'impact'} order: it works on the comparison of the first two.`) : null,
    m.meter ? meterNode(m.meter) : null,
  ]);
  keyed(queueRows, m.queue, (p) => `${p.queryId}\t${p.docId}`, (p) =>
    h('tr', { attrs: { 'data-pair': `${p.queryId}\t${p.docId}` } },
      h('td', { className: 'text' }, name(p.queryId)),
      h('td', { className: 'text', title: p.queryText }, h('bdi', {}, p.queryText.length > 80 ? `${p.queryText.slice(0, 79)}…` : p.queryText)),
      h('td', { className: 'text' }, name(p.docId)),
      h('td', { className: 'text' }, gradeButton(p.grade, m.grades, (grade) => report(host.request('judge', { queryId: p.queryId, docId: p.docId, grade }), `judged ${p.docId}: ${grade}`), m.dataset))),
  // A row is what it shows: the pair, its text, its grade and the scale offered.
  (p) => JSON.stringify([p.queryText, p.grade, m.grades, m.dataset]));
  // The impact and sampling orders list only the pairs still unjudged.
  patch(listed, JSON.stringify([m.queue.length, m.order, m.remaining, m.poolSize]), () => [
    m.queue.length < (m.order === 'impact' || m.order === 'sample' ? m.remaining : m.poolSize) ? h('p', { className: 'muted' }, `The first ${m.queue.length} pairs are listed; the sidebar takes them all.`) : null,
  ]);
}
