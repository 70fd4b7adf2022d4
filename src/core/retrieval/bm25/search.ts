import type { Bm25Index, ScoringField, ScoringIndex } from './index';
import { competitiveImpacts, type Impacts } from './impacts';
import { clauseScore, maxImpact, maxScoreTopK, type Clause } from './maxScore';
import { LENGTH_TABLE } from './smallFloat';

/**
 * BM25 scoring as Lucene 9's BM25Similarity computes it, float for float:
 *   idf    = ln(1 + (docCount - df + 0.5) / (df + 0.5))
 *   weight = boost * idf                       (boost = the query term's weight)
 *   score  = weight - weight / (1 + tf * cache[norm]),  cache[n] = 1 / (k1 * ((1 - b) + b * LENGTH_TABLE[n] / avgdl))
 * which equals weight * tf / (tf + k1 * (1 - b + b * dl / avgdl)) with dl decoded from the one-byte norm.
 * Each step is rounded to float32 (Math.fround) as Java does; a field's clause scores are summed in double and
 * rounded to float (Lucene's disjunction), and multifield sums the per-field scores the same way.
 * Ties are broken by document id (ascending string order), as Anserini's searcher does.
 */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** A weighted query: analysed term -> weight. Bags of words weigh each term by its count (as Anserini). */
export type QueryVector = Map<string, number>;

/**
 * A query as term ids of each field (resolveQuery): per field, the query's terms that the field has, in query
 * order, and their weights; `positive`: every weight is > 0 and finite (else MaxScore does not apply). Plain data:
 * it is what search worker threads get (they have no terms).
 */
export interface ResolvedQuery {
  fields: { terms: number[]; boosts: number[] }[];
  positive: boolean;
}

/** The query's terms as each field's term ids (see ResolvedQuery). */
export function resolveQuery(index: Bm25Index, query: QueryVector): ResolvedQuery {
  let positive = true;
  for (const boost of query.values()) if (!(boost > 0 && boost < Infinity)) positive = false;
  const fields = index.fieldIndexes.map((fi) => {
    const terms: number[] = [];
    const boosts: number[] = [];
    for (const [term, boost] of query) {
      const t = fi.termIds.get(term);
      if (t === undefined) continue;
      terms.push(t);
      boosts.push(boost);
    }
    return { terms, boosts };
  });
  return { fields, positive };
}

/** The scoring view of an index. */
export function scoringIndex(index: Bm25Index): ScoringIndex {
  return { numDocs: index.docIds.length, idRank: index.idRank, fieldIndexes: index.fieldIndexes };
}

export interface Hits {
  docs: Uint32Array;
  scores: Float32Array;
}

const f = Math.fround;
const RANK_SPAN = 2 ** 21;
/**
 * MaxScore is used when the query's terms have at least this many postings, and this many per hit asked for:
 * below, the accumulator loop (a few ns a posting) beats MaxScore's per-document work, measured per query on
 * SciFact (exhaustive faster at every ratio) and 1M synthetic documents (break-even near 32 postings a hit).
 */
const PRUNE_MIN_POSTINGS = 2 ** 17;
const PRUNE_MIN_POSTINGS_PER_HIT = 32;
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

export class Searcher {
  readonly numDocs: number;
  readonly index: ScoringIndex;
  private readonly total: Float64Array;
  private readonly fieldAcc: Float64Array;
  private readonly seen: Uint8Array;
  private readonly touched: Uint32Array;
  private nTouched = 0;
  /** document number -> position of its id in sorted id order (for tie-breaking without string compares). */
  private readonly idRank: Uint32Array;
  private readonly docOfRank: Uint32Array;
  private readonly caches: Float32Array[];
  private scratch = new Float32Array(0);
  private selectBuf = new Float32Array(0);

  /** Over a Bm25Index (queries by term or resolved), or a ScoringIndex (resolved queries only). */
  constructor(
    private readonly source: Bm25Index | ScoringIndex,
    readonly params: Bm25Params,
  ) {
    const index = (this.index = 'docIds' in source ? scoringIndex(source) : source);
    const n = (this.numDocs = index.numDocs);
    this.total = new Float64Array(n);
    this.fieldAcc = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.touched = new Uint32Array(n);
    this.idRank = index.idRank;
    this.docOfRank = new Uint32Array(n);
    for (let d = 0; d < n; d++) this.docOfRank[this.idRank[d]] = d;
    this.caches = index.fieldIndexes.map((fi) => normCache(fi, params));
  }

  private resolved(query: QueryVector | ResolvedQuery): ResolvedQuery {
    if (!(query instanceof Map)) return query;
    if (!('docIds' in this.source)) throw new Error('a Searcher over shared arrays takes resolved queries only');
    return resolveQuery(this.source, query);
  }

  /**
   * Top `k` documents for `query`, best first: by MaxScore (maxScore.ts) where it pays, else exhaustively; both
   * give the same hits and scores, ties included.
   */
  search(query: QueryVector | ResolvedQuery, k: number): Hits {
    return this.searchPruned(query, k, PRUNE_MIN_POSTINGS, PRUNE_MIN_POSTINGS_PER_HIT);
  }

  /**
   * Top `k` by MaxScore when the query's terms have at least `minPostings` postings, and `perHit` per hit asked
   * for (0, 0: always, as tests compare it with searchExhaustive); exhaustive where MaxScore does not apply
   * (several fields, a weight that is not positive).
   */
  searchPruned(query: QueryVector | ResolvedQuery, k: number, minPostings = 0, perHit = 0): Hits {
    const q = this.resolved(query);
    if (this.index.fieldIndexes.length !== 1 || !q.positive) return this.searchExhaustive(q, k);
    const fi = this.index.fieldIndexes[0];
    const cache = this.caches[0];
    const { terms, boosts } = q.fields[0];
    const clauses: Clause[] = [];
    let postings = 0;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      const lo = fi.offsets[t];
      const hi = fi.offsets[t + 1];
      postings += hi - lo;
      clauses.push({ slot: i, lo, hi, w: f(boosts[i] * idf(fi.docCount, hi - lo)), max: 0 });
    }
    if (postings < minPostings || postings < perHit * k) return this.searchExhaustive(q, k);
    const impacts = impactsOf(fi);
    clauses.forEach((c, i) => (c.max = clauseScore(c.w, maxImpact(impacts, cache, terms[i]))));
    const size = Math.min(k, this.numDocs);
    const docs = new Uint32Array(size);
    const scores = new Float32Array(size);
    const n = maxScoreTopK(fi, cache, clauses, terms.length, k, this.idRank, docs, scores);
    return { docs: docs.subarray(0, n), scores: scores.subarray(0, n) };
  }

  /** Top `k` documents for `query` by scoring every posting of its terms. */
  searchExhaustive(query: QueryVector | ResolvedQuery, k: number): Hits {
    const q = this.resolved(query);
    const { total, fieldAcc, seen, touched } = this;
    const fields = this.index.fieldIndexes;
    const single = fields.length === 1;
    for (let fno = 0; fno < fields.length; fno++) {
      const fi = fields[fno];
      const cache = this.caches[fno];
      const acc = single ? total : fieldAcc;
      const { terms, boosts } = q.fields[fno];
      for (let i = 0; i < terms.length; i++) {
        const t = terms[i];
        const lo = fi.offsets[t];
        const hi = fi.offsets[t + 1];
        const w = f(boosts[i] * idf(fi.docCount, hi - lo));
        const { docs, tfs, norms } = fi;
        for (let p = lo; p < hi; p++) {
          const d = docs[p];
          const s = f(w - f(w / f(1 + f(tfs[p] * cache[norms[d]]))));
          if (seen[d] === 0) {
            seen[d] = 1;
            touched[this.nTouched++] = d;
          }
          acc[d] += s;
        }
      }
      if (!single) {
        // Round this field's sum to float before adding it to the total, as the outer Lucene disjunction does.
        for (let i = 0; i < this.nTouched; i++) {
          const d = touched[i];
          total[d] += f(fieldAcc[d]);
          fieldAcc[d] = 0;
        }
      }
    }
    const hits = this.topK(k);
    for (let i = 0; i < this.nTouched; i++) {
      const d = touched[i];
      total[d] = 0;
      seen[d] = 0;
    }
    this.nTouched = 0;
    return hits;
  }

  /**
   * The k best touched documents: a selection finds the k-th best score (a threshold), then only the documents
   * at or above it are sorted, by score descending and id ascending. Measured faster than a bounded heap here
   * (k = 1000 of a few thousand to a million touched documents).
   */
  private topK(k: number): Hits {
    const { total, touched, idRank } = this;
    const n = this.nTouched;
    const scores = this.scratch.length >= n ? this.scratch : (this.scratch = new Float32Array(n));
    for (let i = 0; i < n; i++) scores[i] = total[touched[i]]; // rounds to float, as Lucene's final score
    let threshold = -Infinity;
    if (n > k) {
      if (this.selectBuf.length < n) this.selectBuf = new Float32Array(scores.length);
      const copy = this.selectBuf.subarray(0, n);
      copy.set(scores.subarray(0, n));
      threshold = kthLargest(copy, k);
    }
    let m = 0;
    let candidates = new Uint32Array(Math.min(n, 2 * k + 16));
    for (let i = 0; i < n; i++) {
      if (scores[i] >= threshold) {
        if (m === candidates.length) {
          const grown = new Uint32Array(2 * m);
          grown.set(candidates);
          candidates = grown;
        }
        candidates[m++] = i;
      }
    }
    const size = Math.min(k, m);
    const docs = new Uint32Array(size);
    const out = new Float32Array(size);
    if (this.sortByKeys(candidates, m, scores, docs, out)) return { docs, scores: out };
    const order = Array.from(candidates.subarray(0, m));
    order.sort((a, b) => scores[b] - scores[a] || idRank[touched[a]] - idRank[touched[b]]);
    for (let r = 0; r < size; r++) {
      docs[r] = touched[order[r]];
      out[r] = scores[order[r]];
    }
    return { docs, scores: out };
  }

  /**
   * Fast path of the final sort: with non-negative scores (whose float32 bit patterns sort like the numbers) and
   * fewer than 2^21 documents, (score bits, reversed id rank) packs into one exact non-negative double, and a
   * typed-array sort needs no comparator. Returns false when it does not apply.
   */
  private sortByKeys(candidates: Uint32Array, m: number, scores: Float32Array, docs: Uint32Array, out: Float32Array): boolean {
    if (this.numDocs > RANK_SPAN) return false;
    const keys = new Float64Array(m);
    for (let c = 0; c < m; c++) {
      const i = candidates[c];
      F32[0] = scores[i];
      if (F32[0] < 0 || Number.isNaN(F32[0])) return false;
      keys[c] = U32[0] * RANK_SPAN + (RANK_SPAN - 1 - this.idRank[this.touched[i]]);
    }
    // Non-negative doubles order as their bit patterns do: sorting those as unsigned integers gives the same
    // order and skips the float comparison's NaN and -0 handling (a third of the sort's time in a cold run).
    new BigUint64Array(keys.buffer, 0, m).sort();
    for (let r = 0; r < docs.length; r++) {
      const key = keys[m - 1 - r];
      const bits = Math.floor(key / RANK_SPAN);
      U32[0] = bits;
      out[r] = F32[0];
      docs[r] = this.docOfRank[RANK_SPAN - 1 - (key - bits * RANK_SPAN)];
    }
    return true;
  }
}

/** The k-th largest value of `a` (1-based k <= a.length), by quickselect; reorders `a`. */
function kthLargest(a: Float32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] > pivot) i++;
      while (a[j] < pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target];
  }
  return a[target];
}

/** Lucene's idf, rounded to float. */
export function idf(docCount: number, df: number): number {
  return f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
}

/**
 * A field's competitive impacts, computed when MaxScore is first used on it (one pass over the postings) and
 * shared by every searcher of the field: they do not depend on k1 and b, so a parameter grid computes them once.
 */
const IMPACTS = new WeakMap<ScoringField, Impacts>();
function impactsOf(fi: ScoringField): Impacts {
  let impacts = IMPACTS.get(fi);
  if (!impacts) IMPACTS.set(fi, (impacts = competitiveImpacts(fi.offsets, fi.docs, fi.tfs, fi.norms)));
  return impacts;
}

/** A field's average length as BM25 uses it: sumTotalTermFreq / docCount, rounded to float (1 for an empty field). */
export function averageLength(fi: ScoringField): number {
  return fi.docCount > 0 ? f(fi.sumTotalTermFreq / fi.docCount) : 1;
}

/** BM25Scorer's per-norm cache: 1 / (k1 * ((1 - b) + b * dl / avgdl)), in float arithmetic. */
export function normCache(fi: ScoringField, { k1, b }: Bm25Params): Float32Array {
  const avgdl = averageLength(fi);
  const fk1 = f(k1);
  const fb = f(b);
  const cache = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    cache[i] = f(1 / f(fk1 * f(f(1 - fb) + f(f(fb * LENGTH_TABLE[i]) / avgdl))));
  }
  return cache;
}

/** A bag of words as a query vector: each distinct term weighted by its count (Anserini's BagOfWords). */
export function bagOfWords(terms: string[]): QueryVector {
  const q: QueryVector = new Map();
  for (const t of terms) q.set(t, (q.get(t) ?? 0) + 1);
  return q;
}
