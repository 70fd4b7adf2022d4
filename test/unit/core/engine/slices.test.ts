// The engine's background work runs in slices between requests: never inside the request that starts it (the
// first slice used to run there, before that request's answer), and never while requests keep coming.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInSlices } from '../../../../src/core/engine/slices';

function* counted(log: string[], n: number): Iterator<void> {
  for (let i = 0; i < n; i++) {
    log.push(`step ${i}`);
    yield;
  }
}

test('no step runs before the call that starts the work returns', async () => {
  const log: string[] = [];
  const done = runInSlices(counted(log, 3), 1000, () => 0);
  log.push('answered');
  await done;
  assert.deepEqual(log, ['answered', 'step 0', 'step 1', 'step 2']);
});

test('steps wait while requests come, and the event loop turns between slices', async () => {
  const log: string[] = [];
  let quiet = 3;
  // Still busy for the first three looks (1 ms each), then quiet.
  const done = runInSlices(counted(log, 3), 0, () => (quiet-- > 0 ? 1 : 0));
  setImmediate(() => log.push('a request'));
  const ms = await done;
  assert.equal(log[0], 'a request', 'the request came while the steps held back');
  assert.deepEqual(log.slice(1), ['step 0', 'step 1', 'step 2']);
  assert.ok(quiet < 0, 'looked again after each wait');
  assert.ok(ms >= 0);
});

test('with a zero-length slice, requests arriving meanwhile are served between steps', async () => {
  const log: string[] = [];
  const done = runInSlices(counted(log, 3), 0, () => 0);
  const request = () => new Promise<void>((r) => setImmediate(() => (log.push('request'), r())));
  await request();
  await request();
  await done;
  assert.ok(log.indexOf('request') < log.indexOf('step 2'), log.join(', '));
  assert.equal(log.filter((x) => x.startsWith('step')).length, 3);
});
