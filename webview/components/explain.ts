// "Why is this document ranked here": a run's explanation of a document (BM25 terms, fusion inputs, a model's
// settings), the document's words marked by how much they contribute, and the Judge sidebar's blind version.
import type { DiffExplanation, Explanation, PairExplanation, RunExplanation } from '../../src/protocol/webview.js';
import type { Bm25Explanation, TermContribution } from '../../src/core/retrieval/bm25/explain.js';
import type { FusionExplanation } from '../../src/core/retrieval/fusion/explain.js';
import type { ModelExplanation, NoExplanation } from '../../src/core/retrieval/explain.js';
import { h, name } from './dom.js';
import { markTerms } from './highlight.js';

const f4 = (x: number) => (Number.isFinite(x) ? x.toFixed(4) : String(x));
const isError = (e: RunExplanation): e is { error: string } => 'error' in e;

/** A contribution as a bar (a <meter>: no inline style under the page's CSP) and its value. */
function bar(value: number, max: number): HTMLElement {
  return h('span', { className: 'contribution' },
    h('meter', { attrs: { min: '0', max: String(max > 0 ? max : 1), value: String(Math.max(0, value)) } }), ' ', f4(value));
}

/** Per analysed term, its share of the document's score, as classes c1 (small) to c4 (most). */
export function contributionClasses(terms: readonly TermContribution[]): (term: string) => string | null {
  const byTerm = new Map<string, number>();
  for (const t of terms) if (t.score > 0) byTerm.set(t.term, (byTerm.get(t.term) ?? 0) + t.score);
  const max = Math.max(0, ...byTerm.values());
  return (term) => {
    const s = byTerm.get(term);
    return s === undefined || max === 0 ? null : `term c${Math.max(1, Math.ceil((4 * s) / max))}`;
  };
}

function bm25Node(e: Bm25Explanation): HTMLElement {
  const matched = e.terms.filter((t) => t.tf > 0).sort((x, y) => y.score - x.score);
  const absent = [...new Set(e.terms.filter((t) => t.tf === 0).map((t) => t.term))];
  const max = Math.max(0, ...matched.map((t) => t.score));
  const first = e.terms[0];
  return h('div', { className: 'bm25' },
    h('p', { className: 'muted' },
      `BM25 k1 ${e.k1}, b ${e.b}`, first ? `; document length ${first.dl} (average ${f4(first.avgdl)}), ${first.docCount.toLocaleString()} documents` : '',
      e.fields.length > 1 ? `; fields ${e.fields.join(', ')}` : ''),
    e.rm3 ? h('p', { className: 'muted rm3' },
      `RM3 (fbDocs ${e.rm3.fbDocs}, fbTerms ${e.rm3.fbTerms}, original weight ${e.rm3.originalQueryWeight}) added `,
      ...e.rm3.model.slice(0, 12).flatMap((t, i) => [i ? ', ' : '', h('bdi', {}, t.term), ` ${f4(t.weight)}`])) : null,
    matched.length
      ? h('table', { className: 'compact terms' },
          h('thead', {}, h('tr', {}, ...['term', ...(e.fields.length > 1 ? ['field'] : []), 'query weight', 'tf', 'idf', 'tf-norm', 'contribution'].map((c) => h('th', {}, c)))),
          h('tbody', {}, ...matched.map((t) => h('tr', {},
            h('td', {}, h('bdi', {}, t.term)),
            e.fields.length > 1 ? h('td', {}, t.field) : null,
            h('td', {}, String(Number(t.queryWeight.toPrecision(4)))),
            h('td', {}, String(t.tf)),
            h('td', { title: `n ${t.df} of N ${t.docCount}` }, f4(t.idf)),
            h('td', {}, f4(t.tfNorm)),
            h('td', {}, bar(t.score, max))))))
      : h('p', {}, 'No query term occurs in this document.'),
    absent.length ? h('p', { className: 'muted' }, 'Query terms not in the document: ', ...absent.flatMap((t, i) => [i ? ', ' : '', h('bdi', {}, t)])) : null,
    h('p', { className: 'sum' },
      `score ${f4(e.score)}`,
      e.rank === null
        ? e.removedAsQuery ? " — not ranked: the run drops the query's own document" : ' — beyond the run\'s top-k'
        : ` → rounded ${e.rounded!.toFixed(4)}${e.ties ? `, − ${e.ties} × 1e-6 for ties` : ''} → ${e.printed} at rank ${e.rank}`));
}

function fusionNode(e: FusionExplanation): HTMLElement {
  const max = Math.max(0, ...e.inputs.map((i) => (Number.isFinite(i.contribution) ? Math.abs(i.contribution) : 0)));
  return h('div', { className: 'fusion' },
    h('p', { className: 'muted' }, `Fusion: ${e.method}${e.method === 'rrf' ? ` (k ${e.rrfK})` : `, ${e.norm} normalization`}; score = ${e.combine}`),
    h('table', { className: 'compact' },
      h('thead', {}, h('tr', {}, ...['input run', 'rank', 'raw', 'normalized', 'weight', 'contribution'].map((c) => h('th', {}, c)))),
      h('tbody', {}, ...e.inputs.map((i) => h('tr', {},
        h('td', {}, name(i.tag)),
        h('td', {}, i.rank === null ? '–' : String(i.rank)),
        h('td', {}, i.raw === null ? '–' : String(i.raw)),
        h('td', {}, i.normalized === null ? '–' : f4(i.normalized)),
        h('td', {}, String(i.weight)),
        h('td', {}, bar(i.contribution, max)))))),
    h('p', { className: 'sum' }, `retrieved by ${e.retrievedBy} of ${e.inputs.length}; fused score ${f4(e.score)}`, e.rank === null ? ' — beyond the fused top-k' : ` → ${e.printed} at rank ${e.rank}`));
}

function modelNode(e: ModelExplanation): HTMLElement {
  const settings = e.model ? Object.entries(e.model.settings) : [];
  return h('div', { className: 'model' },
    h('p', {}, e.note),
    e.model
      ? h('dl', {}, h('dt', {}, 'model'), h('dd', {}, name(e.model.model.path), ` sha256 ${e.model.model.sha256.slice(0, 12)}`),
          ...settings.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, h('bdi', {}, JSON.stringify(v)), e.model!.sources[k] ? h('span', { className: 'muted' }, ` (${e.model!.sources[k]})`) : null)]))
      : h('p', { className: 'muted' }, 'The run records no model hashes or settings (made before runs recorded them).'));
}

/** One run's explanation: where the run file puts the document, the breakdown, the warnings. */
export function explanationNode(e: RunExplanation, label: string): HTMLElement {
  if (isError(e)) return h('div', { className: 'explanation' }, h('h3', {}, name(label)), h('p', { className: 'error' }, e.error));
  const body = e.retriever === 'bm25' ? bm25Node(e as Bm25Explanation) : e.retriever === 'fuse' ? fusionNode(e as FusionExplanation) : 'model' in e ? modelNode(e as ModelExplanation) : h('p', {}, (e as NoExplanation).note);
  return h('div', { className: 'explanation', attrs: { 'data-retriever': String(e.retriever) } },
    h('h3', {}, name(label), ': ', e.run.rank === null ? 'not in the run' : `rank ${e.run.rank}, score ${e.run.score}`),
    body,
    e.reproduced === false ? h('p', { className: 'error' }, "This breakdown does not give the run file's score.") : null,
    ...e.warnings.map((w) => h('p', { className: 'note' }, h('bdi', {}, w))));
}

/** The terms marked in the document: by their contribution in the run that explains it best (a BM25 run). */
function termsOf(e: RunExplanation): TermContribution[] {
  return !isError(e) && e.retriever === 'bm25' ? (e as Explanation & Bm25Explanation).terms : [];
}

/** "Why is this document ranked here in a and there in b": both explanations, and the document's words marked. */
export function diffExplanationNode(d: DiffExplanation, labels: { a: string; b: string }, doc: { title: string; snippet: string }): HTMLElement {
  const terms = termsOf(d.a).length ? termsOf(d.a) : termsOf(d.b);
  const classes = contributionClasses(terms);
  return h('section', { attrs: { id: 'explain', 'data-doc': d.docId } },
    h('h2', {}, 'Why ', name(d.docId), ' is ranked where it is'),
    terms.length
      ? h('div', { className: 'doctext marked', attrs: { dir: 'auto' } },
          h('div', { className: 'doc-title' }, ...markTerms(doc.title, classes)),
          h('div', {}, ...markTerms(doc.snippet, classes)),
          h('p', { className: 'muted' }, 'Words marked by their share of the BM25 score (darker: more).'))
      : null,
    h('div', { className: 'columns' }, explanationNode(d.a, `a: ${labels.a}`), explanationNode(d.b, `b: ${labels.b}`)));
}

/** The Judge sidebar's explanation: which query terms the document holds and their weight; no run, no rank. */
export function pairExplanationNode(p: PairExplanation, text: { title: string; body: string }): HTMLElement {
  const matched = p.terms.filter((t) => t.tf > 0).sort((x, y) => y.score - x.score);
  const max = Math.max(0, ...matched.map((t) => t.score));
  const classes = contributionClasses(p.terms);
  return h('section', { attrs: { id: 'explain-pair' } },
    h('p', { className: 'muted' }, p.note),
    matched.length
      ? h('table', { className: 'compact terms' },
          h('thead', {}, h('tr', {}, h('th', {}, 'term'), h('th', {}, 'tf'), h('th', {}, 'weight'))),
          h('tbody', {}, ...matched.map((t) => h('tr', {}, h('td', {}, h('bdi', {}, t.term)), h('td', {}, String(t.tf)), h('td', {}, bar(t.score, max))))))
      : h('p', {}, 'The document holds none of the query\'s terms: a match, if any, is in meaning only.'),
    matched.length ? h('div', { className: 'doctext marked', attrs: { dir: 'auto' } }, h('div', { className: 'doc-title' }, ...markTerms(text.title, classes)), h('div', {}, ...markTerms(text.body, classes))) : null);
}
