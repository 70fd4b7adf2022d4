// The views' sends after a change go in one turn: held while the change reaches every view, then all at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBVIEW_PROTOCOL_VERSION } from '../../../../src/protocol/webview';
import { HeldSends } from '../../../../src/extension/webview/heldSends';
import { ViewChannel } from '../../../../src/extension/webview/channel';
import { fakeWebview } from '../../../helpers/fakeWebview';

test('held sends wait for the last release and then go in the order asked, in one turn; a release counts once', () => {
  const held = new HeldSends(10_000);
  const sent: string[] = [];
  const first = held.hold();
  const second = held.hold();
  held.send(() => sent.push('results'));
  held.send(() => sent.push('diff'));
  first();
  first();
  assert.equal(sent.length, 0, 'one hold is still on: a second release of the first does not count');
  held.send(() => sent.push('holes'));
  second();
  assert.deepEqual(sent, ['results', 'diff', 'holes']);
  held.send(() => sent.push('sidebar'));
  assert.deepEqual(sent, ['results', 'diff', 'holes', 'sidebar'], 'no hold: at once');
});

test('holds that keep overlapping (a key every 100 ms, an engine answering slowly) hold no send past maxMs from the first', async () => {
  const held = new HeldSends(60);
  const sent: string[] = [];
  let release = held.hold();
  held.send(() => sent.push('first'));
  // Each change holds before the one before is released: the held period never ends on its own.
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 25));
    const next = held.hold();
    release();
    release = next;
  }
  assert.deepEqual(sent, ['first'], 'sent at 60 ms, though a hold was on from 0 to 100 ms');
  held.send(() => sent.push('late'));
  assert.deepEqual(sent, ['first', 'late'], 'past maxMs, at once');
  release();
  // Once every hold is released, the next change is held again.
  const again = held.hold();
  held.send(() => sent.push('next'));
  assert.deepEqual(sent, ['first', 'late']);
  again();
  assert.deepEqual(sent, ['first', 'late', 'next']);
});

test("a channel's events wait while held, its answers to the page do not; a view disposed meanwhile loses its state, not the others'", async () => {
  const held = new HeldSends(10_000);
  const page = fakeWebview();
  const channel = new ViewChannel<'results'>(page.webview as never, { openHoles: () => null } as never, undefined, held);
  const gone = fakeWebview();
  let alive = false;
  const postMessage = (m: unknown) => {
    if (!alive) throw new Error('Webview is disposed');
    gone.posted.push(m);
    return Promise.resolve(true);
  };
  const disposed = new ViewChannel<'diff'>({ ...gone.webview, postMessage } as never, {} as never, undefined, held);
  page.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  gone.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  await new Promise((r) => setTimeout(r, 5));
  const release = held.hold();
  disposed.send('model', { n: 1 } as never);
  channel.send('model', { n: 1 } as never);
  page.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id: 1, method: 'openHoles', params: {} });
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(page.posted.map((m) => (m as { type: string }).type), ['response'], 'the answer went, the model waits');
  release();
  assert.deepEqual(page.posted.map((m) => (m as { type: string }).type), ['response', 'event'], 'sent, though a view before it threw');
  // The state the disposed view never got is not patched later: the next goes whole.
  alive = true;
  disposed.send('model', { n: 2 } as never);
  assert.deepEqual(gone.posted.map((m) => (m as { type: string }).type), ['event']);
});
