// Hole-annotation sidebar: one (query, document) pair at a time, keyboard first, blind to the runs.
import type { AnnotationState, QueueOrder } from '../../src/protocol/webview.js';
import { fix4, h, name, replace } from '../components/dom.js';
import { gradeClass, gradeText } from '../components/grades.js';
import { highlight } from '../components/highlight.js';
import { Host } from '../components/host.js';
import { button, dropdown } from '../components/toolkit.js';
import { meterNode } from '../components/trust.js';

const app = document.getElementById('app')!;
const host = new Host<'annotate'>({ state: render });
let state: AnnotationState | undefined;
let busy = false;
const status = h('div', { className: 'muted', attrs: { id: 'status', role: 'status' } });

/** One request at a time: a grade is confirmed (durable) before the next key acts. */
function setBusy(on: boolean): void {
  busy = on;
  document.body.toggleAttribute('data-busy', on);
}

function send(p: () => Promise<unknown>, saving: string): void {
  if (busy) return;
  setBusy(true);
  status.className = 'muted';
  status.textContent = saving;
  p().then(
    () => {
      setBusy(false);
      if (status.textContent === saving) status.textContent = '';
    },
    (e: Error) => {
      setBusy(false);
      status.className = 'error';
      status.textContent = e.message;
    },
  );
}

const judge = (grade: number) => send(() => host.request('judge', { grade }), `saving grade ${grade}…`);
const move = (by: number) => send(() => host.request('move', { by }), '');
const undo = () => send(() => host.request('undo', {}), 'undoing…');

/** Blind (hash) order, impact order or sampling order of the same pool. */
function orderChoice(order: QueueOrder): HTMLElement {
  return Object.assign(dropdown([
    { value: 'blind', label: 'blind order' },
    { value: 'impact', label: 'impact order' },
    { value: 'sample', label: 'sampling order' },
  ], order, (v) => send(() => host.request('setOrder', { order: v === 'impact' || v === 'sample' ? v : 'blind' }), 'reordering…'),
  'Impact: first the holes whose judgement can most narrow the range of the first two pooled runs\' comparison. Sampling: holes drawn at random where judging them narrows the estimate of that comparison most, so its estimate stays unbiased. Both blind to which run retrieved them'), { id: 'order' });
}

function render(s: AnnotationState): void {
  state = s;
  if (!s.item) {
    // An empty state leads on: the commands that fill the queue (links VS Code runs: webviewOptions' enableCommandUris).
    replace(
      app,
      h('p', { attrs: { id: 'message' } }, s.message ?? 'Nothing to judge.'),
      h('p', { className: 'command-links', attrs: { id: 'start' } },
        h('a', { attrs: { href: 'command:irWorkbench.judgeHoles', title: 'Judge the depth-10 pool of every run of a split' } }, 'Judge Holes…'),
        ' · ',
        h('a', { attrs: { href: 'command:irWorkbench.showHoles', title: 'Choose runs and depth in the Holes panel' } }, 'Show Holes…')),
      s.meter ? meterNode(s.meter) : null,
      status,
    );
    return;
  }
  const it = s.item;
  replace(
    app,
    h('div', { className: 'toolbar' },
      h('strong', { attrs: { id: 'progress' } }, `${s.index + 1} of ${s.total}`),
      h('span', { className: 'muted' }, `${s.judged} judged · `, name(s.dataset), ` (${s.split})`)),
    s.order ? orderChoice(s.order) : null,
    s.meter ? meterNode(s.meter) : null,
    h('div', { className: 'muted' }, 'Query ', name(it.queryId)),
    h('p', { attrs: { id: 'query', dir: 'auto' } }, it.queryText),
    h('div', { className: 'muted' }, 'Document ', name(it.docId)),
    h('div', { className: 'doctext', attrs: { id: 'document', tabindex: '0' } },
      h('div', { className: 'doc-title', attrs: { id: 'doc-title', dir: 'auto' } }, ...highlight(it.title, it.queryText)),
      h('div', { attrs: { id: 'doc-text', dir: 'auto' } }, ...highlight(it.text, it.queryText))),
    h('div', { className: 'toolbar', attrs: { id: 'grades' } },
      ...s.grades.map((g) => {
        const b = button(gradeText(s.dataset, g), () => judge(g), { secondary: it.grade !== g, title: `grade ${gradeText(s.dataset, g)} (key ${g})` });
        b.setAttribute('data-grade', String(g));
        b.className = `judge ${gradeClass(g)}${it.grade === g ? ' current' : ''}`;
        return b;
      }),
      h('span', { className: 'muted', attrs: { id: 'current-grade' } }, it.grade === null ? 'unjudged' : `grade ${gradeText(s.dataset, it.grade)}`)),
    h('p', { className: 'keys muted' },
      ...s.grades.flatMap((g) => [h('kbd', {}, String(g)), ' ']), 'grade · ', h('kbd', {}, 'n'), ' next · ', h('kbd', {}, 'p'), ' previous · ', h('kbd', {}, 'u'), ' undo'),
    status,
    h('table', { className: 'compact', attrs: { id: 'scores' } },
      h('caption', { className: 'muted' }, 'nDCG@10: original qrels (holes count as non-relevant) and with your judgements'),
      h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'original'), h('th', {}, 'annotated'))),
      h('tbody', {}, ...s.scores.map((r) => h('tr', {}, h('td', {}, name(r.label)), h('td', {}, fix4(r.original)), h('td', {}, fix4(r.annotated)))))),
  );
}

document.addEventListener('keydown', (e) => {
  if (!state?.item || e.ctrlKey || e.metaKey || e.altKey) return;
  if (/^\d$/.test(e.key) && state.grades.includes(Number(e.key))) judge(Number(e.key));
  else if (e.key === 'n') move(1);
  else if (e.key === 'p') move(-1);
  else if (e.key === 'u') undo();
  else return;
  e.preventDefault();
});
