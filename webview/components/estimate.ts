// What the holes hide, as the panels show it (issue 23): an estimate with its 95 % interval, the verdict of a
// comparison from it, and the judging meter's estimate with its narrowing plot.
// Run names go through name() (isolated text).
import { ESTIMATE_METHOD, type EstimateView, type JudgingMeter } from '../../src/protocol/webview.js';
import { h, name, svg } from './dom.js';
import { outwardEnds } from '../../src/core/formats/outward.js';

const MINUS = '\u2212';

/** Three decimals, signed on request. */
function f3(x: number, signed: boolean): string {
  const r = Math.round(x * 1000) / 1000;
  const t = Math.abs(r).toFixed(3);
  return r < 0 ? `${MINUS}${t}` : signed && r > 0 ? `+${t}` : t;
}

/** "≈ 0.671 [0.652, 0.690]": the estimate and its interval, outward (the printed interval holds the computed one). */
export function estimateText(e: EstimateView, signed = false): string {
  const [lo, hi] = outwardEnds(e.lo, e.hi, 3);
  return `\u2248 ${f3(e.estimate, signed)} [${f3(lo, signed)}, ${f3(hi, signed)}]`;
}

/** The tooltip: the method, then what this estimate rests on. */
export function estimateTitle(e: EstimateView): string {
  const on = e.on.state === 'original' ? 'the original qrels' : `your ${e.on.judgements} judgements`;
  return `${ESTIMATE_METHOD} Here: ${e.holes} holes left in the top ${e.depth}, the model fitted to ${e.judged} judged holes, on ${on}; with the holes counted non-relevant ${e.now.toFixed(4)}.`;
}

/** The estimate after a figure, e.g. " ≈ 0.671 [0.652, 0.690]". */
export function estimateNode(e: EstimateView, signed = false): HTMLElement {
  return h('span', { className: 'estimate', title: estimateTitle(e), attrs: { 'data-estimate': String(e.estimate) } }, ` ${estimateText(e, signed)}`);
}

/** The verdict of b - a from the estimate's interval, naming the better run (as `short` shows it, if given). */
export function estimateVerdictNode(e: EstimateView, a: string, b: string, short?: (label: string) => string): HTMLElement {
  const v = e.verdict ?? 'undecided';
  const body = v === 'a better' ? [name(a, undefined, short?.(a)), ' better'] : v === 'b better' ? [name(b, undefined, short?.(b)), ' better'] : v === 'within' ? ['within \u00b10.01'] : ['undecided'];
  return h('span', { className: `est-verdict ${v.replace(' ', '-')}`, title: `From the 95 % interval of the estimate of Δ (b \u2212 a). ${ESTIMATE_METHOD}`, attrs: { 'data-verdict': v } }, ...body, ' (95 %)');
}

/**
 * The interval of Δ against the judgements made, as a small plot: the band of the interval, the estimate's
 * line, 0 and ±0.01. The vertical range follows the later points (the first intervals, from the prior, are
 * wide) and is clipped.
 */
export function narrowingPlot(history: readonly { judged: number; estimate: number; lo: number; hi: number }[], margin = 0.01): SVGElement {
  const W = 240;
  const H = 72;
  const pad = 2;
  const x0 = history[0]?.judged ?? 0;
  const x1 = Math.max(x0 + 10, history[history.length - 1]?.judged ?? 0);
  const recent = history.slice(Math.floor(history.length / 3));
  let lo = -2 * margin;
  let hi = 2 * margin;
  for (const p of recent) {
    lo = Math.min(lo, p.lo);
    hi = Math.max(hi, p.hi);
  }
  const span = Math.max(hi - lo, 1e-9);
  const x = (j: number) => pad + ((j - x0) / (x1 - x0)) * (W - 2 * pad);
  const y = (v: number) => pad + (1 - (Math.min(hi, Math.max(lo, v)) - lo) / span) * (H - 2 * pad);
  const band = [...history.map((p) => `${x(p.judged).toFixed(1)},${y(p.hi).toFixed(1)}`), ...[...history].reverse().map((p) => `${x(p.judged).toFixed(1)},${y(p.lo).toFixed(1)}`)].join(' ');
  const line = history.map((p) => `${x(p.judged).toFixed(1)},${y(p.estimate).toFixed(1)}`).join(' ');
  const rule = (v: number, cls: string) => svg('line', { x1: pad, x2: W - pad, y1: y(v), y2: y(v), class: cls });
  const last = history[history.length - 1];
  return svg(
    'svg',
    { class: 'narrowing', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `95 % interval of Δ after ${x0} to ${last?.judged ?? x0} judgements` },
    svg('title', {}),
    rule(margin, 'margin'),
    rule(-margin, 'margin'),
    rule(0, 'zero'),
    ...(history.length > 1 ? [svg('polygon', { points: band, class: 'band' }), svg('polyline', { points: line, class: 'line' })] : []),
  );
}

/** The meter's estimate: Δ with its interval, the verdict, about how many more judgements decide it, and the plot. */
export function meterEstimateNode(m: JudgingMeter): HTMLElement | null {
  const e = m.estimate;
  if (!e) return null;
  const plot = narrowingPlot(m.history ?? []);
  plot.firstChild!.textContent = `95 % interval of Δ ${m.measure} (b \u2212 a) against the judgements made`;
  const more = m.toDecide === undefined || m.toDecide === 0 ? null : m.toDecide >= e.holes ? 'more judgements than holes are left could decide it, by this reckoning' : `about ${m.toDecide} more judgements to decide (estimated)`;
  return h('div', { className: 'meter-estimate', attrs: { id: 'meter-estimate' } },
    h('div', {}, `Estimated Δ ${m.measure} `, estimateNode(e, true), ': ', estimateVerdictNode(e, m.a.label, m.b.label)),
    more ? h('div', { className: 'muted', attrs: { id: 'to-decide' } }, more) : null,
    plot);
}
