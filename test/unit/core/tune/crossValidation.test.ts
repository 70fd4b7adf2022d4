import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bestSetting, crossValidate, foldsOf } from '../../../../src/core/tune/crossValidation';
import { uniform } from '../../../../src/core/random';

describe('cross-validation over queries', () => {
  it('deals the queries into k balanced folds, the same for the same seed, others for another', () => {
    const folds = foldsOf(103, 5, 7);
    assert.deepEqual(folds.flat().sort((a, b) => a - b), Array.from({ length: 103 }, (_, i) => i));
    assert.deepEqual(folds.map((f) => f.length), [21, 21, 21, 20, 20]);
    assert.deepEqual(foldsOf(103, 5, 7), folds);
    assert.notDeepEqual(foldsOf(103, 5, 8), folds);
  });

  it('a setting better on every query is chosen in every fold: held-out gain exact, interval tight, no overfitting', () => {
    const next = uniform(3);
    const base = Float64Array.from({ length: 60 }, () => next());
    const better = base.map((x) => x + 0.1);
    const worse = base.map((x) => x - 0.2);
    const r = crossValidate([base, worse, better], 0, { folds: 5, seed: 1, resamples: 2000 });
    assert.ok(r.folds.every((f) => f.chosen === 2));
    assert.ok(Math.abs(r.heldOutGain - 0.1) < 1e-12);
    assert.ok(Math.abs(r.ci.lo - 0.1) < 1e-12 && Math.abs(r.ci.hi - 0.1) < 1e-12);
    assert.equal(r.p, 0);
    assert.equal(r.overfit, false);
    assert.equal(r.chosenOnAll, 2);
    assert.ok(Math.abs(r.allScore - r.allDefault - 0.1) < 1e-12);
  });

  it('pure noise: tuning "finds" a gain on the tuning folds that the held-out folds do not confirm, and says so', () => {
    const next = uniform(11);
    const noise = () => Float64Array.from({ length: 100 }, () => next());
    const matrix = Array.from({ length: 60 }, noise);
    const r = crossValidate(matrix, 0, { folds: 5, seed: 2, resamples: 2000 });
    assert.ok(r.tuningGain > 0.03, `tuning-fold gain ${r.tuningGain}`);
    assert.ok(r.tuningGain > r.ci.hi, 'above the held-out interval');
    assert.equal(r.overfit, true);
    assert.ok(r.ci.lo < 0 && r.ci.hi > r.heldOutGain, 'the held-out interval holds 0 or less');
    // The per-fold means recompute from the matrix.
    for (const f of r.folds) {
      const mean = f.queries.reduce((s, q) => s + matrix[f.chosen][q], 0) / f.queries.length;
      assert.ok(Math.abs(mean - f.heldOut) < 1e-12);
    }
  });

  it('ties go to the default, then to the earlier setting; bad fold counts are refused', () => {
    const a = Float64Array.from([1, 0, 1]);
    const b = Float64Array.from([0, 1, 1]);
    assert.equal(bestSetting([a, b, a], [0, 1, 2], 1), 1);
    assert.equal(bestSetting([b, a, a], [0], 0), 1);
    assert.throws(() => crossValidate([a], 0, { folds: 1, seed: 1 }), /at least 2 folds/);
    assert.throws(() => crossValidate([a], 0, { folds: 4, seed: 1 }), /3 queries cannot make 4 folds/);
  });
});
