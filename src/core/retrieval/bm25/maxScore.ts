import type { ScoringField } from './index';
import type { Impacts } from './impacts';

/**
 * Top-k by MaxScore (Turtle & Flood 1995), document at a time over one field, returning exactly what exhaustive
 * scoring returns (search.ts), ties included:
 *  - each query term has an exact upper bound of its score: BM25's clause score grows with x = tf * cache[norm],
 *    so the bound is the clause score at the largest x of its postings, read from its competitive impacts;
 *  - terms sorted by bound; the lowest ones whose bounds sum below the current k-th score are "non-essential": a
 *    document that has none of the other ("essential") terms cannot enter the top k, so only the essential
 *    terms' postings are walked, and the non-essential ones are probed by binary search while the running bound
 *    still lets the document in;
 *  - a document that survives is scored in full, its clause scores summed in double in query order, as the
 *    exhaustive accumulator does, and rounded to float once: the same bits. Bounds are compared after a small
 *    relative inflation, so float rounding of the bound sums can only cost pruning, never a document;
 *  - a document is pruned only when its bound is strictly below the k-th score: an equal score can still win on
 *    its id, which ranks ties as the exhaustive sort does (id rank ascending).
 * Needs positive finite weights (the bounds assume every clause adds a non-negative score).
 */
const f = Math.fround;
const INFLATE = 1 + 1e-9;

export interface Clause {
  /** Position of the term in the query (the order scores are summed in). */
  slot: number;
  lo: number;
  hi: number;
  /** The term's weight: boost * idf, as a float. */
  w: number;
  /** Upper bound of the term's clause score. */
  max: number;
}

/**
 * Largest x = tf * cache[norm] over a term's postings (as a float), where its clause score is largest: x grows
 * with tf and falls with the norm, so it is reached at one of the term's competitive impacts (impacts.ts).
 */
export function maxImpact(impacts: Impacts, cache: Float32Array, t: number): number {
  const { offsets, tfs, norms } = impacts;
  let best = 0;
  for (let i = offsets[t], hi = offsets[t + 1]; i < hi; i++) {
    const x = f(tfs[i] * cache[norms[i]]);
    if (x > best) best = x;
  }
  return best;
}

/** The clause score of weight `w` at x = tf * cache[norm], exactly as the exhaustive loop computes it. */
export function clauseScore(w: number, x: number): number {
  return f(w - f(w / f(1 + x)));
}

/**
 * The k best documents (score descending, id rank ascending) for `clauses` over `fi`; writes them to `docs` and
 * `scores` (length >= k) and returns how many there are.
 */
export function maxScoreTopK(
  fi: ScoringField,
  cache: Float32Array,
  clauses: Clause[],
  numSlots: number,
  k: number,
  idRank: Uint32Array,
  outDocs: Uint32Array,
  outScores: Float32Array,
): number {
  const { docs, tfs, norms } = fi;
  const m = clauses.length;
  const order = [...clauses].sort((a, b) => a.max - b.max);
  const lo = Int32Array.from(order, (c) => c.lo);
  const hi = Int32Array.from(order, (c) => c.hi);
  const w = Float64Array.from(order, (c) => c.w);
  const slot = Int32Array.from(order, (c) => c.slot);
  // upTo[i]: bound of the clauses order[0..i-1] together.
  const upTo = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) upTo[i + 1] = (upTo[i] + order[i].max) * INFLATE;
  const contrib = new Float64Array(numSlots);

  // Min-heap of the best k so far; its root is the worst of them (lowest score, then highest id rank).
  const hScore = new Float32Array(k);
  const hDoc = new Uint32Array(k);
  let size = 0;
  const worse = (i: number, j: number) => hScore[i] < hScore[j] || (hScore[i] === hScore[j] && idRank[hDoc[i]] > idRank[hDoc[j]]);
  const swap = (i: number, j: number) => {
    const s = hScore[i];
    hScore[i] = hScore[j];
    hScore[j] = s;
    const d = hDoc[i];
    hDoc[i] = hDoc[j];
    hDoc[j] = d;
  };
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) return;
      let c = l;
      if (l + 1 < size && worse(l + 1, l)) c = l + 1;
      if (!worse(c, i)) return;
      swap(c, i);
      i = c;
    }
  };
  const siftUp = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) return;
      swap(i, p);
      i = p;
    }
  };

  let threshold = -Infinity; // the k-th score once there are k documents
  let firstEssential = 0;
  for (;;) {
    // The next candidate: the smallest document among the essential clauses' cursors.
    let d = 0xffffffff;
    for (let i = firstEssential; i < m; i++) if (lo[i] < hi[i] && docs[lo[i]] < d) d = docs[lo[i]];
    if (d === 0xffffffff) break;
    const norm = norms[d];
    const x0 = cache[norm];
    let partial = 0;
    for (let i = firstEssential; i < m; i++) {
      const p = lo[i];
      if (p < hi[i] && docs[p] === d) {
        const s = clauseScore(w[i], f(tfs[p] * x0));
        contrib[slot[i]] = s;
        partial += s;
        lo[i] = p + 1;
      }
    }
    let pruned = false;
    for (let i = firstEssential - 1; i >= 0; i--) {
      if (f((partial + upTo[i + 1]) * INFLATE) < threshold) {
        pruned = true;
        break;
      }
      const p = (lo[i] = seek(docs, lo[i], hi[i], d));
      if (p < hi[i] && docs[p] === d) {
        const s = clauseScore(w[i], f(tfs[p] * x0));
        contrib[slot[i]] = s;
        partial += s;
        lo[i] = p + 1;
      }
    }
    if (!pruned) {
      let sum = 0;
      for (let q = 0; q < numSlots; q++) sum += contrib[q];
      const score = f(sum);
      if (size < k) {
        hScore[size] = score;
        hDoc[size] = d;
        siftUp(size++);
      } else if (score > hScore[0] || (score === hScore[0] && idRank[d] < idRank[hDoc[0]])) {
        hScore[0] = score;
        hDoc[0] = d;
        siftDown(0);
      }
      if (size === k) {
        threshold = hScore[0];
        while (firstEssential < m && f(upTo[firstEssential + 1]) < threshold) firstEssential++;
      }
    }
    contrib.fill(0);
  }
  // Pop the heap worst-first into the output, back to front.
  const n = size;
  while (size > 0) {
    outDocs[size - 1] = hDoc[0];
    outScores[size - 1] = hScore[0];
    size--;
    if (size > 0) {
      hScore[0] = hScore[size];
      hDoc[0] = hDoc[size];
      siftDown(0);
    }
  }
  return n;
}

/** First position in docs[from, to) holding a document >= d (galloping, then binary search). */
function seek(docs: Uint32Array, from: number, to: number, d: number): number {
  if (from >= to || docs[from] >= d) return from;
  let step = 1;
  let low = from;
  let high = from + 1;
  while (high < to && docs[high] < d) {
    low = high;
    step *= 2;
    high = low + step;
  }
  if (high > to) high = to;
  // docs[low] < d; answer in (low, high]
  while (low + 1 < high) {
    const mid = (low + high) >>> 1;
    if (docs[mid] < d) low = mid;
    else high = mid;
  }
  return high;
}
