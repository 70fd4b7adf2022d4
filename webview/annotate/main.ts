// Hole-annotation sidebar: one (query, document) pair at a time, keyboard first, blind to the runs.
import type { AnnotationState } from '../../src/protocol/webview.js';
import { fix4, h, replace } from '../components/dom.js';
import { Host } from '../components/host.js';
import { button } from '../components/toolkit.js';

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

function render(s: AnnotationState): void {
  state = s;
  if (!s.item) {
    replace(app, h('p', { attrs: { id: 'message' } }, s.message ?? 'Nothing to judge.'), status);
    return;
  }
  const it = s.item;
  replace(
    app,
    h('div', { className: 'toolbar' },
      h('strong', { attrs: { id: 'progress' } }, `${s.index + 1} of ${s.total}`),
      h('span', { className: 'muted' }, `${s.judged} judged · ${s.dataset} (${s.split})`)),
    h('div', { className: 'muted' }, `Query ${it.queryId}`),
    h('p', { attrs: { id: 'query' } }, it.queryText),
    h('div', { className: 'muted' }, `Document ${it.docId}`),
    h('div', { className: 'doctext', attrs: { id: 'document', tabindex: '0' } },
      h('div', { className: 'title', attrs: { id: 'doc-title' } }, it.title),
      h('div', { attrs: { id: 'doc-text' } }, it.text)),
    h('div', { className: 'toolbar', attrs: { id: 'grades' } },
      ...s.grades.map((g) => {
        const b = button(String(g), () => judge(g), { secondary: it.grade !== g, title: `grade ${g} (key ${g})` });
        b.setAttribute('data-grade', String(g));
        return b;
      }),
      h('span', { className: 'muted', attrs: { id: 'current-grade' } }, it.grade === null ? 'unjudged' : `grade ${it.grade}`)),
    h('p', { className: 'keys muted' },
      ...s.grades.flatMap((g) => [h('kbd', {}, String(g)), ' ']), 'grade · ', h('kbd', {}, 'n'), ' next · ', h('kbd', {}, 'p'), ' previous · ', h('kbd', {}, 'u'), ' undo'),
    status,
    h('table', { className: 'compact', attrs: { id: 'scores' } },
      h('caption', { className: 'muted' }, 'nDCG@10: original qrels (holes count as non-relevant) and with your judgements'),
      h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'original'), h('th', {}, 'annotated'))),
      h('tbody', {}, ...s.scores.map((r) => h('tr', {}, h('td', {}, r.label), h('td', {}, fix4(r.original)), h('td', {}, fix4(r.annotated)))))),
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
