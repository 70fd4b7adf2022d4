import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Run } from '../../../../../src/core/formats/run';
import { fuse, METHODS, type FuseOptions } from '../../../../../src/core/retrieval/fusion/fuse';
import { normalizeList, NORMALIZATIONS, type Normalization } from '../../../../../src/core/retrieval/fusion/normalize';
import { rankDescending } from '../../../../../src/core/retrieval/fusion/rankSort';

// Two runs for one query, small enough to compute every formula by hand:
//   A: d1 3.0, d2 2.0, d3 1.0        B: d2 0.9, d4 0.5
const A = Run.fromRankings('A', [['q1', ['d1', 'd2', 'd3'], [3, 2, 1]]]);
const B = Run.fromRankings('B', [['q1', ['d2', 'd4'], [0.9, 0.5]]]);

function fused(opts: Partial<FuseOptions>, runs = [A, B]): [string, number][] {
  const run = fuse(runs, { method: 'arithmetic', norm: 'min-max', k: 1000, tag: 't', ...opts });
  const r = run.ranking('q1');
  assert.ok(r);
  return r.docs.map((d, i) => [d, r.scores[i]]);
}

function assertClose(actual: [string, number][], expected: [string, number][]): void {
  assert.deepEqual(
    actual.map(([d]) => d),
    expected.map(([d]) => d),
  );
  actual.forEach(([, s], i) => assert.ok(Math.abs(s - expected[i][1]) < 1e-9, `${actual[i][0]}: ${s} vs ${expected[i][1]}`));
}

function norm(n: Normalization, x: number[]): number[] {
  const out = new Float64Array(x.length);
  normalizeList(n, x, x.length, out);
  return Array.from(out);
}

describe('fusion: normalizations (hand-computed)', () => {
  const x = [3, 2, 1];
  const close = (a: number[], b: number[]) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) < 1e-9, `${a} vs ${b}`));
  it('min-max', () => close(norm('min-max', x), [1, 0.5, 0]));
  it('max', () => close(norm('max', x), [1, 2 / 3, 1 / 3]));
  it('sum (shifted by the minimum)', () => close(norm('sum', x), [2 / 3, 1 / 3, 0]));
  it('l2', () => close(norm('l2', x), [3 / Math.sqrt(14), 2 / Math.sqrt(14), 1 / Math.sqrt(14)]));
  it('z-score (population standard deviation)', () => {
    const sd = Math.sqrt(2 / 3);
    close(norm('z-score', x), [1 / sd, 0, -1 / sd]);
  });
  it('rank', () => close(norm('rank', x), [1, 2 / 3, 1 / 3]));
  it('none', () => close(norm('none', x), x));
  it('degenerate lists: all scores equal', () => {
    close(norm('min-max', [4, 4]), [1, 1]);
    close(norm('sum', [4, 4]), [0.5, 0.5]);
    close(norm('z-score', [4, 4]), [0, 0]);
    close(norm('l2', [0, 0]), [0, 0]);
    close(norm('max', [0, 0]), [0, 0]);
  });
});

describe('fusion: combinations (hand-computed, missing documents count 0)', () => {
  // min-max: A d1 1, d2 0.5, d3 0; B d2 1, d4 0.
  it('arithmetic mean; ties ranked by document id descending', () =>
    assertClose(fused({ method: 'arithmetic' }), [['d2', 0.75], ['d1', 0.5], ['d4', 0], ['d3', 0]]));
  it('geometric mean: only documents in every run with non-zero scores survive', () =>
    assertClose(fused({ method: 'geometric' }), [['d2', Math.sqrt(0.5)], ['d4', 0], ['d3', 0], ['d1', 0]]));
  it('harmonic mean', () => assertClose(fused({ method: 'harmonic' }), [['d2', 2 / 3], ['d4', 0], ['d3', 0], ['d1', 0]]));
  it("linear s = b + f * n with the study's f = 8", () =>
    assertClose(fused({ method: 'linear', weights: [1, 8] }), [['d2', 8.5], ['d1', 1], ['d4', 0], ['d3', 0]]));
  it('weighted arithmetic mean', () =>
    assertClose(fused({ method: 'arithmetic', weights: [3, 1] }), [['d1', 0.75], ['d2', 0.625], ['d4', 0], ['d3', 0]]));
  it('CombSUM and CombMNZ', () => {
    assertClose(fused({ method: 'combsum' }), [['d2', 1.5], ['d1', 1], ['d4', 0], ['d3', 0]]);
    assertClose(fused({ method: 'combmnz' }), [['d2', 3], ['d1', 1], ['d4', 0], ['d3', 0]]);
  });
  it('RRF with k = 60 and 1-based ranks', () =>
    assertClose(fused({ method: 'rrf' }), [['d2', 1 / 62 + 1 / 61], ['d1', 1 / 61], ['d4', 1 / 62], ['d3', 1 / 63]]));
  it('L2 normalization then arithmetic mean (the study)', () => {
    const a = Math.sqrt(14);
    const b = Math.sqrt(0.81 + 0.25);
    assertClose(fused({ norm: 'l2' }), [
      ['d2', (2 / a + 0.9 / b) / 2],
      ['d1', 3 / a / 2],
      ['d4', 0.5 / b / 2],
      ['d3', 1 / a / 2],
    ]);
  });
  it('z-score then CombSUM: a missing document counts 0, the mean', () => {
    const sd = Math.sqrt(2 / 3);
    assertClose(fused({ norm: 'z-score', method: 'combsum' }), [['d2', 1], ['d1', 1 / sd], ['d4', -1], ['d3', -1 / sd]].sort((p, q) => (q[1] as number) - (p[1] as number)) as [string, number][]);
  });
  it('depth per run: only the first results of each run take part', () =>
    // A cut to d1, d2: min-max gives d1 1, d2 0; B as before.
    assertClose(fused({ depth: [2, 1000] }), [['d2', 0.5], ['d1', 0.5], ['d4', 0]]));
  it('k keeps the best results per query', () => assert.equal(fused({ k: 2 }).length, 2));
  it('queries of any run are fused; a query missing from a run gets 0 from it', () => {
    const C = Run.fromRankings('C', [['q2', ['d9'], [5]]]);
    const run = fuse([A, C], { method: 'arithmetic', norm: 'min-max', k: 10, tag: 't' });
    assert.deepEqual(run.qids, ['q1', 'q2']);
    assert.deepEqual(run.ranking('q2')?.docs, ['d9']);
    assert.equal(run.ranking('q2')?.scores[0], 0.5);
  });
});

describe('fusion: properties', () => {
  // Scores on a grid of 1/8: normalizing denormal-scale differences would collapse distinct scores into ties.
  const runArb = fc
    .uniqueArray(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 30 })
    .chain((docs) =>
      fc.tuple(fc.constant(docs.map((d) => `d${d}`)), fc.array(fc.integer({ min: -400, max: 400 }).map((x) => x / 8), { minLength: docs.length, maxLength: docs.length })),
    );

  it('fusing one run with an order-preserving normalization keeps its ranking', () => {
    fc.assert(
      fc.property(runArb, fc.constantFrom<Normalization>('none', 'min-max', 'l2', 'z-score', 'rank', 'sum'), ([docs, scores], n) => {
        const run = Run.fromRankings('x', [['q', docs, scores]]);
        const out = fuse([run], { method: 'combsum', norm: n, k: 1000, tag: 't' });
        const before = run.ranking('q')!;
        const after = out.ranking('q')!.docs;
        const orig = new Map(before.docs.map((d, i) => [d, before.scores[i]]));
        for (let i = 1; i < after.length; i++) assert.ok(orig.get(after[i - 1])! >= orig.get(after[i])!);
        assert.deepEqual(new Set(after), new Set(before.docs));
      }),
    );
  });

  it('rankDescending orders by score descending, then by the tie comparison descending, as a comparison sort does', () => {
    const scoreArb = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1, 0.5, -2, 1 / 61, 1 / 62 + 1 / 70));
    fc.assert(
      fc.property(fc.array(scoreArb, { minLength: 1, maxLength: 300 }), (scores) => {
        const score = Float64Array.from(scores);
        const tie = Int32Array.from(scores, (_, i) => (i * 7919) % 1009);
        const ids = Int32Array.from(scores, (_, i) => i);
        rankDescending(ids, score, (a, b) => tie[a] - tie[b]);
        const want = Array.from(scores, (_, i) => i).sort((a, b) => (score[b] - score[a] || tie[b] - tie[a]) || 0);
        assert.deepEqual(Array.from(ids), want);
      }),
      { numRuns: 300 },
    );
  });

  it('RRF depends on ranks only: any order-preserving change of scores leaves it unchanged', () => {
    fc.assert(
      fc.property(runArb, runArb, ([d1, s1], [d2, s2]) => {
        const a = Run.fromRankings('a', [['q', d1, s1]]);
        const b = Run.fromRankings('b', [['q', d2, s2]]);
        const b3 = Run.fromRankings('b', [['q', b.ranking('q')!.docs, b.ranking('q')!.scores.map((_, i) => 1000 - i)]]);
        const o = { method: 'rrf' as const, norm: 'none' as const, k: 1000, tag: 't' };
        assert.deepEqual(fuse([a, b], o).ranking('q'), fuse([a, b3], o).ranking('q'));
      }),
    );
  });

  it('every method and normalization yields finite scores ranked in trec_eval order', () => {
    fc.assert(
      fc.property(runArb, runArb, fc.constantFrom(...METHODS), fc.constantFrom(...NORMALIZATIONS), ([d1, s1], [d2, s2], method, n) => {
        const a = Run.fromRankings('a', [['q', d1, s1]]);
        const b = Run.fromRankings('b', [['q', d2, s2.map((s) => Math.abs(s))]]);
        const r = fuse([a, b], { method, norm: n, k: 1000, tag: 't' }).ranking('q')!;
        assert.equal(r.docs.length, new Set([...d1, ...d2]).size);
        for (let i = 0; i < r.scores.length; i++) {
          assert.ok(Number.isFinite(r.scores[i]));
          if (i > 0) assert.ok(r.scores[i - 1] > r.scores[i] || (r.scores[i - 1] === r.scores[i] && r.docs[i - 1] > r.docs[i]));
        }
      }),
    );
  });
});
