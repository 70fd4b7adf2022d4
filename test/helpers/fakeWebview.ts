/** A webview as the host's channel uses it: `send` a message from the page, read what the host `posted`. */
export function fakeWebview() {
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
