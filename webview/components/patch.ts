/**
 * Updating a view in place: what did not change keeps its DOM nodes, so a new model leaves the scroll
 * position, the focus, a selection and the toolkit's controls as they were, and the browser lays out and
 * paints only what changed (a whole-page rebuild per judgement made the page jump and cost the most CPU).
 */
import { append, ChildPlacer, morph, type Child } from './dom.js';

/** What each patched element was built from (a key of its content), so an unchanged one is left alone. */
const built = new WeakMap<Node, string>();

/**
 * Fills `el` with `build()` unless `key` (a summary of everything the children show, e.g. the JSON of their
 * part of the model) equals what it was built from. Returns whether it was rebuilt.
 */
export function patch(el: Element, key: string, build: () => Child[]): boolean {
  if (built.get(el) === key) return false;
  el.replaceChildren();
  append(el, build());
  built.set(el, key);
  return true;
}

/**
 * As patch(), but `el` is brought to `build()`'s element in place (morph) rather than refilled: what stayed
 * the same keeps its nodes (a region of a page whose figures move a few at a time).
 */
export function patchInPlace(el: Element, key: string, build: () => Element): boolean {
  if (built.get(el) === key) return false;
  morph(el, build());
  built.set(el, key);
  return true;
}

/**
 * Makes `parent`'s children one element per item, in order: the element of an item whose key is the same as
 * before is kept (moved if the order changed) and, if its content changed, updated in place from a fresh build;
 * the others are built, the stale removed. `content` summarises what an item shows (default: its JSON).
 */
export function keyed<T>(parent: Element, items: readonly T[], key: (item: T) => string, build: (item: T) => Element, content: (item: T) => string = (t) => JSON.stringify(t)): void {
  const old = new Map<string, Element>();
  for (const c of parent.children) {
    const k = rowKeys.get(c);
    if (k !== undefined) old.set(k, c);
  }
  const children = new ChildPlacer(parent);
  for (const item of items) {
    const k = key(item);
    const sig = content(item);
    let node = old.get(k);
    if (node) {
      // The item's element stays (focus, scroll anchoring, what a test or the page holds on to); what it shows
      // changed is brought over from a fresh build (morph: its listeners are the old ones, for the same item).
      if (built.get(node) !== sig) morph(node, build(item));
      old.delete(k);
    } else {
      node = build(item);
      rowKeys.set(node, k);
    }
    built.set(node, sig);
    children.place(node);
  }
  // What was not placed: the rows of items gone.
  children.done();
}

const rowKeys = new WeakMap<Node, string>();

/** Sets an element's text unless it already reads so (setting it anyway replaces the text node). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}
