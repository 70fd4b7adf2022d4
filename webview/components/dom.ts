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
export function name(text: string, id?: string): HTMLElement {
  return h('bdi', { className: 'name', title: text, attrs: id ? { id } : {} }, text);
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
