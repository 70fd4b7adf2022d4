// The host's end of a webview's typed channel answers only the view's own requests (issue 28 item 18).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBVIEW_PROTOCOL_VERSION } from '../../../../src/protocol/webview';
import { ViewChannel } from '../../../../src/extension/webview/channel';

/** A webview as the channel uses it: messages in, messages out. */
function fakeWebview() {
  let receive: (m: unknown) => void = () => undefined;
  const posted: unknown[] = [];
  return {
    posted,
    send: (m: unknown) => receive(m),
    webview: {
      onDidReceiveMessage: (cb: (m: unknown) => void) => ((receive = cb), { dispose: () => undefined }),
      postMessage: async (m: unknown) => (posted.push(m), true),
    },
  };
}

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
