// What the Results panel's figures were computed on, and runs whose recorded provenance does not match the split.
import type { ResultsProvenance } from '../../src/protocol/webview.js';
import { h, name } from './dom.js';

/** The qrels state (file, hash, counts) and the warnings, each run and message isolated as text from files. */
export function provenanceNode(p: ResultsProvenance | undefined, judgements: number): HTMLElement | null {
  if (!p) return null;
  const q = p.qrels;
  return h('div', { attrs: { id: 'provenance' } },
    h('p', { className: 'muted', attrs: { id: 'qrels-state' } },
      'Judged with ',
      q ? name(q.path) : 'no qrels file',
      q ? ` (sha256 ${q.sha256.slice(0, 12)}, ${q.judgements.toLocaleString()} judgements of ${q.queries.toLocaleString()} queries)` : ' (your judgements only)',
      judgements > 0 ? `; annotated figures add ${judgements} of yours.` : '.'),
    q?.now
      ? h('p', { className: 'note', attrs: { id: 'qrels-changed', role: 'alert' } },
          'The qrels file has changed since these figures were computed: it now holds ',
          `${q.now.judgements.toLocaleString()} judgements of ${q.now.queries.toLocaleString()} queries (sha256 ${q.now.sha256.slice(0, 12)}). `,
          'The figures are recomputed once the workspace index reads it again.')
      : null,
    p.warnings.length
      ? h('div', { className: 'note', attrs: { id: 'provenance-warnings', role: 'alert' } },
          h('strong', {}, 'Runs made on other data than this split\'s:'),
          h('ul', {}, ...p.warnings.map((w) => h('li', {}, name(w.run), ': ', h('bdi', {}, w.message)))))
      : null);
}
