// The Datasets tree follows a split's events (a judgement, then its figures computed) once they stop, so its
// rows are not redrawn while the open views draw the judgement: a burst is one refresh, and a stream of events
// still gets one at the longest wait.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { settled } from '../../../../src/extension/engine/settled';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a burst of events is one run, after the quiet time', async () => {
  let runs = 0;
  const s = settled(() => runs++, 250, 10_000);
  for (let i = 0; i < 5; i++) {
    s.schedule();
    await sleep(10);
  }
  assert.equal(runs, 0, 'not while the events come');
  await sleep(500);
  assert.equal(runs, 1);
  s.schedule();
  await sleep(500);
  assert.equal(runs, 2, 'a later event, another run');
});

test('a stream of events still runs at the longest wait', async () => {
  let runs = 0;
  const s = settled(() => runs++, 250, 300);
  const until = Date.now() + 1000;
  while (Date.now() < until) {
    s.schedule();
    await sleep(10);
  }
  s.dispose();
  assert.ok(runs >= 2, `ran ${runs} times in 1 s of events every 10 ms`);
});

test('dispose cancels the pending run', async () => {
  let runs = 0;
  const s = settled(() => runs++, 20, 100);
  s.schedule();
  s.dispose();
  await sleep(60);
  assert.equal(runs, 0);
});
