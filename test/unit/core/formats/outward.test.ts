import assert from 'node:assert/strict';
import { test } from 'node:test';
import { outwardEnds } from '../../../../src/core/formats/outward';

test('interval ends round outward, so the printed interval holds the computed one', () => {
  assert.deepEqual(outwardEnds(0.12341, 0.56781, 4), [0.1234, 0.5679]);
  assert.deepEqual(outwardEnds(-0.07881, -4.6e-5, 4), [-0.0789, 0], 'the upper end is 0, not -0');
  assert.ok(Object.is(outwardEnds(-4.6e-5, 0.5, 4)[0], -0.0001));
  assert.deepEqual(outwardEnds(0.6521, 0.6899, 3), [0.652, 0.69]);
});

test('float noise below a billionth of the last digit does not widen an end by a whole step', () => {
  // 0.61 is stored as 0.60999999999999998667: still 0.61 at two places, on either end.
  assert.deepEqual(outwardEnds(0.61, 0.61, 2), [0.61, 0.61]);
  assert.deepEqual(outwardEnds(-0.5 - 1e-15, -0.5 + 1e-15, 4), [-0.5, -0.5]);
  assert.ok(Object.is(outwardEnds(-1e-15, 1e-15, 3)[0], 0) && Object.is(outwardEnds(-1e-15, 1e-15, 3)[1], 0), 'no signed zero');
});
