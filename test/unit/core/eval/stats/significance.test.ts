import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { holmAdjust, pairedTTest, randomizationSteps, randomizationTest, winTieLoss } from '../../../../../src/core/eval/stats';

const close = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected}`);

test('paired t-test: scipy.stats.ttest_rel values and the closed-form t CDF for 4 degrees of freedom', () => {
  // scipy.stats.ttest_rel([2,2,4,5,7], [1,2,3,4,5]) -> statistic 3.1622776601683795, pvalue 0.03410942316740963
  const r = pairedTTest([2, 2, 4, 5, 7], [1, 2, 3, 4, 5]);
  close(r.t, 3.1622776601683795, 1e-12, 't');
  assert.equal(r.df, 4);
  close(r.p, 0.03410942316740963, 1e-10, 'p');
  // By hand: Student's t with 4 degrees of freedom has F(t) = 1/2 + x (3 - x^2) / 4, x = t / sqrt(4 + t^2).
  const x = r.t / Math.sqrt(4 + r.t * r.t);
  close(r.p, 2 * (1 - (0.5 + (x * (3 - x * x)) / 4)), 1e-12, 'p (closed form)');
  assert.equal(r.meanDiff, 1);
});

test('paired t-test: 12 queries (scipy: t 2.2577778844717558, p 0.04526819814629186)', () => {
  const a = [0.5, 0.7, 0.1, 0.9, 0.3, 0.65, 0.2, 0.8, 0.45, 0.55, 0.35, 0.6];
  const b = [0.45, 0.72, 0.0, 0.8, 0.35, 0.5, 0.2, 0.7, 0.5, 0.4, 0.3, 0.61];
  const r = pairedTTest(a, b);
  close(r.t, 2.2577778844717558, 1e-10, 't');
  close(r.p, 0.04526819814629186, 1e-9, 'p');
  // Swapping the runs flips t, not p.
  const s = pairedTTest(b, a);
  close(s.t, -r.t, 1e-12, 't swapped');
  close(s.p, r.p, 1e-12, 'p swapped');
});

test('paired t-test: zero variance, one query, and unpaired input', () => {
  assert.deepEqual(pairedTTest([0.5, 0.2], [0.5, 0.2]), { meanDiff: 0, t: 0, df: 1, p: 1 });
  const shifted = pairedTTest([0.6, 0.3, 0.9], [0.5, 0.2, 0.8]);
  assert.equal(shifted.p, 0);
  assert.equal(shifted.t, Infinity);
  assert.equal(pairedTTest([1], [0]).p, 1);
  assert.throws(() => pairedTTest([1, 2], [1]), /2 values against 1/);
  assert.throws(() => pairedTTest([], []), /no queries/);
});

test('randomization test: close to the exact permutation p-value (all 4,096 sign flips: 224/4096)', () => {
  const a = [0.5, 0.7, 0.1, 0.9, 0.3, 0.65, 0.2, 0.8, 0.45, 0.55, 0.35, 0.6];
  const b = [0.45, 0.72, 0.0, 0.8, 0.35, 0.5, 0.2, 0.7, 0.5, 0.4, 0.3, 0.61];
  const exact = 224 / 4096; // enumerated with numpy over itertools.product([1, -1], repeat=12)
  const p = randomizationTest(a, b, { trials: 20_000, seed: 7 });
  // Binomial standard error at 20,000 trials is ~0.0016: allow four of them.
  close(p, exact, 0.0065, 'p');
  assert.equal(randomizationTest(a, b, { trials: 20_000, seed: 7 }), p, 'same seed, same p');
});

test('randomization test in steps: a pause every 1,000 trials, the same p-value', () => {
  const rand = (seed: number) => Array.from({ length: 500 }, (_, i) => Math.abs(Math.sin(seed * 1000 + i)));
  const [a, b] = [rand(1), rand(2)];
  const steps = randomizationSteps(a, b, { trials: 10_000, seed: 3 });
  let pauses = 0;
  let r = steps.next();
  for (; !r.done; r = steps.next()) pauses++;
  assert.equal(pauses, 9);
  assert.equal(r.value, randomizationTest(a, b, { trials: 10_000, seed: 3 }));
  assert.ok(r.value > 0 && r.value < 1);
});

test('randomization test: identical runs give p = 1; a consistent large gain gives the floor 1/(trials+1)', () => {
  const a = Array.from({ length: 40 }, (_, i) => (i % 7) / 7);
  assert.equal(randomizationTest(a, a, { trials: 999 }), 1);
  const better = a.map((v) => v + 0.5);
  assert.equal(randomizationTest(better, a, { trials: 999 }), 1 / 1000);
});

test('Holm: step-down adjusted p-values in input order, monotone, capped at 1', () => {
  // sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> 0.06 (monotone)
  assert.deepEqual(holmAdjust([0.01, 0.04, 0.03, 0.005]).map((v) => +v.toFixed(12)), [0.03, 0.06, 0.06, 0.02]);
  assert.deepEqual(holmAdjust([0.9, 0.5]), [1, 1]);
  assert.deepEqual(holmAdjust([]), []);
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }), (p) => {
      const adj = holmAdjust(p);
      p.forEach((raw, i) => {
        assert.ok(adj[i] >= raw - 1e-15 && adj[i] <= 1);
        assert.ok(adj[i] <= Math.min(1, raw * p.length) + 1e-15, 'never above Bonferroni');
      });
    }),
  );
});

test('win/tie/loss with float-noise ties', () => {
  assert.deepEqual(winTieLoss([0.3, 0.1 + 0.2, 0.5, 0], [0.1, 0.3, 0.6, 0]), { wins: 1, ties: 2, losses: 1 });
});
