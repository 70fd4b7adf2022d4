import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jaccardAt, rbo, runSimilarity, tauAp } from '../../../../../src/core/eval/similarity';
import { Run } from '../../../../../src/core/formats/run';
import { mulberry32 } from '../../../../../src/core/random';

const near = (a: number, b: number, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

/** Eq. 32 of Webber, Moffat and Zobel (2010) written out with explicit overlaps, as the paper states it. */
function rboEq32(a: string[], b: string[], p: number): number {
  const [S, L] = a.length <= b.length ? [a, b] : [b, a];
  const s = S.length;
  const l = L.length;
  const X = (d: number) => new Set(S.slice(0, Math.min(d, s)).filter((x) => L.slice(0, d).includes(x))).size;
  let sum = 0;
  for (let d = 1; d <= l; d++) sum += (X(d) / d) * p ** d;
  for (let d = s + 1; d <= l; d++) sum += ((X(s) * (d - s)) / (s * d)) * p ** d;
  return ((1 - p) / p) * sum + ((X(l) - X(s)) / l + X(s) / s) * p ** l;
}

test('RBO: by hand, a published value, and the paper\'s limiting cases', () => {
  // [a b c] vs [a c b], p = 0.9: X = 1, 1, 3: (0.1 / 0.9) (0.9 + 0.81 / 2 + 0.729) + 0.729 = 0.955.
  near(rbo(['a', 'b', 'c'], ['a', 'c', 'b'], 0.9), 0.955);
  // The example of the rankmeasures / ragrawal RBO implementations: 0.828.
  near(rbo(['1', '2', '3', '4', '5'], ['2', '3', '4', '1', '5'], 0.9), 0.828);
  near(rbo(['a', 'b', 'c'], ['a', 'b', 'c']), 1);
  near(rbo(['a', 'b'], ['c', 'd', 'e']), 0);
  // Extrapolation assumes the agreement seen continues: a prefix of the other list scores 1 (uneven lengths).
  near(rbo(['a', 'b'], ['a', 'b', 'c', 'd']), 1);
  near(rbo(['b', 'a'], ['a', 'b', 'c', 'd']), rbo(['a', 'b', 'c', 'd'], ['b', 'a']));
  assert.equal(rbo([], []), 1);
  assert.equal(rbo([], ['a']), 0);
  assert.throws(() => rbo(['a'], ['a'], 1), /persistence/);
});

test('RBO equals eq. 32 written out, on random uneven lists', () => {
  const next = mulberry32(9);
  for (let t = 0; t < 200; t++) {
    const pool = Array.from({ length: 12 }, (_, i) => `d${i}`).sort(() => (next() & 1) - 0.5);
    const a = pool.slice(0, 1 + (next() % 10));
    const b = [...pool].sort(() => (next() & 1) - 0.5).slice(0, 1 + (next() % 12));
    const p = [0.5, 0.8, 0.9, 0.98][t % 4];
    near(rbo(a, b, p), rboEq32(a, b, p));
  }
});

test('Jaccard of the top k', () => {
  near(jaccardAt(['a', 'b', 'c', 'x'], ['b', 'c', 'd', 'a'], 3), 2 / 4);
  assert.equal(jaccardAt([], [], 10), 1);
});

test('tau-AP: identical 1, reversed -1, a swap at the top costs more than one at the bottom (by hand)', () => {
  near(tauAp(['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']), 1);
  near(tauAp(['d', 'c', 'b', 'a'], ['a', 'b', 'c', 'd']), -1);
  // [b a c] against [a b c]: C(2) = 0, C(3) = 2: 2/2 (0/1 + 2/2) - 1 = 0. [a c b]: C(2) = 1, C(3) = 1: 1 + 1/2 - 1 = 0.5.
  near(tauAp(['b', 'a', 'c'], ['a', 'b', 'c'], false), 0);
  near(tauAp(['a', 'c', 'b'], ['a', 'b', 'c'], false), 0.5);
  // Only shared documents count.
  near(tauAp(['a', 'x', 'b'], ['a', 'b', 'y']), 1);
});

test('run similarity: per query over queries both runs answer, and the mean', () => {
  const a = Run.fromRankings('a', [['q1', ['x', 'y', 'z'], [3, 2, 1]], ['q2', ['x'], [1]]]);
  const b = Run.fromRankings('b', [['q1', ['x', 'y', 'z'], [3, 2, 1]], ['q3', ['x'], [1]]]);
  const s = runSimilarity(a, b, 'rbo', 10);
  assert.deepEqual([...s.perQuery.keys()], ['q1']);
  near(s.mean, 1);
  near(runSimilarity(a, b, 'jaccard', 2).mean, 1);
  assert.throws(() => runSimilarity(a, b, 'nope'), /unknown similarity/);
});
