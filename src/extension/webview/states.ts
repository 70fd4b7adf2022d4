import { diffJson } from '../../protocol/jsonDiff';
import { WEBVIEW_PROTOCOL_VERSION, type EventMessage, type PatchMessage, type ViewName } from '../../protocol/webview';

/**
 * The states a page was sent, per kind: the first of a kind goes whole, each next one as a patch of the one
 * before (src/protocol/jsonDiff.ts), numbered so the page can tell it has the state a patch changes.
 */
export class SentStates<V extends ViewName> {
  private readonly last = new Map<string, { payload: unknown; seq: number }>();
  private seq = 0;

  /**
   * The message that brings the page from the last state of `kind` sent to `payload`, or undefined when that is
   * the state it has (a view refreshed for a change that does not touch it sends nothing: each message costs the
   * workbench's one renderer thread a relay and the page a handling).
   */
  message(kind: string, payload: unknown): EventMessage<V> | PatchMessage<V> | undefined {
    const before = this.last.get(kind);
    const patch = before && diffJson(before.payload, payload);
    if (before && patch === undefined) return undefined;
    const seq = ++this.seq;
    this.last.set(kind, { payload, seq });
    return before
      ? ({ v: WEBVIEW_PROTOCOL_VERSION, type: 'patch', kind, base: before.seq, seq, patch } as PatchMessage<V>)
      : ({ v: WEBVIEW_PROTOCOL_VERSION, type: 'event', kind, seq, payload } as EventMessage<V>);
  }

  /** The message numbered `seq` did not reach the page: the next state of its kind goes whole. */
  lost(kind: string, seq: number): void {
    if (this.last.get(kind)?.seq === seq) this.last.delete(kind);
  }

  /** The page has none of them (it loaded again): the last states, and every next one goes whole. */
  reset(): [string, unknown][] {
    const out = [...this.last].map(([kind, { payload }]): [string, unknown] => [kind, payload]);
    this.last.clear();
    return out;
  }
}
