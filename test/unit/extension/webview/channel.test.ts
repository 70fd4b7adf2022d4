// The host's end of a webview's typed channel answers only the view's own requests (issue 28 item 18).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBVIEW_PROTOCOL_VERSION } from '../../../../src/protocol/webview';
import { ViewChannel } from '../../../../src/extension/webview/channel';
import { fakeWebview } from '../../../helpers/fakeWebview';

test("a request for an Object.prototype method ('constructor', 'toString', '__proto__', ...) is an unknown request, not answered by it", async () => {
  const w = fakeWebview();
  let moves = 0;
  new ViewChannel<'annotate'>(w.webview as never, {
    judge: async () => null,
    show: async () => (moves++, null),
    undo: async () => ({ index: 0 }),
    setOrder: async () => null,
    explain: async () => {
      throw new Error('not asked');
    },
  });
  const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', '__defineGetter__', 'isPrototypeOf', 'toLocaleString'];
  names.forEach((method, id) => w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id, method, params: {} }));
  w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id: 99, method: 'show', params: { queue: 1, index: 1 } });
  await new Promise((r) => setTimeout(r, 20));
  for (const [id, method] of names.entries()) {
    assert.deepEqual(w.posted.find((m) => (m as { id: number }).id === id), { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id, ok: false, error: `unknown request ${method}` }, method);
  }
  assert.deepEqual(w.posted.find((m) => (m as { id: number }).id === 99), { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: 99, ok: true, result: null });
  assert.equal(moves, 1);
});

test("a kind's first state goes whole, each next one as a patch of it, the same one not at all; a page that says ready again gets them whole", async () => {
  const w = fakeWebview();
  let reloads = 0;
  const channel = new ViewChannel<'diff'>(w.webview as never, {} as never, () => reloads++);
  const model = (delta: number) => ({ queries: Array.from({ length: 300 }, (_, i) => ({ id: `q${i}`, delta: i === 7 ? delta : i / 300 })) });
  channel.send('model', model(0) as never);
  assert.equal(w.posted.length, 0, 'nothing before the page is ready');
  w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  await new Promise((r) => setTimeout(r, 10));
  channel.send('model', model(0.5) as never);
  channel.send('model', model(0.5) as never);
  channel.send('model', model(0.25) as never);
  const [first, second, third] = w.posted as { type: string; seq: number; base?: number; patch?: unknown; payload?: unknown }[];
  assert.equal(first.type, 'event');
  assert.deepEqual(first.payload, model(0));
  assert.equal(second.type, 'patch');
  assert.equal(second.base, first.seq);
  assert.ok(JSON.stringify(second).length < 200, JSON.stringify(second));
  // The same state again is not sent: the next change is a patch of the state the page has.
  assert.equal(w.posted.length, 3, 'unchanged: nothing sent');
  assert.deepEqual({ type: third.type, base: third.base }, { type: 'patch', base: second.seq });
  // A reload (or a patch the page could not apply): the view is refreshed, and its next state goes whole.
  w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(reloads, 1);
  channel.send('model', model(0.7) as never);
  assert.equal((w.posted.at(-1) as { type: string }).type, 'event');
});

test('a state not delivered (the view was gone) is not patched: the next one goes whole; without onReload, ready again re-sends the last whole', async () => {
  const w = fakeWebview();
  let deliver = true;
  const webview = { ...w.webview, postMessage: async (m: unknown) => (w.posted.push(m), deliver) };
  const channel = new ViewChannel<'holes'>(webview as never, {} as never);
  w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  deliver = false;
  channel.send('model', { n: 1 } as never);
  await new Promise((r) => setTimeout(r, 10));
  deliver = true;
  channel.send('model', { n: 2 } as never);
  assert.deepEqual((w.posted.at(-1) as { type: string; payload: unknown }).payload, { n: 2 });
  channel.send('model', { n: 3 } as never);
  assert.equal((w.posted.at(-1) as { type: string }).type, 'patch');
  w.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(w.posted.at(-1), { v: WEBVIEW_PROTOCOL_VERSION, type: 'event', kind: 'model', seq: (w.posted.at(-1) as { seq: number }).seq, payload: { n: 3 } });
});
