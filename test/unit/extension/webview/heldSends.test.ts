// The views' sends after a change go in one turn: held while the change reaches every view, then all at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBVIEW_PROTOCOL_VERSION } from '../../../../src/protocol/webview';
import { HeldSends, refreshTogether } from '../../../../src/extension/webview/heldSends';
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

test('refreshTogether: three views whose models come at 0, 20 and 40 ms reach their pages in one turn; one that fails holds nothing, one that hangs holds the others maxMs', async (t) => {
  const held = new HeldSends(500);
  const pages = ['results', 'diff', 'holes'].map(() => fakeWebview());
  const channels = pages.map((p) => new ViewChannel<'holes'>(p.webview as never, {} as never, undefined, held));
  pages.forEach((p) => p.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' }));
  await new Promise((r) => setTimeout(r, 5));
  // Each page records when it got its model: one turn is one clock reading and nothing awaited between.
  const got: [number, number][] = [];
  let turn = 0;
  pages.forEach((p, i) => {
    const push = p.webview.postMessage;
    p.webview.postMessage = async (m: unknown) => (got.push([i, turn]), push(m));
  });
  const tick = setInterval(() => turn++, 1);
  t.after(() => clearInterval(tick));
  const after = (ms: number, i: number) => () => new Promise<void>((r) => setTimeout(() => (channels[i].send('model', { n: ms } as never), r()), ms));
  await refreshTogether(held, [after(0, 0), after(20, 1), after(40, 2), () => Promise.reject(new Error('engine gone'))]);
  assert.equal(got.length, 3);
  assert.equal(new Set(got.map(([, t]) => t)).size, 1, `one turn: ${JSON.stringify(got)}`);
  // A view that never answers: the others go when the held period ends.
  const started = Date.now();
  void refreshTogether(held, [after(1, 0), () => new Promise(() => undefined)]);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(got.length, 3, 'held while the other view is awaited');
  await new Promise((r) => setTimeout(r, 700));
  assert.equal(got.length, 4);
  assert.ok(Date.now() - started >= 500);
});
