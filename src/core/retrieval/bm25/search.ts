import type { Bm25Index, FieldIndex } from './index';
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

export interface Hits {
  docs: Uint32Array;
  scores: Float32Array;
}

const f = Math.fround;

export class Searcher {
  readonly numDocs: number;
  private readonly total: Float64Array;
  private readonly fieldAcc: Float64Array;
  private readonly seen: Uint8Array;
  private readonly touched: Uint32Array;
  private nTouched = 0;
  /** document number -> position of its id in sorted id order (for tie-breaking without string compares). */
  private readonly idRank: Uint32Array;
  private readonly caches: Float32Array[];

  constructor(
    readonly index: Bm25Index,
    readonly params: Bm25Params,
  ) {
    const n = (this.numDocs = index.docIds.length);
    this.total = new Float64Array(n);
    this.fieldAcc = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.touched = new Uint32Array(n);
    const order = Array.from({ length: n }, (_, i) => i);
    const ids = index.docIds;
    order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
    this.idRank = new Uint32Array(n);
    for (let r = 0; r < n; r++) this.idRank[order[r]] = r;
    this.caches = index.fieldIndexes.map((fi) => normCache(fi, params));
  }

  /** Top `k` documents for `query`, best first. */
  search(query: QueryVector, k: number): Hits {
    const { total, fieldAcc, seen, touched } = this;
    const fields = this.index.fieldIndexes;
    const single = fields.length === 1;
    for (let fno = 0; fno < fields.length; fno++) {
      const fi = fields[fno];
      const cache = this.caches[fno];
      const acc = single ? total : fieldAcc;
      for (const [term, boost] of query) {
        const t = fi.termIds.get(term);
        if (t === undefined) continue;
        const lo = fi.offsets[t];
        const hi = fi.offsets[t + 1];
        const w = f(boost * idf(fi.docCount, hi - lo));
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

  private topK(k: number): Hits {
    const { total, touched, idRank } = this;
    const cap = Math.min(k, this.nTouched);
    const heapDoc = new Uint32Array(cap);
    const heapScore = new Float32Array(cap);
    let size = 0;
    // Min-heap on (score, then reversed id order): the root is the weakest hit kept so far.
    const weaker = (sa: number, da: number, sb: number, db: number) => sa < sb || (sa === sb && idRank[da] > idRank[db]);
    const siftDown = (i: number) => {
      const d = heapDoc[i];
      const s = heapScore[i];
      for (;;) {
        let c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && weaker(heapScore[c + 1], heapDoc[c + 1], heapScore[c], heapDoc[c])) c++;
        if (!weaker(heapScore[c], heapDoc[c], s, d)) break;
        heapDoc[i] = heapDoc[c];
        heapScore[i] = heapScore[c];
        i = c;
      }
      heapDoc[i] = d;
      heapScore[i] = s;
    };
    for (let i = 0; i < this.nTouched; i++) {
      const d = touched[i];
      const s = f(total[d]);
      if (size < cap) {
        let j = size++;
        while (j > 0) {
          const parent = (j - 1) >> 1;
          if (!weaker(s, d, heapScore[parent], heapDoc[parent])) break;
          heapDoc[j] = heapDoc[parent];
          heapScore[j] = heapScore[parent];
          j = parent;
        }
        heapDoc[j] = d;
        heapScore[j] = s;
      } else if (cap > 0 && weaker(heapScore[0], heapDoc[0], s, d)) {
        heapDoc[0] = d;
        heapScore[0] = s;
        siftDown(0);
      }
    }
    // Pop the weakest first, filling from the back: the result is best first.
    const docs = new Uint32Array(size);
    const scores = new Float32Array(size);
    for (let out = size - 1; out >= 0; out--) {
      docs[out] = heapDoc[0];
      scores[out] = heapScore[0];
      size--;
      if (size > 0) {
        heapDoc[0] = heapDoc[size];
        heapScore[0] = heapScore[size];
        siftDown(0);
      }
    }
    return { docs, scores };
  }
}

/** Lucene's idf, rounded to float. */
export function idf(docCount: number, df: number): number {
  return f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
}

/** BM25Scorer's per-norm cache: 1 / (k1 * ((1 - b) + b * dl / avgdl)), in float arithmetic. */
function normCache(fi: FieldIndex, { k1, b }: Bm25Params): Float32Array {
  const avgdl = fi.docCount > 0 ? f(fi.sumTotalTermFreq / fi.docCount) : 1;
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
