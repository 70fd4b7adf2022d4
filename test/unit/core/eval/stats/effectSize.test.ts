import assert from 'node:assert/strict';
import { test } from 'node:test';
import { effectSize } from '../../../../../src/core/eval/stats/effectSize';

test('effect size: mean difference over the sample sd of differences', () => {
  // differences 1, 0, 1, 1, 2: mean 1, sd sqrt(0.5)
  assert.ok(Math.abs(effectSize([2, 2, 4, 5, 7], [1, 2, 3, 4, 5]) - 1 / Math.sqrt(0.5)) < 1e-12);
  assert.equal(effectSize([0.5, 0.2], [0.5, 0.2]), 0);
  assert.equal(effectSize([0.6, 0.3], [0.5, 0.2]), Infinity);
  assert.ok(Number.isNaN(effectSize([1], [0])));
});
