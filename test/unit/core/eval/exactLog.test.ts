import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactLog } from '../../../../src/core/eval/exactLog';

describe('exactLog', () => {
  it('gives the correctly rounded logarithm where Math.log is 1 ulp off (values printed by glibc log)', () => {
    assert.equal(exactLog(1.4), 0.33647223662121289);
    assert.equal(exactLog(1 / 1.4), -0.33647223662121289);
    assert.equal(exactLog(10), 2.3025850929940459);
    assert.equal(exactLog(0.1), -2.3025850929940455);
    assert.equal(exactLog(1 + 2 ** -52), 2.2204460492503128e-16);
    assert.equal(exactLog(1e-300), -690.77552789821368);
  });

  it('keeps the exact cancellation trec_eval relies on: log(1.4) + log(1 / 1.4) is 0', () => {
    assert.equal(exactLog(1.4) + exactLog(1 / 1.4), 0);
  });

  it('is exact at powers of two and 1, and follows Math.log outside (0, inf)', () => {
    assert.equal(exactLog(1), 0);
    assert.equal(exactLog(2), Math.LN2);
    assert.equal(exactLog(0.5), -Math.LN2);
    assert.equal(exactLog(0), -Infinity);
    assert.ok(Number.isNaN(exactLog(-1)));
  });
});
