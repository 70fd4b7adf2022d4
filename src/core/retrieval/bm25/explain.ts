import type { Bm25Index, FieldIndex } from './index';
import { lowerTie, roundScore, type Bm25Ranker } from './ranker';
import type { Rm3Expansion } from './rm3';
import { averageLength, idf, normCache, type QueryVector } from './search';
import { LENGTH_TABLE } from './smallFloat';

/**
 * Why a document has its BM25 score, as Lucene's `explain` breaks it down: per query term and field, its
 * frequency in the document, the document's length (as the one-byte norm encodes it), idf, k1, b, the term's
 * weight and its contribution; then the sum, and the two steps between that sum and the run file's number
 * (Anserini's rounding to 1e-4 and the 1e-6 lowering of each tie). Every value is computed as the searcher
 * computes it (float for float), so the breakdown sums to the run's score to the printed digits (a test checks
 * every document of every query of SciFact and NFCorpus). With RM3, the terms are those of the expanded query,
 * and the expansion (feedback documents, the original query's and the relevance model's weights) is given too.
 */
export interface TermContribution {
  field: string;
  term: string;
  /** The term's weight in the query searched (Lucene's boost): its count in the query, or RM3's/the file's weight. */
  queryWeight: number;
  /** Occurrences in the document's field (0: the document lacks the term; it adds nothing). */
  tf: number;
  /** Documents of the field with the term (n), and documents with the field (N). */
  df: number;
  docCount: number;
  /** ln(1 + (N - n + 0.5) / (n + 0.5)), as a float. */
  idf: number;
  /** queryWeight * idf, as a float. */
  weight: number;
  /** The document's field length as BM25 sees it: decoded from the one-byte norm (exact up to 23 tokens). */
  dl: number;
  avgdl: number;
  /** tf / (tf + k1 * (1 - b + b * dl / avgdl)): the saturated term frequency (for reading; score is exact). */
  tfNorm: number;
  /** weight - weight / (1 + tf * cache[norm]) in float arithmetic, as the searcher adds it. */
  score: number;
}

export interface Bm25Explanation {
  retriever: 'bm25';
  queryId: string;
  docId: string;
  k1: number;
  b: number;
  fields: string[];
  /** The query searched, term by term (after RM3, the expanded query). */
  query: { term: string; weight: number }[];
  /** Query terms no field of the index holds: they match no document. */
  unknownTerms: string[];
  rm3: {
    fbDocs: number;
    fbTerms: number;
    originalQueryWeight: number;
    feedbackDocs: string[];
    original: { term: string; weight: number }[];
    model: { term: string; weight: number }[];
  } | null;
  terms: TermContribution[];
  /** Per field, its terms' sum rounded to float (several fields are then summed). */
  fieldScores: { field: string; score: number }[];
  /** The document's BM25 score as a float: what the searcher ranks by. */
  score: number;
  /** Its rank in the run (1-based), or null when it is not among the run's hits for the query. */
  rank: number | null;
  /** The run file's number: the score rounded to 1e-4, less 1e-6 for each tie above it (null when not ranked). */
  rounded: number | null;
  ties: number;
  final: number | null;
  /** `final` as the run file prints it (6 decimals). */
  printed: string | null;
  /** The document is the query's own and the run drops it (Anserini's -removeQuery). */
  removedAsQuery: boolean;
}

const f = Math.fround;

/** Postings position of document `d` in term t's postings, or -1. */
function postingOf(fi: FieldIndex, t: number, d: number): number {
  let lo = fi.offsets[t];
  let hi = fi.offsets[t + 1] - 1;
  const docs = fi.docs;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = docs[mid];
    if (v < d) lo = mid + 1;
    else if (v > d) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** Per field, what does not depend on the document: its norm cache and average length. */
function fieldFactors(index: Bm25Index, k1: number, b: number) {
  return index.fieldIndexes.map((fi) => ({ fi, cache: normCache(fi, { k1, b }), avgdl: averageLength(fi) }));
}

/** The contributions of `query`'s terms to document `d`, and its score, exactly as the searcher adds them. */
export function scoreBreakdown(
  index: Bm25Index,
  k1: number,
  b: number,
  query: QueryVector,
  d: number,
  factors = fieldFactors(index, k1, b),
): Pick<Bm25Explanation, 'terms' | 'fieldScores' | 'score' | 'unknownTerms'> {
  const terms: TermContribution[] = [];
  const fieldScores: { field: string; score: number }[] = [];
  let total = 0;
  const known = new Set<string>();
  for (const { fi, cache, avgdl } of factors) {
    const norm = fi.norms[d];
    const dl = LENGTH_TABLE[norm];
    let sum = 0;
    // In query order, summed in double as the searcher's accumulator does.
    for (const [term, boost] of query) {
      const t = fi.termIds.get(term);
      if (t === undefined) continue;
      known.add(term);
      const df = fi.offsets[t + 1] - fi.offsets[t];
      const termIdf = idf(fi.docCount, df);
      const w = f(boost * termIdf);
      const p = postingOf(fi, t, d);
      const tf = p < 0 ? 0 : fi.tfs[p];
      const score = tf === 0 ? 0 : f(w - f(w / f(1 + f(tf * cache[norm]))));
      sum += score;
      terms.push({ field: fi.name, term, queryWeight: boost, tf, df, docCount: fi.docCount, idf: termIdf, weight: w, dl, avgdl, tfNorm: tf / (tf + k1 * (1 - b + (b * dl) / avgdl)), score });
    }
    const fieldScore = index.fieldIndexes.length === 1 ? sum : f(sum);
    fieldScores.push({ field: fi.name, score: f(sum) });
    total += fieldScore;
  }
  return { terms, fieldScores, score: f(total), unknownTerms: [...query.keys()].filter((t) => !known.has(t)) };
}

const list = (v: QueryVector) => [...v].map(([term, weight]) => ({ term, weight }));

/**
 * Explains document `docId` for query `queryId` (its query vector before any RM3 expansion) under `ranker`'s
 * settings: the breakdown, and where the run puts the document. Throws when the index has no such document.
 */
export function explainBm25(ranker: Bm25Ranker, docNumbers: ReadonlyMap<string, number>, queryId: string, query: QueryVector, docId: string): Bm25Explanation {
  return explainDocs(ranker, docNumbers, queryId, query, [docId])[0];
}

/** explainBm25 for several documents of one query, searching once (or every ranked document, by default). */
export function explainDocs(ranker: Bm25Ranker, docNumbers: ReadonlyMap<string, number>, queryId: string, query: QueryVector, docIds?: readonly string[]): Bm25Explanation[] {
  const { k1, b } = ranker.setting;
  const { expansion } = ranker.search(query);
  const searched = expansion?.expanded ?? query;
  const ranking = ranker.rank(queryId, query, { ids: [], scores: [], ties: [] });
  const position = new Map(ranking.ids.map((id, i) => [id, i]));
  const rm3 = rm3Part(ranker, expansion);
  const fields = ranker.index.fieldIndexes.map((fi) => fi.name);
  const factors = fieldFactors(ranker.index, k1, b);
  return (docIds ?? ranking.ids).map((docId) => {
    const d = docNumbers.get(docId);
    if (d === undefined) throw new Error(`document ${JSON.stringify(docId)} is not in the indexed corpus`);
    const breakdown = scoreBreakdown(ranker.index, k1, b, searched, d, factors);
    const at = position.get(docId) ?? -1;
    // From this breakdown's own sum: only how many ties sit above the document comes from the ranking.
    const ties = at < 0 ? 0 : ranking.ties![at];
    const rounded = at < 0 ? null : roundScore(breakdown.score);
    const final = rounded === null ? null : lowerTie(rounded, ties);
    return {
      retriever: 'bm25',
      queryId,
      docId,
      k1,
      b,
      fields,
      query: list(searched),
      rm3,
      ...breakdown,
      rank: at < 0 ? null : at + 1,
      rounded,
      ties,
      final,
      printed: final === null ? null : final.toFixed(6),
      removedAsQuery: ranker.removeQuery && docId === queryId,
    };
  });
}

function rm3Part(ranker: Bm25Ranker, e: Rm3Expansion | null): Bm25Explanation['rm3'] {
  if (!e || !ranker.setting.rm3) return null;
  return {
    ...ranker.setting.rm3,
    feedbackDocs: e.feedbackDocs.map((d) => ranker.index.docIds[d]),
    original: list(e.original),
    model: list(e.model),
  };
}

/** Document id -> document number of an index (built once per index and kept by the caller). */
export function docNumbers(index: Bm25Index): Map<string, number> {
  return new Map(index.docIds.map((id, i) => [id, i]));
}
