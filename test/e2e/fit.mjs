/* global getComputedStyle, NodeFilter -- measure() runs in the webview's page */
// What a webview shows, measured in the page as the workbench renders it (the theme's real colours, the real
// editor width): text contrast against WCAG AA and boxes that do not fit. Scenarios call checkFit(frame).

/**
 * Runs in the webview's page. Returns the texts whose contrast with what is behind them is below WCAG AA (4.5:1,
 * 3:1 for large text), the tables wider than their box, elements beyond the viewport, and text cut off by an
 * overflow without a tooltip carrying it whole.
 */
function measure() {
  const parse = (c) => {
    let m = /^rgba?\(([^)]+)\)$/.exec(c);
    if (m) {
      const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p[3] ?? 1];
    }
    m = /^color\(srgb ([^)]+)\)$/.exec(c);
    if (m) {
      const p = m[1].split(/[\s/]+/).filter(Boolean).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, p[3] ?? 1];
    }
    return null;
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (x, y) => {
    const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (a + 0.05) / (b + 0.05);
  };
  const behind = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) {
        layers.push(c);
        if (c[3] >= 1) break;
      }
    }
    let bg = [255, 255, 255, 1];
    for (const l of layers.reverse()) bg = over(l, bg);
    return bg;
  };
  const contrast = new Map();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    const el = n.parentElement;
    if (!text || !el || el.closest('script, style, canvas') || el.tagName.includes('-')) continue;
    const box = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || cs.visibility !== 'visible') continue;
    const fg = parse(el.closest('svg') ? cs.fill : cs.color);
    if (!fg) continue;
    const bg = behind(el.closest('svg') ?? el);
    const r = ratio(over(fg, bg), bg);
    const size = parseFloat(cs.fontSize);
    const need = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
    if (r < need) {
      const key = `${cs.color}|${bg.slice(0, 3).map(Math.round)}`;
      if (!contrast.has(key)) contrast.set(key, { text: text.slice(0, 40), color: el.closest('svg') ? cs.fill : cs.color, background: `rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`, ratio: Math.round(r * 100) / 100, need });
    }
  }
  const wide = [...document.querySelectorAll('table')].filter((t) => {
    const box = t.parentElement;
    return t.getBoundingClientRect().width > 0 && t.scrollWidth > box.clientWidth + 1;
  }).map((t) => `table#${t.id} ${t.scrollWidth} > ${t.parentElement.clientWidth}`);
  const beyond = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.right > window.innerWidth + 1 && !e.closest('.table-scroll, .query-list, #detail, .doctext');
  }).map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''}`);
  const clipped = [...document.querySelectorAll('body *')].filter((e) => {
    const cs = getComputedStyle(e);
    if (!['hidden', 'clip'].includes(cs.overflowX) || e.scrollWidth <= e.clientWidth + 1 || e.getBoundingClientRect().width === 0) return false;
    // Cut on purpose (names, query text, titles): the whole text is in a tooltip.
    return !e.closest('[title]');
  }).map((e) => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]}: ${(e.textContent ?? '').trim().slice(0, 30)}`);
  return {
    contrast: [...contrast.values()],
    wide,
    beyond: [...new Set(beyond)].slice(0, 10),
    clipped: [...new Set(clipped)].slice(0, 10),
    page: document.documentElement.scrollWidth - window.innerWidth,
  };
}

/** Asserts that the webview `frame` (a FrameLocator) fits and reads: throws naming what does not. */
export async function checkFit(frame, what) {
  const m = await frame.locator('body').evaluate(measure);
  const problems = [
    ...m.contrast.map((c) => `contrast ${c.ratio}:1 < ${c.need}:1 for "${c.text}" (${c.color} on ${c.background})`),
    ...m.wide.map((w) => `wider than its box: ${w}`),
    ...m.beyond.map((b) => `beyond the viewport: ${b}`),
    ...m.clipped.map((c) => `cut off without a tooltip: ${c}`),
    ...(m.page > 0 ? [`the page scrolls sideways by ${m.page} px`] : []),
  ];
  if (problems.length) throw new Error(`${what}:\n  ${problems.join('\n  ')}`);
}
