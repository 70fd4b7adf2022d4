import { stemmer } from 'stemmer';
import { Analyzer } from '../../src/core/retrieval/analysis/analyzer.js';
import { Spans, tokenize } from '../../src/core/retrieval/analysis/tokenizer.js';
import { h } from './dom.js';

/**
 * Query terms marked in document text the way BM25 matched them: both sides go through the retrieval's own
 * analysis (tokenizer, stopwords, Porter stems), so "cells" in a query marks "cell" and "Cell's" in a document.
 * Returns text and <mark> nodes (never HTML).
 */
const analyzer = new Analyzer(stemmer);
const spans = new Spans();

function terms(query: string): Set<string> {
  const out = new Set<string>();
  const n = tokenize(query, spans);
  for (let i = 0; i < n; i++) {
    const t = analyzer.term(query.slice(spans.data[2 * i], spans.data[2 * i + 1]));
    if (t) out.add(t);
  }
  return out;
}

export function highlight(text: string, query: string): (string | HTMLElement)[] {
  const want = terms(query);
  if (want.size === 0) return [text];
  return markTerms(text, (t) => (want.has(t) ? 'term' : null));
}

/**
 * `text` with each word whose analysed term `classOf` gives a class marked (<mark class=...>), the rest as text.
 * An explanation marks terms by how much they contribute.
 */
export function markTerms(text: string, classOf: (term: string) => string | null): (string | HTMLElement)[] {
  const out: (string | HTMLElement)[] = [];
  let at = 0;
  const n = tokenize(text, spans);
  const found: [number, number, string][] = [];
  for (let i = 0; i < n; i++) {
    const start = spans.data[2 * i];
    const end = spans.data[2 * i + 1];
    const t = analyzer.term(text.slice(start, end));
    const cls = t === null ? null : classOf(t);
    if (cls) found.push([start, end, cls]);
  }
  for (const [start, end, cls] of found) {
    if (start > at) out.push(text.slice(at, start));
    out.push(h('mark', { className: cls }, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}
