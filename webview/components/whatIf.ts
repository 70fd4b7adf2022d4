// What-if queries in the Diff: edit the query's text or its terms' weights (boost, drop, add) and re-run that one
// query with a BM25 run's own settings; its ranking and measures beside runs a and b; save the edits as a queries file.
import type { QueryEdit, WhatIfResult } from '../../src/protocol/webview.js';
import { h, name, replace, signed4 } from './dom.js';
import { button, dropdown } from './toolkit.js';
import { displayName } from '../../src/core/eval/displayName.js';

export interface WhatIfHooks {
  run(side: 'a' | 'b', edit: QueryEdit): Promise<WhatIfResult>;
  save(side: 'a' | 'b'): Promise<{ path: string; command: string } | null>;
}

/** The what-if editor for one query; starts from the run's own query (a what-if with no edit). */
export function whatIfNode(queryId: string, queryText: string, labels: { a: string; b: string }, hooks: WhatIfHooks): HTMLElement {
  let side: 'a' | 'b' = 'b';
  let terms: { term: string; weight: number; typed?: boolean }[] = [];
  const status = h('span', { className: 'muted', attrs: { id: 'what-if-status', role: 'status' } });
  const editor = h('div', { attrs: { id: 'what-if-terms' } });
  const result = h('div', { attrs: { id: 'what-if-result' } });
  // The query text wraps (a textarea): at a sidebar's width a one-line input would hide most of it. Enter runs it.
  const text = h('textarea', { className: 'input', attrs: { id: 'what-if-text', rows: '2', 'aria-label': 'Query text (Enter runs it)', dir: 'auto' } });
  text.value = queryText;
  text.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || e.shiftKey) return;
    e.preventDefault();
    go({ text: text.value });
  });
  const added = h('input', { className: 'input', attrs: { id: 'what-if-add', type: 'text', placeholder: 'add a term', 'aria-label': 'Term to add' } });

  const fail = (e: Error) => {
    status.className = 'error';
    status.textContent = e.message;
  };
  const go = (edit: QueryEdit, onFail: (e: Error) => void = fail) => {
    status.className = 'muted';
    status.textContent = 'running the query…';
    hooks.run(side, edit).then((r) => {
      status.textContent = '';
      terms = r.query.map((t) => ({ ...t }));
      drawTerms();
      drawResult(r);
    }, onFail);
  };

  function drawTerms(): void {
    replace(editor, ...terms.map((t, i) => {
      const weight = h('input', { className: 'input weight', attrs: { type: 'number', step: '0.1', value: String(Number(t.weight.toPrecision(6))), 'aria-label': `weight of ${t.term}`, 'data-term': t.term } });
      weight.addEventListener('change', () => {
        const w = Number(weight.value);
        if (Number.isFinite(w)) terms[i].weight = w;
      });
      return h('span', { className: 'what-if-term' }, h('bdi', {}, t.term), ' ', weight,
        h('button', { className: 'grade', title: `drop ${t.term}`, attrs: { 'aria-label': `drop ${t.term}` }, on: { click: () => { terms.splice(i, 1); drawTerms(); } } }, '×'));
    }));
  }

  function drawResult(r: WhatIfResult): void {
    const rows = r.measures.map((m, c) => {
      const [va, vb] = r.values.runs;
      const da = signed4(r.values.edited[c] - va[c]);
      const db = signed4(r.values.edited[c] - vb[c]);
      return h('tr', {}, h('td', {}, displayName(m)), h('td', {}, r.values.edited[c].toFixed(4)), h('td', {}, va[c].toFixed(4)), h('td', {}, vb[c].toFixed(4)), h('td', { className: da.cls }, da.text), h('td', { className: db.cls }, db.text));
    });
    replace(result,
      r.dropped.length || r.unknownTerms.length
        ? h('p', { className: 'muted' }, r.dropped.length ? `Removed by the analyser (stopwords): ${r.dropped.join(', ')}. ` : '', r.unknownTerms.length ? `In no document: ${r.unknownTerms.join(', ')}.` : '')
        : null,
      h('table', { className: 'compact', attrs: { id: 'what-if-measures' } },
        h('thead', {}, h('tr', {}, h('th', {}, 'measure'), h('th', {}, 'edited'), h('th', {}, 'a'), h('th', {}, 'b'), h('th', {}, 'vs a'), h('th', {}, 'vs b'))),
        h('tbody', {}, ...rows)),
      h('table', { className: 'compact', attrs: { id: 'what-if-ranking' } },
        h('thead', {}, h('tr', {}, h('th', {}, 'rank'), h('th', {}, 'document'), h('th', {}, 'score'), h('th', {}, 'in a'), h('th', {}, 'in b'))),
        h('tbody', {}, ...r.ranking.map((d) => h('tr', { attrs: { 'data-doc': d.docId } },
          h('td', {}, String(d.rank)), h('td', {}, name(d.docId)), h('td', {}, d.score.toFixed(4)),
          ...d.before.map((b) => h('td', { className: b === null ? 'muted' : '' }, b === null ? '–' : String(b))))))));
  }

  const choose = (v: string) => {
    const next = v === 'a' ? 'a' : 'b';
    if (next === side) return; // the fallback below sets the value itself
    side = next;
    go({});
  };
  const sideChoice = Object.assign(dropdown([
    { value: 'b', label: `b: ${labels.b}` },
    { value: 'a', label: `a: ${labels.a}` },
  ], side, choose, 'The BM25 run whose settings re-run the query'), { id: 'what-if-side' }) as HTMLElement & { value: string };

  const node = h('section', { attrs: { id: 'what-if', 'data-query': queryId } },
    h('h2', {}, 'What if the query were…'),
    h('div', { className: 'toolbar' }, h('span', {}, 'Re-run with the settings of'), sideChoice, status),
    h('div', { className: 'toolbar' }, text, button('Run text', () => go({ text: text.value }), { id: 'what-if-run-text', secondary: true })),
    editor,
    h('div', { className: 'toolbar' },
      added,
      button('Add', () => {
        const t = added.value.trim();
        // A typed word goes through the analyser (the others are index terms already).
        if (t) terms.push({ term: t, weight: 1, typed: true });
        added.value = '';
        go({ terms: terms.map((x) => ({ ...x })) });
      }, { secondary: true, id: 'what-if-add-button' }),
      button('Run weights', () => go({ terms: terms.map((x) => ({ ...x })) }), { id: 'what-if-run' }),
      button('Save queries…', () => {
        hooks.save(side).then((r) => {
          status.className = 'muted';
          status.textContent = r ? `Saved ${r.path}; run the split with: ${r.command}` : '';
        }, fail);
      }, { secondary: true, id: 'what-if-save', title: 'Save the split\'s queries with your edits, for irw run --queries' })),
    result);
  // Start from b's own query; when b is not a BM25 run of this product, from a's.
  go({}, () => {
    sideChoice.value = 'a';
    side = 'a';
    go({});
  });
  return node;
}
