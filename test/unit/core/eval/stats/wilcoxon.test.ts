import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wilcoxon } from '../../../../../src/core/eval/stats/wilcoxon';

test('Wilcoxon exact: all 2^n sign patterns by hand for n = 4', () => {
  // Differences 1, 2, 3, -4: W+ = 6 of 10. P(W+ <= 6) = 12/16 (sums 7..10 are 4 patterns), P(W+ >= 6) = 7/16.
  const r = wilcoxon([1, 2, 3, 0], [0, 0, 0, 4]);
  assert.equal(r.exact, true);
  assert.equal(r.wPlus, 6);
  assert.equal(r.statistic, 4);
  assert.equal(r.p, 2 * (7 / 16));
});

test('Wilcoxon: zero differences are dropped; identical runs give p = 1; float noise is a tie', () => {
  assert.equal(wilcoxon([0.3, 0.5], [0.3, 0.5]).p, 1);
  const r = wilcoxon([0.5, 0.7, 0.2], [0.3, 0.5, 0.2]);
  assert.equal(r.n, 2, 'zero dropped');
  assert.equal(r.exact, false, 'a dropped zero and a tie (0.2 and 0.7-0.5): approximation');
  assert.equal(wilcoxon([0.3 - 0.1, 0.9], [0.2, 0.4]).n, 1, 'a difference of 3e-17 is a zero');
  assert.throws(() => wilcoxon([1], [1, 2]), /1 values against 2/);
});
