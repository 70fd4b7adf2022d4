// The Judge sidebar: one (query, document) pair at a time, keyboard first, blind to the runs.
//
// Every grade is for the pair on screen when its key was pressed: the request names that pair (queue, index,
// query, document), never "the current one". The host sends the pairs ahead of the one shown, so a key shows
// the next pair at once, before any answer (blind order; in impact order the next pair depends on the grade,
// so it comes with the host's re-ordering). A key pressed while no pair is on screen, within MIN_SHOWN_MS of a
// pair appearing (typed ahead, a double press) or held down is not applied, and the status says so.
//
// Layout: the pair scrolls inside, the grade bar stays at the bottom of the sidebar, whatever its height. The
// page is built once and updated in place (the figures, the grade, the pair shown), so a judgement never
// blanks it and the scroll stays.
import type { AnnotationItem, AnnotationState, QueueOrder, ReferenceDoc } from '../../src/protocol/webview.js';
import { fix4, h, name, replace } from '../components/dom.js';
import { gradeClass, gradeText } from '../components/grades.js';
import { pairExplanationNode } from '../components/explain.js';
import { highlight } from '../components/highlight.js';
import { Host } from '../components/host.js';
import { keyed, patch, setText } from '../components/patch.js';
import { button, dropdown } from '../components/toolkit.js';
import { meterNode } from '../components/trust.js';

/** A grade key this soon after its pair was drawn is not applied to it: nobody has read a pair by then. */
const MIN_SHOWN_MS = 150;

const app = document.getElementById('app')!;
app.className = 'judge';
const host = new Host<'annotate'>({ state: onState });

/** The queue as the host last described it. */
let session: { queue: number; total: number; grades: number[]; dataset: string; split: string; order: QueueOrder; jump: number } | undefined;
/** The queue's pairs by index: sent ahead by the host, or shown before. */
const items = new Map<number, AnnotationItem>();
/** Per query: its documents judged relevant, for reference. */
const references = new Map<string, { docs: ReferenceDoc[]; more: number }>();
/** The index shown, the pair shown there (null while it has not come) and when its frame was drawn. */
let at = 0;
let shown: AnnotationItem | null = null;
let shownSince = Infinity;
/** The index a `show` request was sent for while its pair had not come (asked once). */
let asked = -1;
/** Grades sent and not yet confirmed. */
let saving = 0;

// The page, built once: a header (position, order, meter), the pair (scrolls), the grade bar (stays).
const progress = h('strong', { attrs: { id: 'progress' } });
const judgedLine = h('span', { className: 'muted', attrs: { id: 'judged' } });
const orderSlot = h('span');
const meterSlot = h('div');
const queryLabel = h('div', { className: 'muted', attrs: { id: 'query-id' } });
const queryText = h('p', { attrs: { id: 'query', dir: 'auto' } });
const reference = h('details', { attrs: { id: 'reference' } });
const docLabel = h('div', { className: 'muted', attrs: { id: 'doc-id' } });
const docTitle = h('div', { className: 'doc-title', attrs: { id: 'doc-title', dir: 'auto' } });
const docText = h('div', { attrs: { id: 'doc-text', dir: 'auto' } });
const documentBox = h('div', { className: 'doctext', attrs: { id: 'document', tabindex: '0' } }, docTitle, docText);
const scoresBody = h('tbody');
const figures = h('details', { attrs: { id: 'figures' } },
  h('summary', {}, 'nDCG@10 by run'),
  h('table', { className: 'compact', attrs: { id: 'scores' } },
    h('caption', { className: 'muted' }, 'original qrels (holes count as non-relevant) and with your judgements'),
    h('thead', {}, h('tr', {}, h('th', {}, 'Run'), h('th', {}, 'original'), h('th', {}, 'annotated'))),
    scoresBody));
const gradeBar = h('span', { className: 'toolbar', attrs: { id: 'grades' } });
const currentGrade = h('span', { className: 'muted', attrs: { id: 'current-grade' } });
const note = h('input', {
  attrs: { id: 'note', type: 'text', 'aria-label': 'Note for the next grade', placeholder: 'Note (optional): saved with the grade', maxlength: '2000' },
});
const status = h('div', { className: 'muted', attrs: { id: 'status', role: 'status', 'aria-live': 'polite' } });
const keysLine = h('p', { className: 'keys muted', attrs: { id: 'keys' } });
/** "Which query terms does it hold?": the shown pair's blind explanation, on demand (never which run retrieved it). */
const explainBox = h('div', { attrs: { id: 'explain-box' } });
const explainSlot = h('div', {}, button('Which query terms does it hold?', explainShown, { secondary: true, id: 'explain-pair-button', title: 'The query terms the document holds and what each weighs under BM25 (no run, no rank)' }), explainBox);
const pairPane = h('main', { attrs: { id: 'pair' } }, queryLabel, queryText, reference, docLabel, documentBox, explainSlot, meterSlot, figures);
const bar = h('footer', { attrs: { id: 'bar' } },
  h('div', { className: 'toolbar' },
    gradeBar,
    button('Skip', () => skip(), { secondary: true, id: 'skip', title: 'Next pair, no grade: it stays a hole (key s or n)' }),
    button('Unsure', () => grade(-1), { secondary: true, id: 'unsure', title: 'No grade: recorded as pooled but not judged, with the note "unsure", so no figure changes (key ?)' }),
    currentGrade),
  note,
  status,
  keysLine);
const page = [h('header', { attrs: { id: 'head' } }, h('div', { className: 'toolbar' }, progress, orderSlot, judgedLine)), pairPane, bar];

/** Open/closed of the collapsible parts, kept while the view is hidden (VS Code's webview state). */
for (const [el, key, open] of [[reference, 'referenceOpen', false], [figures, 'figuresOpen', true]] as const) {
  el.open = typeof host.state[key] === 'boolean' ? (host.state[key] as boolean) : open;
  el.addEventListener('toggle', () => (host.state = { ...host.state, [key]: el.open }));
}

function onState(s: AnnotationState): void {
  if (s.total === 0 || (!s.item && s.message)) return empty(s);
  const queue = s.queue ?? 0;
  const fresh = !session || session.queue !== queue;
  const jumped = !fresh && s.jump !== undefined && s.jump !== session!.jump;
  session = { queue, total: s.total, grades: s.grades, dataset: s.dataset, split: s.split, order: s.order ?? 'blind', jump: s.jump ?? 0 };
  if (fresh) {
    items.clear();
    asked = -1;
  }
  if (s.item) items.set(s.index, s.item);
  s.ahead?.forEach((it, i) => items.set(s.index + 1 + i, it));
  for (const r of s.references ?? []) references.set(r.queryId, { docs: r.docs, more: r.more });
  if (!app.contains(bar)) {
    bar.insertBefore(status, keysLine); // back from the empty state, which shows it alone
    replace(app, ...page);
  }
  showFigures(s);
  // The pair shown stays on screen: the host's state moves it only for a new queue, a move the host made by
  // itself, or the pair the sidebar was waiting for.
  if (fresh || jumped) display(s.index);
  else if (!shown) display(at);
  else refreshShown();
}

/** Nothing to judge: why, and the commands that fill the queue (links VS Code runs: enableCommandUris). */
function empty(s: AnnotationState): void {
  session = undefined;
  shown = null;
  delete document.body.dataset.pair;
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
}

/** The split's figures and the controls, each part rebuilt only when what it shows changed. */
function showFigures(s: AnnotationState): void {
  patch(judgedLine, JSON.stringify([s.judged, s.dataset, s.split]), () => [`${s.judged} judged · `, name(s.dataset), ` (${s.split})`]);
  patch(orderSlot, s.order ?? '', () => [s.order ? orderChoice(s.order) : null]);
  patch(meterSlot, JSON.stringify(s.meter ?? null), () => [s.meter ? meterNode(s.meter) : null]);
  keyed(scoresBody, s.scores, (r) => r.label, (r) => h('tr', {}, h('td', {}, name(r.label)), h('td', {}, fix4(r.original)), h('td', {}, fix4(r.annotated))));
  patch(gradeBar, JSON.stringify([s.dataset, s.grades]), () => s.grades.map((g) => {
    const b = button(gradeText(s.dataset, g), () => grade(g), { title: `grade ${gradeText(s.dataset, g)} (key ${g})` });
    b.setAttribute('data-grade', String(g));
    b.className = `judge ${gradeClass(g)}`;
    return b;
  }));
  patch(document.getElementById('keys')!, s.grades.join(), () => [
    ...s.grades.flatMap((g) => [h('kbd', {}, String(g)), ' ']), 'grade · ', h('kbd', {}, 's'), ' skip · ', h('kbd', {}, '?'), ' unsure · ',
    h('kbd', {}, 'p'), ' previous · ', h('kbd', {}, 'u'), ' undo']);
}

/** Blind (hash) order, impact order or sampling order of the same pool. */
function orderChoice(order: QueueOrder): HTMLElement {
  return Object.assign(dropdown([
    { value: 'blind', label: 'blind order' },
    { value: 'impact', label: 'impact order' },
    { value: 'sample', label: 'sampling order' },
  ], order, (v) => act(host.request('setOrder', { order: v === 'impact' || v === 'sample' ? v : 'blind' }), 'reordering…'),
  'Impact: first the holes whose judgement can most narrow the range of the first two pooled runs\' comparison. Sampling: holes drawn at random where judging them narrows the estimate of that comparison most, so its estimate stays unbiased. Both blind to which run retrieved them'), { id: 'order' });
}

/** Shows the pair at `index` (of what the host sent), or says it is coming and asks for it. */
function display(index: number): void {
  if (!session) return;
  at = Math.max(0, Math.min(session.total - 1, index));
  const it = items.get(at) ?? null;
  shown = it;
  shownSince = Infinity;
  explainBox.replaceChildren();
  setText(progress, `${at + 1} of ${session.total}`);
  if (!it) {
    delete document.body.dataset.pair;
    queryLabel.textContent = '';
    queryText.textContent = '';
    docLabel.textContent = '';
    docTitle.textContent = '';
    docText.textContent = session.order === 'impact' ? 'Choosing the next pair by impact…' : session.order === 'sample' ? 'Drawing the next pair…' : 'Loading the next pair…';
    currentGrade.textContent = '';
    patch(reference, '', () => []);
    if (asked !== at) {
      asked = at;
      act(host.request('show', { queue: session.queue, index: at }));
    }
    return;
  }
  queryLabel.replaceChildren('Query ', name(it.queryId));
  queryText.textContent = it.queryText;
  docLabel.replaceChildren('Document ', name(it.docId));
  docTitle.replaceChildren(...highlight(it.title, it.queryText));
  docText.replaceChildren(...highlight(it.text, it.queryText));
  note.value = it.note ?? '';
  showGrade(it);
  showReference(it.queryId);
  pairPane.scrollTop = 0;
  documentBox.scrollTop = 0;
  document.body.dataset.pair = `${it.queryId}\t${it.docId}`;
  // Keys count for this pair from the frame that drew it on.
  requestAnimationFrame(() => setTimeout(() => {
    if (shown === it) shownSince = performance.now();
  }, 0));
}

/** What the host now says of the pair shown (its grade, its note, the reference) without changing the pair. */
function refreshShown(): void {
  const it = items.get(at);
  if (!shown || !it || it.queryId !== shown.queryId || it.docId !== shown.docId) return;
  if (it.note !== shown.note && document.activeElement !== note) note.value = it.note ?? '';
  items.set(at, shown);
  shown.grade = it.grade;
  shown.note = it.note;
  showGrade(shown);
  showReference(shown.queryId);
}

function showGrade(it: AnnotationItem): void {
  if (!session) return;
  currentGrade.textContent = it.grade === null ? 'unjudged' : `grade ${gradeText(session.dataset, it.grade)}`;
  for (const b of gradeBar.querySelectorAll<HTMLElement>('[data-grade]')) {
    const g = Number(b.dataset.grade);
    b.className = `judge ${gradeClass(g)}${it.grade === g ? ' current' : ''}`;
    if (it.grade === g) b.removeAttribute('appearance');
    else b.setAttribute('appearance', 'secondary');
  }
}

/** The query's documents judged relevant, titles only (collapsible): what "relevant" looked like so far. */
function showReference(queryId: string): void {
  const r = references.get(queryId);
  patch(reference, JSON.stringify([queryId, r ?? null]), () => [
    h('summary', {}, r ? `Judged relevant for this query: ${r.docs.length + r.more}` : 'Judged relevant for this query: …'),
    r && r.docs.length > 0
      ? h('ul', { className: 'references' }, ...r.docs.map((d) => h('li', { title: `${d.docId}: grade ${d.grade}${d.yours ? ' (yours)' : ''}` },
        h('span', { className: `grade ${gradeClass(d.grade)}` }, String(d.grade)), ' ', name(d.title || d.docId), d.yours ? h('span', { className: 'muted' }, ' yours') : null)))
      : r ? h('p', { className: 'muted' }, 'None yet: no document is judged relevant for this query.') : null,
    r && r.more > 0 ? h('p', { className: 'muted' }, `and ${r.more} more`) : null,
  ]);
}

/** A status line; errors stay until the next action says something else. */
function say(text: string, error = false): void {
  status.className = error ? 'error' : 'muted';
  status.textContent = text;
}

function act(p: Promise<unknown>, pending?: string): void {
  if (pending) say(pending);
  p.then(
    () => {
      if (pending && status.textContent === pending) say('');
    },
    (e: Error) => say(e.message, true),
  );
}

/**
 * Grades the pair on screen (-1: unsure), then shows the next one. `key`: the keydown that asked for it, not
 * applied when it came too soon after the pair appeared, or from a key held down.
 */
function grade(g: number, key?: KeyboardEvent): void {
  const s = session;
  const it = shown;
  const what = g === -1 ? 'Unsure' : `Grade ${g}`;
  if (!s) return;
  if (!it) return say(`${what} not applied: the next pair is not on screen yet.`, true);
  if (key?.repeat) return say(`${what} not applied: a key held down grades nothing; press it once.`, true);
  const age = (key?.timeStamp ?? performance.now()) - shownSince;
  if (!(age >= MIN_SHOWN_MS)) {
    return say(`${what} not applied: this pair appeared ${Number.isFinite(age) ? `${Math.max(0, Math.round(age))} ms` : 'just'} before the key (typed ahead?); read it, then grade it.`, true);
  }
  const index = at;
  const before = it.grade;
  const text = note.value.trim();
  it.grade = g >= 0 ? g : null;
  saving++;
  say(saving === 1 ? 'saving…' : `saving ${saving} grades…`);
  host.request('judge', { queue: s.queue, index, queryId: it.queryId, docId: it.docId, grade: g, ...(text ? { note: text } : {}) }).then(
    () => {
      saving--;
      if (status.className !== 'error') say(saving > 0 ? `saving ${saving} grade${saving === 1 ? '' : 's'}…` : '');
    },
    (e: Error) => {
      saving--;
      it.grade = before;
      if (shown === it) showGrade(it);
      say(`Not recorded: ${what.toLowerCase()} for document ${it.docId} of query ${it.queryId} (pair ${index + 1}): ${e.message}`, true);
    },
  );
  if (s.order !== 'blind') {
    // What decides the comparison (impact) or the next draw (sample) changes with the grade: the pairs after it come with the host's new order.
    for (const k of [...items.keys()]) if (k > index) items.delete(k);
  }
  if (index + 1 < s.total) display(index + 1);
  else {
    showGrade(it);
    say('That was the last pair of the queue.');
  }
}

function explainShown(): void {
  const it = shown;
  if (!it) return;
  replace(explainBox, h('p', { className: 'muted' }, 'explaining…'));
  host.request('explain', { queryId: it.queryId, docId: it.docId }).then(
    (p) => {
      if (shown === it) replace(explainBox, pairExplanationNode(p, { title: it.title, body: it.text }));
    },
    (e: Error) => {
      if (shown === it) replace(explainBox, h('p', { className: 'error' }, e.message));
    },
  );
}

/** The next pair, no grade (it stays a hole). */
function skip(): void {
  move(at + 1);
}

function move(index: number): void {
  if (!session || index < 0 || index >= session.total || index === at) return;
  display(index);
  const it = shown;
  if (it) act(host.request('show', { queue: session.queue, index: at, queryId: it.queryId, docId: it.docId }));
}

function undo(): void {
  if (!session) return;
  const s = session;
  say('undoing…');
  host.request('undo', { queue: s.queue }).then(
    ({ index }) => {
      say('');
      if (session === s) display(index);
    },
    (e: Error) => say(e.message, true),
  );
}

note.addEventListener('keydown', (e) => {
  // Enter or Escape: back to the document, where the keys grade (the note goes with the next grade).
  if (e.key === 'Enter' || e.key === 'Escape') {
    e.preventDefault();
    documentBox.focus();
  }
});

document.addEventListener('keydown', (e) => {
  if (!session || e.ctrlKey || e.metaKey || e.altKey || e.target === note) return;
  if (/^\d$/.test(e.key) && session.grades.includes(Number(e.key))) grade(Number(e.key), e);
  else if (e.key === '?') grade(-1, e);
  else if (e.key === 's' || e.key === 'n') skip();
  else if (e.key === 'p') move(at - 1);
  else if (e.key === 'u') undo();
  else return;
  e.preventDefault();
});
