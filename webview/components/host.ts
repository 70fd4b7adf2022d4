import { panelIdentity } from './settings.js';
import { applyPatch, type Patch } from '../../src/protocol/jsonDiff.js';
import {
  PANEL_STATE,
  RESTORE_STATE,
  WEBVIEW_PROTOCOL_VERSION,
  type PanelChoices,
  type EventMessage,
  type PatchMessage,
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

/**
 * The webview's end of the protocol (src/protocol/webview.ts): typed requests with ids, typed events. A patch is
 * applied to the last state of its kind (which handlers must not modify: the next patch changes it).
 */
export class Host<V extends ViewName> {
  private readonly api = acquireVsCodeApi();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** The last state of each kind, and its number. */
  private readonly got = new Map<string, { payload: unknown; seq: number }>();
  /** Asked for every state whole, until one comes. */
  private resyncing = false;

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
      } else if (m.type === 'event' || m.type === 'patch') {
        const payload = this.stateOf(m);
        if (payload === undefined) return;
        (handlers[m.kind as keyof ViewEvents[V]] as (p: unknown) => void)(payload);
        // Which judgements the view now shows (the qrels' version), for tests and the judging bench to wait on.
        const version = (payload as { qrels?: { version?: unknown } } | null)?.qrels?.version;
        if (typeof version === 'number') document.body.dataset.qrelsVersion = String(version);
      }
    });
    // The panel's identity goes into the view state at once: a reload before any choice still restores it.
    if (panelIdentity) {
      const own = this.state;
      this.state = own;
    }
    this.post({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  }

  request<M extends keyof ViewRequests[V] & string>(method: M, params: ParamsOf<V, M>): Promise<ResultOf<V, M>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.post({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id, method, params } as FromView<V>);
    });
  }

  /**
   * View state VS Code keeps while the panel is hidden and across a window reload (e.g. the selected query);
   * the panel's identity and choices are kept with it whatever a view sets.
   */
  get state(): Record<string, unknown> {
    const { [PANEL_STATE]: _id, [RESTORE_STATE]: _choices, ...own } = (this.api.getState() as Record<string, unknown> | undefined) ?? {};
    return own;
  }

  set state(s: Record<string, unknown>) {
    const kept = (this.api.getState() as Record<string, unknown> | undefined) ?? {};
    this.api.setState({ ...s, [PANEL_STATE]: panelIdentity ?? kept[PANEL_STATE], [RESTORE_STATE]: kept[RESTORE_STATE] });
  }

  /** Records the person's choices in the panel (its comparisons, its pool) for the host to apply on a reload. */
  choose(c: PanelChoices): void {
    const kept = (this.api.getState() as Record<string, unknown> | undefined) ?? {};
    this.api.setState({ ...kept, [PANEL_STATE]: panelIdentity ?? kept[PANEL_STATE], [RESTORE_STATE]: { ...(kept[RESTORE_STATE] as object | undefined), ...c } });
  }

  /** The state an event or patch carries; undefined for a patch of a state this page lacks (it asks for all again). */
  private stateOf(m: EventMessage<V> | PatchMessage<V>): unknown {
    if (m.type === 'event') {
      this.resyncing = false;
      this.got.set(m.kind, { payload: m.payload, seq: m.seq });
      return m.payload;
    }
    const last = this.got.get(m.kind);
    const payload = last && last.seq === m.base ? patched(last.payload, m.patch) : undefined;
    if (payload === undefined) {
      // Not the state the patch changes, or not a patch of it: every state whole, once.
      if (!this.resyncing) this.post({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
      this.resyncing = true;
      return undefined;
    }
    this.got.set(m.kind, { payload, seq: m.seq });
    return payload;
  }

  private post(m: FromView<V>): void {
    this.api.postMessage(m);
  }
}

/** `prev` changed by `patch`; undefined when the patch does not fit it. */
function patched(prev: unknown, patch: Patch): unknown {
  try {
    return applyPatch(prev, patch);
  } catch {
    return undefined;
  }
}
