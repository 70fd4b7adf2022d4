import {
  WEBVIEW_PROTOCOL_VERSION,
  type EventMessage,
  type FromView,
  type ParamsOf,
  type ResultOf,
  type ToView,
  type ViewEvents,
  type ViewName,
  type ViewRequests,
} from '../../src/protocol/webview.js';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export type EventHandlers<V extends ViewName> = { [K in keyof ViewEvents[V]]: (payload: ViewEvents[V][K]) => void };

/** The webview's end of the protocol (src/protocol/webview.ts): typed requests with ids, typed events. */
export class Host<V extends ViewName> {
  private readonly api = acquireVsCodeApi();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor(handlers: EventHandlers<V>) {
    window.addEventListener('message', (e: MessageEvent) => {
      const m = e.data as ToView<V>;
      if (!m || typeof m !== 'object' || m.v !== WEBVIEW_PROTOCOL_VERSION) return;
      if (m.type === 'response') {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(new Error(m.error));
      } else if (m.type === 'event') {
        const ev = m as EventMessage<V>;
        (handlers[ev.kind as keyof ViewEvents[V]] as (p: unknown) => void)(ev.payload);
        // Which judgements the view now shows (the qrels' version), for tests and the judging bench to wait on.
        const version = (ev.payload as { qrels?: { version?: unknown } } | null)?.qrels?.version;
        if (typeof version === 'number') document.body.dataset.qrelsVersion = String(version);
      }
    });
    this.post({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  }

  request<M extends keyof ViewRequests[V] & string>(method: M, params: ParamsOf<V, M>): Promise<ResultOf<V, M>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id, method, params } as FromView<V>);
    });
  }

  /** View state VS Code keeps while the panel is hidden (e.g. the selected query). */
  get state(): Record<string, unknown> {
    return (this.api.getState() as Record<string, unknown> | undefined) ?? {};
  }

  set state(s: Record<string, unknown>) {
    this.api.setState(s);
  }

  private post(m: FromView<V>): void {
    this.api.postMessage(m);
  }
}
