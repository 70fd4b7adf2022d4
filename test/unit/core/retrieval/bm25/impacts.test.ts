import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { competitiveImpacts } from '../../../../../src/core/retrieval/bm25/impacts';
import { uniform } from '../../../../../src/core/random';

describe('competitive impacts', () => {
  it('keep exactly the (tf, norm) pairs no other posting beats on both, norms ascending', () => {
    // Term 0: (tf 1, norm 5), (3, 9), (2, 7), (3, 12), (1, 2) -> competitive: (1, 2), (2, 7), (3, 9). Term 1: none.
    const norms = Uint8Array.from([5, 9, 7, 12, 2]);
    const r = competitiveImpacts(Uint32Array.from([0, 5, 5]), Uint32Array.from([0, 1, 2, 3, 4]), Uint16Array.from([1, 3, 2, 3, 1]), norms);
    assert.deepEqual([...r.offsets], [0, 3, 3]);
    assert.deepEqual([...r.tfs], [1, 2, 3]);
    assert.deepEqual([...r.norms], [2, 7, 9]);
  });

  it('give the largest tf * cache[norm] of the postings for any decreasing cache', () => {
    const rand = uniform(11);
    for (let trial = 0; trial < 200; trial++) {
      const numDocs = 1 + Math.floor(rand() * 100);
      const norms = Uint8Array.from({ length: numDocs }, () => Math.floor(rand() * 256));
      const V = 1 + Math.floor(rand() * 5);
      const offsets = new Uint32Array(V + 1);
      const docs: number[] = [];
      const tfs: number[] = [];
      for (let t = 0; t < V; t++) {
        for (let d = 0; d < numDocs; d++) {
          if (rand() < 0.3) {
            docs.push(d);
            tfs.push(1 + Math.floor(rand() ** 3 * 50));
          }
        }
        offsets[t + 1] = docs.length;
      }
      const imp = competitiveImpacts(offsets, Uint32Array.from(docs), Uint16Array.from(tfs), norms);
      let c = 1 + rand() * 3;
      const cache = Float32Array.from({ length: 256 }, () => (c = c * (1 - rand() * 0.05)));
      for (let t = 0; t < V; t++) {
        let want = 0;
        for (let p = offsets[t]; p < offsets[t + 1]; p++) want = Math.max(want, Math.fround(tfs[p] * cache[norms[docs[p]]]));
        let got = 0;
        for (let i = imp.offsets[t]; i < imp.offsets[t + 1]; i++) got = Math.max(got, Math.fround(imp.tfs[i] * cache[imp.norms[i]]));
        assert.equal(got, want, `trial ${trial} term ${t}`);
      }
    }
  });
});
