/**
 * Building DOM without HTML strings: every text goes in through textContent, so corpus and query text
 * (untrusted input) can never become markup. Nothing in webview/ assigns innerHTML.
 */
export type Child = Node | string | number | null | undefined | false;
type Props = {
  className?: string;
  title?: string;
  attrs?: Record<string, string>;
  on?: { [K in keyof HTMLElementEventMap]?: (e: HTMLElementEventMap[K]) => void };
};

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.className) e.className = props.className;
  if (props.title !== undefined) e.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) e.setAttribute(k, v);
  for (const [k, f] of Object.entries(props.on ?? {})) e.addEventListener(k, f as EventListener);
  append(e, children);
  return e;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with numeric/string attributes (for small drawings such as box plots). */
export function svg(tag: string, attrs: Record<string, string | number>, ...children: Element[]): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.appendChild(c);
  return e;
}

export const fix4 = (v: number) => v.toFixed(4);

/** p-values: four decimals, or "<0.0001". */
export const pValue = (p: number) => (p < 1e-4 ? '<0.0001' : p.toFixed(4));

/**
 * Text from files (run names, ids, titles): in its own bidirectional isolate (dir="auto"), so override
 * characters in it cannot reorder what follows; `.name` keeps it on one line with an ellipsis and the whole
 * text in the tooltip, so a 100,000-character name cannot widen the page.
 */
export function name(text: string, id?: string, shown = text): HTMLElement {
  return h('bdi', { className: 'name', title: text, attrs: id ? { id } : {} }, shown);
}

/**
 * A run name short enough for a narrow column, cut in the middle but never where it tells runs apart: the
 * start is kept up to a few characters past what it shares with its closest sibling (starting with "…" after
 * a long shared start), and the end after the cut, so "vsm-tfidf.titles_fulltext.omar-khattab" beside
 * "bm25okapi.knarfthekant" becomes "vsm-tfidf.tit…r-khattab". At most `max` characters; the whole name goes in
 * the tooltip (name()).
 */
export function shortName(label: string, siblings: readonly string[], max = 28): string {
  if (label.length <= max) return label;
  const others = siblings.filter((s) => s !== label);
  const shared = others.length ? Math.max(...others.map((o) => commonPrefix(label, o))) : 0;
  // What tells it apart: six characters past the shared start.
  const telling = shared + 6;
  if (telling <= max - 4) {
    const head = Math.max(telling, Math.ceil((max - 1) * 0.55));
    return `${label.slice(0, head)}…${label.slice(label.length - (max - 1 - head))}`;
  }
  // A long shared start: "…" for it, then what differs, then the end.
  const from = shared - 2;
  const head = Math.ceil((max - 2) * 0.6);
  const tail = max - 2 - head;
  if (from + head >= label.length - tail) return `…${label.slice(label.length - (max - 1))}`;
  return `…${label.slice(from, from + head)}…${label.slice(label.length - tail)}`;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Brings `from` (in the page) to look like `to` (built afresh) by changing only what differs: the nodes stay,
 * so scroll positions, focus and a table's sort survive a new model, and the page does not jump. Children with
 * a `data-key` are matched by it (table rows), others by position. Listeners are not copied: a view updated
 * this way acts through delegated listeners or on nodes it does not morph. A node marked `data-own` keeps its
 * children: the page fills it itself (an editor, an explanation asked for).
 */
export function morph(from: Element, to: Element): void {
  for (const a of [...from.attributes]) if (!to.hasAttribute(a.name) && !OWN.has(a.name)) from.removeAttribute(a.name);
  for (const a of [...to.attributes]) if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
  if (from.hasAttribute('data-own')) return;
  const next = [...to.childNodes];
  const keyed = new Map<string, ChildNode>();
  for (const n of from.childNodes) if (keyOf(n) !== null) keyed.set(keyOf(n)!, n);
  const children = new ChildPlacer(from);
  for (const n of next) {
    const key = keyOf(n);
    // An unkeyed node is matched by position: the node at the placer's cursor.
    const at = children.cursor;
    const match = key !== null ? keyed.get(key) : at && keyOf(at) === null ? at : undefined;
    let node: ChildNode = n;
    if (match && same(match, n)) {
      // An equal subtree (most rows of a table after a judgement) stays as it is: compared natively at once,
      // not node by node in script (that walk was the Results page's largest script cost a judgement).
      if (n instanceof Element) {
        if (!match.isEqualNode(n)) morph(match as Element, n);
      } else if (match.nodeValue !== n.nodeValue) match.nodeValue = n.nodeValue;
      if (key !== null) keyed.delete(key);
      node = match;
    }
    children.place(node);
  }
  children.done();
}

/**
 * Puts a parent's children in a new order, one node at a time, moving as few as it can (morph() and keyed()):
 * a node already at the cursor stays; a node out of place at the cursor with this one right after it is stepped
 * over rather than every node after it moved up by one (a row moving down a list moves one row, not all
 * between); any other node is inserted at the cursor. done() removes the children not placed.
 */
export class ChildPlacer {
  cursor: ChildNode | null;
  private readonly placed = new Set<Node>();

  constructor(private readonly parent: Element) {
    this.cursor = parent.firstChild;
  }

  place(node: ChildNode): void {
    this.placed.add(node);
    if (node === this.cursor) this.cursor = node.nextSibling;
    else if (this.cursor && node === this.cursor.nextSibling) this.cursor = node.nextSibling;
    else this.parent.insertBefore(node, this.cursor);
  }

  done(): void {
    for (const c of [...this.parent.childNodes]) if (!this.placed.has(c)) c.remove();
  }
}

/** Attributes the page sets on its own nodes as the user works (a clicked cell's tabindex): a new model keeps them. */
const OWN = new Set(['tabindex']);

const keyOf = (n: Node): string | null => (n instanceof Element ? n.getAttribute('data-key') : null);

/** Same kind of node: the same tag (and key), or both text. */
function same(a: Node, b: Node): boolean {
  if (a.nodeType !== b.nodeType) return false;
  if (!(a instanceof Element) || !(b instanceof Element)) return true;
  return a.tagName === b.tagName && keyOf(a) === keyOf(b);
}

/** A difference at four decimals with its sign; one that rounds to zero is unsigned and neutral. */
export function signed4(d: number): { text: string; cls: '' | 'better' | 'worse' } {
  const t = Math.abs(d).toFixed(4);
  if (!(Math.abs(d) >= 5e-5)) return { text: t, cls: '' };
  return d > 0 ? { text: `+${t}`, cls: 'better' } : { text: `\u2212${t}`, cls: 'worse' };
}

/**
 * Text from files for places that take plain text only (dropdown options, checkbox labels, SVG): wrapped in
 * FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE, the plain-text form of dir="auto", and cut at `max`.
 */
export function isolate(text: string, max = 80): string {
  return `\u2068${text.length > max ? `${text.slice(0, max - 1)}…` : text}\u2069`;
}
