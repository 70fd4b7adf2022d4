import * as vscode from 'vscode';
import {
  WEBVIEW_PROTOCOL_VERSION,
  isFromView,
  type ParamsOf,
  type RequestMessage,
  type ResultOf,
  type ToView,
  type ViewEvents,
  type ViewName,
  type ViewRequests,
} from '../../protocol/webview';
import type { HeldSends } from './heldSends';
import { SentStates } from './states';

export type RequestHandlers<V extends ViewName> = {
  [M in keyof ViewRequests[V] & string]: (params: ParamsOf<V, M>) => Promise<ResultOf<V, M>> | ResultOf<V, M>;
};

/**
 * The host's end of the protocol for one webview: answers each request once (errors as messages the view
 * shows), and sends events only once the page said it is ready (earlier ones keep the latest per kind). After
 * the first state of a kind, only what changed is sent (a patch: a judgement changes a few figures of a model
 * of 30-55 kB). A page that loads again (a reload of the webview), or lacks the state a patch changes, says
 * ready again: the next states go whole, and it gets `onReload` (without one, the last states are sent again).
 */
export class ViewChannel<V extends ViewName> implements vscode.Disposable {
  private ready = false;
  private readonly queued = new Map<string, unknown>();
  private readonly sent = new SentStates<V>();
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly handlers: RequestHandlers<V>,
    private readonly onReload?: () => void,
    /** Where the events wait while a change reaches every view (answers to the page's requests never wait). */
    private readonly held?: HeldSends,
  ) {
    this.sub = webview.onDidReceiveMessage((m: unknown) => void this.receive(m));
  }

  send<K extends keyof ViewEvents[V] & string>(kind: K, payload: ViewEvents[V][K]): void {
    if (!this.ready) {
      this.queued.set(kind, payload);
      return;
    }
    this.post(kind, payload);
  }

  private post(kind: string, payload: unknown): void {
    const m = this.sent.message(kind, payload);
    if (!m) return;
    // Not delivered (the view was gone meanwhile, or disposed while the send was held): the next state of the
    // kind goes whole.
    const post = () => {
      const lost = () => this.sent.lost(kind, m.seq);
      try {
        void Promise.resolve(this.webview.postMessage(m)).then((delivered) => delivered || lost(), lost);
      } catch {
        lost();
      }
    };
    if (this.held) this.held.send(post);
    else post();
  }

  dispose(): void {
    this.sub.dispose();
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isFromView(raw)) return;
    if (raw.type === 'ready') {
      if (this.ready) {
        const last = this.sent.reset();
        if (this.onReload) this.onReload();
        else for (const [kind, payload] of last) this.post(kind, payload);
        return;
      }
      this.ready = true;
      for (const [kind, payload] of this.queued) this.post(kind, payload);
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
