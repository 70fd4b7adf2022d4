/* global getComputedStyle, NodeFilter -- lowContrast's function runs inside a webview's page */
// WCAG 2.1 contrast of the text a webview shows, measured in its page as the theme styles it: for every text
// node that is rendered (shadow roots of the UI toolkit's controls included), its colour against the colours
// behind it (translucent layers blended), and the placeholder of each input. AA asks 4.5:1 for text, 3:1 for
// large text (24 px, or 18.66 px bold).

/**
 * The texts of `frame` (a playwright Frame) under `root` whose contrast is below AA: [{ text, color,
 * background, ratio, needed }].
 */
export function lowContrast(frame, root = 'body') {
  return frame.evaluate((rootSelector) => {
    const rgba = (c) => {
      const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(c);
      return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
    };
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
    const luminance = (c) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => {
      const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    // The parent in the rendered (flat) tree: a slotted node's slot, a shadow root's host.
    const parent = (n) => n.assignedSlot ?? n.parentElement ?? n.parentNode?.host ?? null;
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = parent(e)) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0) layers.push(c);
        if (c && c[3] >= 1) break;
      }
      let bg = [255, 255, 255, 1];
      const canvas = rgba(getComputedStyle(document.documentElement).backgroundColor);
      if (canvas && canvas[3] > 0) bg = over(canvas, bg);
      for (const c of layers.reverse()) bg = over(c, bg);
      return bg;
    };
    const out = [];
    const check = (text, el, colorOf) => {
      const style = getComputedStyle(el);
      const fg = rgba(colorOf(style));
      if (!fg) return;
      const bg = background(el);
      const r = ratio(over(fg, bg), bg);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const needed = large ? 3 : 4.5;
      if (r < needed) out.push({ text: text.slice(0, 60), color: colorOf(style), background: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`, ratio: Math.round(r * 100) / 100, needed });
    };
    const walk = (root) => {
      const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let n = it.currentNode; n; n = it.nextNode()) {
        if (n.nodeType === 1 && n.shadowRoot) walk(n.shadowRoot);
        if (n.nodeType === 1 && n.tagName === 'INPUT' && n.getClientRects().length > 0) {
          if (n.value) check(n.value, n, (s) => s.color);
          if (n.placeholder && !n.value) check(n.placeholder, n, () => getComputedStyle(n, '::placeholder').color);
        }
        if (n.nodeType !== 3 || !n.textContent.trim()) continue;
        const el = parent(n);
        // A slot (display: contents) has no box of its own: the nearest ancestor that has one says if it shows.
        let box = el;
        while (box && getComputedStyle(box).display === 'contents') box = parent(box);
        if (!el || !box || box.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
        if (el.closest?.('[aria-hidden="true"]')) continue;
        check(n.textContent.trim(), el, (s) => s.color);
      }
    };
    walk(document.querySelector(rootSelector));
    return out;
  }, root);
}
