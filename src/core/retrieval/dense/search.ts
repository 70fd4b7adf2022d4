import type { Similarity } from './modelFolder';

/**
 * Exact (brute-force) nearest neighbours: every document is scored against the query, so results do not
 * depend on an approximate index. Dot product or cosine; the BEIR paper (Appendix H) shows that the choice
 * changes which documents come back (dot favours long documents for models trained with it, e.g. TAS-B).
 */
export class ExactIndex {
  private readonly docs: Float32Array;

  constructor(
    docs: Float32Array,
    readonly count: number,
    readonly dim: number,
    readonly similarity: Similarity,
  ) {
    // For cosine, documents are normalized once (a copy: the cached embeddings stay as the model made them).
    this.docs = similarity === 'cosine' ? normalizedRows(docs, count, dim) : docs;
  }

  /** The k best documents for `query` (row qRow of `queries`), best first: indices and scores. */
  search(queries: Float32Array, qRow: number, k: number): { docs: Int32Array; scores: Float32Array } {
    const dim = this.dim;
    const q = queries.subarray(qRow * dim, (qRow + 1) * dim);
    let qScale = 1;
    if (this.similarity === 'cosine') {
      let sq = 0;
      for (let j = 0; j < dim; j++) sq += q[j] * q[j];
      qScale = 1 / Math.max(Math.sqrt(sq), 1e-12);
    }
    const heap = new TopK(Math.min(k, this.count));
    const docs = this.docs;
    for (let d = 0, off = 0; d < this.count; d++, off += dim) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += q[j] * docs[off + j];
      heap.offer(d, s * qScale);
    }
    return heap.sorted();
  }
}

function normalizedRows(data: Float32Array, count: number, dim: number): Float32Array {
  const out = new Float32Array(count * dim);
  for (let d = 0, off = 0; d < count; d++, off += dim) {
    let sq = 0;
    for (let j = 0; j < dim; j++) sq += data[off + j] * data[off + j];
    const inv = 1 / Math.max(Math.sqrt(sq), 1e-12);
    for (let j = 0; j < dim; j++) out[off + j] = data[off + j] * inv;
  }
  return out;
}

/** A bounded min-heap keeping the k largest scores; among equal scores the earlier offer is kept. */
export class TopK {
  private readonly ids: Int32Array;
  private readonly vals: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.ids = new Int32Array(k);
    this.vals = new Float64Array(k);
  }

  offer(id: number, v: number): void {
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.vals[p] <= v) break;
        this.ids[i] = this.ids[p];
        this.vals[i] = this.vals[p];
        i = p;
      }
      this.ids[i] = id;
      this.vals[i] = v;
      return;
    }
    if (this.k === 0 || v <= this.vals[0]) return;
    // Replace the root (the smallest) and sift down.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      const c = r < this.n && this.vals[r] < this.vals[l] ? r : l;
      if (this.vals[c] >= v) break;
      this.ids[i] = this.ids[c];
      this.vals[i] = this.vals[c];
      i = c;
    }
    this.ids[i] = id;
    this.vals[i] = v;
  }

  /** Contents, best first (equal scores by smaller id first). */
  sorted(): { docs: Int32Array; scores: Float32Array } {
    const idx = Array.from({ length: this.n }, (_, i) => i).sort((a, b) => this.vals[b] - this.vals[a] || this.ids[a] - this.ids[b]);
    return {
      docs: Int32Array.from(idx, (i) => this.ids[i]),
      scores: Float32Array.from(idx, (i) => this.vals[i]),
    };
  }
}
