import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Run } from '../../../../../src/core/formats/run';
import { fuse, METHODS } from '../../../../../src/core/retrieval/fusion/fuse';
import { normalizeList, NORMALIZATIONS } from '../../../../../src/core/retrieval/fusion/normalize';

describe('fusion normalizations: infinite scores (a run file may hold inf, as trec_eval accepts)', () => {
  const lists = [
    [Infinity, 3, 2, 1],
    [3, 2, 1, -Infinity],
    [Infinity, Infinity, 1, -Infinity],
    [Infinity, -Infinity],
    [Infinity],
  ];
  for (const norm of NORMALIZATIONS) {
    it(`${norm}: finite, and in the list's own order`, () => {
      for (const x of lists) {
        const out = new Float64Array(x.length);
        normalizeList(norm, x, x.length, out);
        for (let i = 0; i < x.length; i++) {
          assert.ok(Number.isFinite(out[i]), `${norm} ${String(x)} -> ${String([...out])}`);
          if (i > 0 && norm !== 'rank') assert.ok(x[i] === x[i - 1] ? out[i] === out[i - 1] : out[i] < out[i - 1], `${norm} ${String(x)} -> ${String([...out])}`);
        }
      }
    });
  }

  it('fuse: a document scored Infinity stays first and no fused score is NaN, for every method and normalization', () => {
    const A = Run.fromRankings('A', [['q1', ['top', 'd2', 'd3'], [Infinity, 2, 1]]]);
    const B = Run.fromRankings('B', [['q1', ['top', 'd2', 'd3'], [0.9, 0.8, 0.1]]]);
    for (const method of METHODS) {
      for (const norm of NORMALIZATIONS) {
        if ((method === 'geometric' || method === 'harmonic') && (norm === 'none' || norm === 'z-score')) continue;
        const r = fuse([A, B], { method, norm, k: 10, tag: 't' }).ranking('q1');
        assert.ok(r);
        assert.equal(r.docs[0], 'top', `${method}/${norm}: ${String(r.docs)} ${String([...r.scores])}`);
        for (const s of r.scores) assert.ok(Number.isFinite(s), `${method}/${norm}: ${String([...r.scores])}`);
      }
    }
  });
});
