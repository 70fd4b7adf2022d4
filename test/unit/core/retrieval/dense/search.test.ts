import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BlockSearch, TopK } from '../../../../../src/core/retrieval/dense/search';

/** The exhaustive ranking, computed independently: every score as the search computes it, then a full sort. */
function fullSort(docs: Float32Array, n: number, dim: number, q: Float32Array, similarity: 'dot' | 'cosine', k: number): { docs: number[]; scores: number[] } {
  const norm = (v: Float32Array) => 1 / Math.max(Math.sqrt(v.reduce((a, x) => a + x * x, 0)), 1e-12);
  const scored = Array.from({ length: n }, (_, d) => {
    let row = docs.subarray(d * dim, (d + 1) * dim);
    if (similarity === 'cosine') row = Float32Array.from(row, (x) => x * norm(row));
    let s = 0;
    for (let j = 0; j < dim; j++) s += q[j] * row[j];
    return [d, s * (similarity === 'cosine' ? norm(q) : 1)];
  });
  scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const top = scored.slice(0, k);
  return { docs: top.map((t) => t[0]), scores: top.map((t) => Math.fround(t[1])) };
}

describe('dense: block search', () => {
  it('any cut into blocks gives the exhaustive ranking, ties (duplicate documents) included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }), // dim
        fc.integer({ min: 1, max: 60 }), // documents
        fc.integer({ min: 1, max: 10 }), // queries (groups of four and the rest)
        fc.integer({ min: 1, max: 70 }), // k
        fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 10 }), // block sizes, cycled
        fc.constantFrom('dot' as const, 'cosine' as const),
        fc.integer(),
        (dim, n, nq, k, sizes, similarity, seed) => {
          // Small integer values: many exactly equal scores, and whole duplicate rows.
          let x = seed;
          const next = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) % 5) - 2;
          const docs = Float32Array.from({ length: n * dim }, next);
          for (let d = 1; d < n; d += 3) docs.copyWithin(d * dim, (d - 1) * dim, d * dim);
          const queries = Float32Array.from({ length: nq * dim }, next);
          const search = new BlockSearch(queries, nq, dim, similarity, k, n);
          for (let at = 0, b = 0; at < n; b++) {
            const rows = Math.min(sizes[b % sizes.length], n - at);
            search.add(docs.slice(at * dim, (at + rows) * dim), rows);
            at += rows;
          }
          for (let i = 0; i < nq; i++) {
            const got = search.results(i);
            const want = fullSort(docs, n, dim, queries.subarray(i * dim, (i + 1) * dim), similarity, k);
            assert.deepEqual(Array.from(got.docs), want.docs);
            assert.deepEqual(Array.from(got.scores), want.scores);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('TopK keeps the k best of any stream, and the first of equal scores at the cut-off (against a full sort)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 200 }), fc.integer({ min: 1, max: 30 }), (vals, k) => {
        const t = new TopK(Math.min(k, vals.length));
        vals.forEach((v, i) => t.offer(i, v));
        const want = vals.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, k);
        const got = t.sorted();
        assert.deepEqual(Array.from(got.scores), want.map((w) => w[0]));
        assert.deepEqual(Array.from(got.docs), want.map((w) => w[1]));
      }),
    );
  });

  it('a search is not read before every document has been added', () => {
    const s = new BlockSearch(Float32Array.from([1]), 1, 1, 'dot', 1, 2);
    s.add(Float32Array.from([1]), 1);
    assert.throws(() => s.results(0), /searched 1 of 2 documents/);
  });
});
