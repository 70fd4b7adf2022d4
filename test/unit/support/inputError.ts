import assert from 'node:assert/strict';
import { InputError } from '../../../src/core/formats/errors';

/** Runs `fn`, which must throw an InputError, and returns it for the test's own checks. */
export function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}
