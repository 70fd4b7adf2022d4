/**
 * What changed between two JSON values, for the webview protocol: after a judgement a view's model differs from
 * the one before in a few places (a query's figures, a row gone from a list), and the host sends only those, not
 * the whole model again (every byte of a model is serialized, compressed, relayed and parsed on the way to the
 * page, on the same threads that draw the views). Shared by the host (diffJson) and the pages (applyPatch).
 *
 * Values are compared as JSON sees them: a key whose value is undefined is absent.
 */
export type Patch =
  /** The value itself, new. */
  | { s: unknown }
  /** An object: its changed keys (`k`), and the keys it no longer has (`d`). */
  | { k?: Record<string, Patch>; d?: string[] }
  /**
   * An array: items changed in place (`i`: [index, patch] pairs), or runs of items replaced (`r`: [start, deleted,
   * items] each, by the indices of the array before, the last run first).
   */
  | { i: [number, Patch][] }
  | { r: [number, number, unknown[]][] };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A key's own value (keys come from files: '__proto__' or 'constructor' is a key like any other). */
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const put = (o: Record<string, unknown>, key: string, value: unknown) => Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
const keysOf = (o: Record<string, unknown>): string[] => Object.keys(o).filter((k) => o[k] !== undefined);

/** Whether two values are the same as JSON sees them. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a === 'number' && typeof b === 'number') return !Number.isFinite(a) && !Number.isFinite(b); // both null in JSON
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = keysOf(a);
  if (ka.length !== keysOf(b).length) return false;
  for (const k of ka) if (!sameJson(a[k], own(b, k))) return false;
  return true;
}

/** The patch that turns `prev` into `next`, or undefined when they are the same. */
export function diffJson(prev: unknown, next: unknown): Patch | undefined {
  if (sameJson(prev, next)) return undefined;
  if (Array.isArray(prev) && Array.isArray(next)) return diffArray(prev, next);
  if (isObject(prev) && isObject(next)) {
    const k: Record<string, Patch> = {};
    const d: string[] = [];
    const before = keysOf(prev);
    const after = keysOf(next);
    for (const key of after) {
      const was = own(prev, key);
      const p = was === undefined ? { s: next[key] } : diffJson(was, next[key]);
      if (p) put(k, key, p);
    }
    for (const key of before) if (own(next, key) === undefined) d.push(key);
    // A patch keeps the keys' order (pages list a record's entries in it): the kept keys, then the new ones.
    const gone = new Set(d);
    const order = [...before.filter((key) => !gone.has(key)), ...after.filter((key) => own(prev, key) === undefined)];
    if (order.some((key, i) => key !== after[i])) return { s: next };
    return { ...(Object.keys(k).length > 0 ? { k } : {}), ...(d.length > 0 ? { d } : {}) };
  }
  return { s: next };
}

/** How far a window over a list may move on and be sent as its new items (the Judge sidebar's pairs ahead). */
const MAX_SHIFT = 4;

/**
 * Same length: the items that changed, each patched (a query's figures), or a window moved on (its first items
 * gone, as many new at its end: the pairs ahead after a judgement). Otherwise the run between the common head and
 * tail is replaced (a row judged and gone from a list, one added): the items around it are not sent.
 */
function diffArray(prev: unknown[], next: unknown[]): Patch {
  const n = next.length;
  if (prev.length === n) {
    const i: [number, Patch][] = [];
    for (let j = 0; j < n; j++) {
      const p = diffJson(prev[j], next[j]);
      if (p) i.push([j, p]);
    }
    // Most items changed (a list re-sorted): the whole array is shorter than a patch of each item.
    if (i.length <= n / 2) return { i };
    for (let d = 1; d <= MAX_SHIFT && d < n; d++) {
      let j = 0;
      while (j < n - d && sameJson(prev[d + j], next[j])) j++;
      if (j === n - d) return { r: [[n, 0, next.slice(n - d)], [0, d, []]] };
    }
  }
  let head = 0;
  while (head < prev.length && head < n && sameJson(prev[head], next[head])) head++;
  let tail = 0;
  while (tail < prev.length - head && tail < n - head && sameJson(prev[prev.length - 1 - tail], next[n - 1 - tail])) tail++;
  return { r: [[head, prev.length - head - tail, next.slice(head, n - tail)]] };
}

/** `prev` with `patch` applied, as a new value: what did not change is shared with `prev`, which is not modified. */
export function applyPatch<T>(prev: T, patch: Patch): T {
  return apply(prev as Json, patch) as T;
}

function apply(prev: Json, patch: Patch): Json {
  if ('s' in patch) return patch.s as Json;
  if ('i' in patch) {
    if (!Array.isArray(prev)) throw new Error('patch: items of a value that is not an array');
    const out = prev.slice();
    for (const [j, p] of patch.i) out[j] = apply(out[j], p);
    return out;
  }
  if ('r' in patch) {
    if (!Array.isArray(prev)) throw new Error('patch: a run of a value that is not an array');
    let out = prev;
    for (const [start, deleted, items] of patch.r) out = out.slice(0, start).concat(items as Json[], out.slice(start + deleted));
    return out;
  }
  if (!isObject(prev)) throw new Error('patch: keys of a value that is not an object');
  const gone = new Set(patch.d);
  const changed = patch.k ?? {};
  const out: Record<string, Json> = {};
  for (const key of keysOf(prev)) if (!gone.has(key)) put(out, key, Object.hasOwn(changed, key) ? apply(prev[key] as Json, changed[key]) : prev[key]);
  for (const [key, p] of Object.entries(changed)) if (!Object.hasOwn(out, key)) put(out, key, apply(undefined as unknown as Json, p));
  return out;
}
