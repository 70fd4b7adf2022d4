import * as vscode from 'vscode';
import {
  WEBVIEW_PROTOCOL_VERSION,
  isFromView,
  type EventMessage,
  type ParamsOf,
  type RequestMessage,
  type ResultOf,
  type ToView,
  type ViewEvents,
  type ViewName,
  type ViewRequests,
} from '../../protocol/webview';

export type RequestHandlers<V extends ViewName> = {
  [M in keyof ViewRequests[V] & string]: (params: ParamsOf<V, M>) => Promise<ResultOf<V, M>> | ResultOf<V, M>;
};

/**
 * The host's end of the protocol for one webview: answers each request once (errors as messages the view
 * shows), and sends events only once the page said it is ready (earlier ones keep the latest per kind). A
 * page that loads again (a reload of the webview) says ready again and gets `onReload`.
 */
export class ViewChannel<V extends ViewName> implements vscode.Disposable {
  private ready = false;
  private readonly queued = new Map<string, EventMessage<V>>();
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly handlers: RequestHandlers<V>,
    private readonly onReload?: () => void,
  ) {
    this.sub = webview.onDidReceiveMessage((m: unknown) => void this.receive(m));
  }

  send<K extends keyof ViewEvents[V] & string>(kind: K, payload: ViewEvents[V][K]): void {
    const m = { v: WEBVIEW_PROTOCOL_VERSION, type: 'event', kind, payload } as EventMessage<V>;
    if (!this.ready) {
      this.queued.set(kind, m);
      return;
    }
    void this.webview.postMessage(m);
  }

  dispose(): void {
    this.sub.dispose();
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isFromView(raw)) return;
    if (raw.type === 'ready') {
      if (this.ready) {
        this.onReload?.();
        return;
      }
      this.ready = true;
      for (const m of this.queued.values()) void this.webview.postMessage(m);
      this.queued.clear();
      return;
    }
    if (raw.type !== 'request') return;
    const m = raw as RequestMessage<V>;
    // Only the view's own methods: a name such as 'constructor' or 'toString' must not reach Object.prototype's.
    const handler = typeof m.method === 'string' && Object.hasOwn(this.handlers, m.method) ? (this.handlers[m.method as keyof RequestHandlers<V>] as (p: unknown) => unknown) : undefined;
    let reply: ToView<V>;
    try {
      if (!handler) throw new Error(`unknown request ${String(m.method)}`);
      reply = { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: m.id, ok: true, result: (await handler(m.params)) ?? null };
    } catch (e) {
      reply = { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: m.id, ok: false, error: (e as Error).message };
    }
    void this.webview.postMessage(reply);
  }
}
