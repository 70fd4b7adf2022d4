import type { Similarity } from './modelFolder';

/**
 * Exact (brute-force) nearest neighbours over document embeddings that arrive in blocks (from the encoder, the
 * cache file or an imported matrix), so the whole matrix never has to be in memory: every document is scored
 * against every query, and each query keeps its k best in a heap. Blocks must come in document order; since a
 * heap keeps the earlier of equal scores and every score is computed the same way whatever the block size,
 * the result does not depend on how the documents are cut into blocks, ties included.
 *
 * Dot product or cosine; the BEIR paper (Appendix H) shows that the choice changes which documents come back
 * (dot favours long documents for models trained with it, e.g. TAS-B).
 */
export class BlockSearch {
  private readonly heaps: TopK[];
  private readonly qScale: Float64Array;
  private normalized = new Float32Array(0);
  private seen = 0;

  constructor(
    private readonly queries: Float32Array,
    readonly queryCount: number,
    readonly dim: number,
    readonly similarity: Similarity,
    k: number,
    readonly docCount: number,
  ) {
    this.heaps = Array.from({ length: queryCount }, () => new TopK(Math.min(k, docCount)));
    this.qScale = new Float64Array(queryCount).fill(1);
    if (similarity === 'cosine') {
      for (let i = 0; i < queryCount; i++) {
        let sq = 0;
        for (let j = 0, o = i * dim; j < dim; j++) sq += queries[o + j] * queries[o + j];
        this.qScale[i] = 1 / Math.max(Math.sqrt(sq), 1e-12);
      }
    }
  }

  /** Documents searched so far. */
  get documents(): number {
    return this.seen;
  }

  /** Scores the next `count` documents (rows of `block`, row-major [count, dim]) against every query. */
  add(block: Float32Array, count: number): void {
    const dim = this.dim;
    if (this.seen + count > this.docCount) throw new Error(`more than ${this.docCount} documents`);
    // For cosine, documents are normalized (into scratch space: the embeddings stay as the model made them).
    const docs = this.similarity === 'cosine' ? this.normalize(block, count) : block;
    // Tiles of documents small enough to stay in the CPU cache while every query passes over them.
    const tile = Math.max(1, Math.floor(65536 / dim));
    for (let t0 = 0; t0 < count; t0 += tile) {
      const t1 = Math.min(count, t0 + tile);
      let i = 0;
      for (; i + 4 <= this.queryCount; i += 4) this.score4(docs, t0, t1, i);
      for (; i < this.queryCount; i++) this.score1(docs, t0, t1, i);
    }
    this.seen += count;
  }

  /**
   * Documents [t0, t1) of the block against queries i..i+3: each document value is loaded once for four
   * queries. Each score is summed in the same order (and in doubles) as score1 sums it, so results match.
   */
  private score4(docs: Float32Array, t0: number, t1: number, i: number): void {
    const { dim, queries: q, heaps, qScale } = this;
    const o0 = i * dim;
    const o1 = o0 + dim;
    const o2 = o1 + dim;
    const o3 = o2 + dim;
    for (let d = t0, off = t0 * dim; d < t1; d++, off += dim) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < dim; j++) {
        const x = docs[off + j];
        s0 += q[o0 + j] * x;
        s1 += q[o1 + j] * x;
        s2 += q[o2 + j] * x;
        s3 += q[o3 + j] * x;
      }
      const id = this.seen + d;
      heaps[i].offer(id, s0 * qScale[i]);
      heaps[i + 1].offer(id, s1 * qScale[i + 1]);
      heaps[i + 2].offer(id, s2 * qScale[i + 2]);
      heaps[i + 3].offer(id, s3 * qScale[i + 3]);
    }
  }

  private score1(docs: Float32Array, t0: number, t1: number, i: number): void {
    const { dim, queries: q } = this;
    const heap = this.heaps[i];
    const scale = this.qScale[i];
    const qo = i * dim;
    for (let d = t0, off = t0 * dim; d < t1; d++, off += dim) {
      let s = 0;
      for (let j = 0; j < dim; j++) s += q[qo + j] * docs[off + j];
      heap.offer(this.seen + d, s * scale);
    }
  }

  /** The k best documents of query i (indices in block order) and their scores, best first. */
  results(i: number): { docs: Int32Array; scores: Float32Array } {
    if (this.seen !== this.docCount) throw new Error(`searched ${this.seen} of ${this.docCount} documents`);
    return this.heaps[i].sorted();
  }

  private normalize(data: Float32Array, count: number): Float32Array {
    const dim = this.dim;
    if (this.normalized.length < count * dim) this.normalized = new Float32Array(count * dim);
    const out = this.normalized;
    for (let d = 0, off = 0; d < count; d++, off += dim) {
      let sq = 0;
      for (let j = 0; j < dim; j++) sq += data[off + j] * data[off + j];
      const inv = 1 / Math.max(Math.sqrt(sq), 1e-12);
      for (let j = 0; j < dim; j++) out[off + j] = data[off + j] * inv;
    }
    return out;
  }
}

/**
 * A bounded heap keeping the k best (score, id) pairs: higher score first, then smaller id, as a full sort
 * would. Its root is the worst pair kept (lowest score, and among equal scores the largest id), so a run
 * holding duplicate documents keeps the first of them at the cut-off, as the exhaustive ranking does.
 */
export class TopK {
  private readonly ids: Int32Array;
  private readonly vals: Float64Array;
  private n = 0;

  constructor(private readonly k: number) {
    this.ids = new Int32Array(k);
    this.vals = new Float64Array(k);
  }

  offer(id: number, v: number): void {
    const { ids, vals } = this;
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(v, id, vals[p], ids[p])) break;
        ids[i] = ids[p];
        vals[i] = vals[p];
        i = p;
      }
      ids[i] = id;
      vals[i] = v;
      return;
    }
    if (this.k === 0 || !worse(vals[0], ids[0], v, id)) return;
    // Replace the root (the worst) and sift down.
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      const c = r < this.n && worse(vals[r], ids[r], vals[l], ids[l]) ? r : l;
      if (!worse(vals[c], ids[c], v, id)) break;
      ids[i] = ids[c];
      vals[i] = vals[c];
      i = c;
    }
    ids[i] = id;
    vals[i] = v;
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

/** Whether (va, ia) ranks below (vb, ib). */
function worse(va: number, ia: number, vb: number, ib: number): boolean {
  return va < vb || (va === vb && ia > ib);
}
