import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jaccardAt, rbo, rboTies, runSimilarity, SIMILARITIES, tauAp, tieGroups } from '../../../../../src/core/eval/similarity';
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

/** "a (b c) d": b and c tied. */
const groups = (text: string): string[][] => [...text.matchAll(/\(([^)]*)\)|(\S+)/g)].map((m) => (m[1] ?? m[2]).split(' '));

test('RBO with ties as Webber et al. treat them: the RBO^w extrapolated values of Corsi and Urbano (SIGIR 2024)', () => {
  // Rows of rbo/test.csv in github.com/julian-urbano/sigir2024-rbo (column w.ext), computed by their reference code.
  const rows: [string, string, number, number][] = [
    ['(i3 i6) (i2 i7) i10', '(i3 i6 i7 i10) (i1 i2)', 0.965413635276732, 0.946064537517568],
    ['i3 (i1 i5 i7) i9', '(i1 i9) i7 i3 i4', 0.930093081332594, 0.697096710334179],
    ['i2 i5 i3 (i1 i4)', 'i5 i8 i2 (i3 i9)', 0.968922741966306, 0.580287544332462],
    ['(i5 i9 i13 i15 i16 i19 i20) (i3 i8)', 'i6 (i4 i18) i2 i7 i8 i17 i14 (i11 i12) i1', 0.958074765324023, 0.0816485573277354],
    ['i13 (i1 i4 i5 i6)', 'i3 i14 i11 (i10 i15) i12 (i6 i9) i4 i2', 0.92238320668128, 0.117578490431637],
    ['i21 i20 (i1 i16 i19) (i5 i10) i4', '(i12 i17) (i2 i3 i8 i11) (i15 i18) (i6 i13) (i7 i14) i9', 0.930074017489188, 0],
  ];
  for (const [x, y, p, want] of rows) near(rboTies(groups(x), groups(y), p), want, 1e-9);
  assert.deepEqual(tieGroups(['a', 'b', 'c', 'd'], [3, 2, 2, 1]), [['a'], ['b', 'c'], ['d']]);
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
  // Fewer than two shared documents: no order to agree on, undefined (it was 1, which inflated means).
  assert.ok(Number.isNaN(tauAp(['a', 'x'], ['a', 'y'])));
  assert.ok(Number.isNaN(tauAp(['x'], ['y'])));
});

test('run similarity leaves undefined queries out of the mean and counts them; `queries` keeps to a set (the qrels\' queries)', () => {
  const a = Run.fromRankings('a', [['q1', ['x', 'y', 'z'], [3, 2, 1]], ['q2', ['x', 'y'], [2, 1]], ['q3', ['x', 'y'], [2, 1]]]);
  const b = Run.fromRankings('b', [['q1', ['z', 'y', 'x'], [3, 2, 1]], ['q2', ['v', 'w'], [2, 1]], ['q3', ['x', 'y'], [2, 1]]]);
  const s = runSimilarity(a, b, 'tau_ap', 10);
  assert.deepEqual([...s.perQuery.keys()], ['q1', 'q3']);
  assert.equal(s.undefinedQueries, 1);
  near(s.mean, (-1 + 1) / 2);
  const only = runSimilarity(a, b, 'tau_ap', 10, undefined, undefined, new Set(['q3']));
  assert.deepEqual([...only.perQuery.keys()], ['q3']);
  assert.equal(only.undefinedQueries, 0);
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

test('run similarity reads only the top depth of each ranking, with the same values as the whole rankings give', () => {
  const docs = (seed: number) => Array.from({ length: 30 }, (_, i) => `d${(i * seed) % 31}`);
  // Ties across the depth boundary (ranks 5 and 6 share a score) must not change the top-5 groups.
  const scores = Array.from({ length: 30 }, (_, i) => 30 - i + (i === 5 ? 1 : 0));
  const a = Run.fromRankings('a', [['q1', docs(3), scores]]);
  const b = Run.fromRankings('b', [['q1', docs(7), scores]]);
  assert.equal(a.ranking('q1', 5)!.docs.length, 5);
  assert.deepEqual(a.ranking('q1', 5)!.docs, a.ranking('q1')!.docs.slice(0, 5));
  for (const name of Object.keys(SIMILARITIES)) {
    const want = SIMILARITIES[name].of(a.ranking('q1')!, b.ranking('q1')!, 5);
    // tau-AP of these top 5s is undefined (fewer than two shared documents): no mean either.
    if (Number.isNaN(want)) assert.ok(Number.isNaN(runSimilarity(a, b, name, 5).mean), name);
    else near(runSimilarity(a, b, name, 5).mean, want);
  }
});
