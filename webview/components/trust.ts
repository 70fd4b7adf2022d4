// Trust under holes, as the panels show it: a score's range over every grading of the holes left, a
// comparison's verdict (settled or open) and the judging meter. Run names go through name() (isolated text).
import type { HoleVerdict, JudgingMeter, QrelsLabel, ScoreRange } from '../../src/protocol/webview.js';
import { h, name } from './dom.js';
import { outwardEnds } from '../../src/core/formats/outward.js';
import { meterEstimateNode } from './estimate.js';

/** Two decimals, the lower end rounded down and the upper end up, so the printed range still holds every value. */
export function rangeText(lo: number, hi: number, signed = false): string {
  const f = (r: number) => {
    const t = Math.abs(r).toFixed(2);
    return r < 0 ? `\u2212${t}` : signed && r > 0 ? `+${t}` : t;
  };
  const [l, h] = outwardEnds(lo, hi, 2);
  return `[${f(l)}, ${f(h)}]`;
}

/** The range after a figure, e.g. " [0.61, 0.83]"; a bound (not the tightest range) is marked and says so. */
export function rangeNode(r: ScoreRange, signed = false): HTMLElement {
  const what = r.exact ? 'Range' : 'A bound of the range (too many holes for an exact search)';
  return h('span', {
    className: `range${r.exact ? '' : ' bound'}`,
    title: `${what} over every grading of the ${r.holes} holes left in the top-10 pool${r.judgedOnly === undefined ? '' : `; judged only (trec_eval -J): ${r.judgedOnly.toFixed(4)}`}`,
  }, ` ${rangeText(r.lo, r.hi, signed)}${r.exact ? '' : '\u2248'}`);
}

/** The sound verdict, worded for what it covers: the sign under every grading of the top-`depth` pool, or what keeps it open. */
export function verdictText(v: HoleVerdict, depth = 10): string {
  return v.verdict === 'settled' ? `sign fixed for every grading of the top-${depth} pool` : `open over the top-${depth} pool: ${v.openHoles} holes in ${v.openQueries} queries can flip the sign`;
}

/** The verdict in a table cell: "settled" or "open · N holes", the whole sentence in the tooltip. */
export function verdictNode(v: HoleVerdict): HTMLElement {
  return h('span', { className: `verdict ${v.verdict}`, title: `${verdictText(v)}; ${significanceText(v)}` },
    v.verdict === 'settled' ? 'settled' : `open · ${v.openHoles} holes`);
}

/** Which qrels a figure is on, in words: "the original qrels" or "the qrels with your N judgements". */
export function qrelsText(l: QrelsLabel): string {
  return l.state === 'original' ? 'the original qrels' : `the qrels with your ${l.judgements} judgement${l.judgements === 1 ? '' : 's'}`;
}

/** The direction of a difference, named: "Δ nDCG@10 = b − a" with the runs' names (isolated text). */
export function deltaOf(measure: string, b: string, a: string, short?: (label: string) => string): HTMLElement {
  return h('span', { className: 'delta-of' }, `Δ${measure ? ` ${measure}` : ''} = `, name(b, undefined, short?.(b)), ' \u2212 ', name(a, undefined, short?.(a)));
}

/** Whether judging the holes can lose, or gain, the t-test's significance. */
export function significanceText(v: HoleVerdict): string {
  return v.canLose ? 'significance can be lost' : v.canGain ? 'significance can be gained' : v.significant ? 'significance holds at the extremes' : 'not significant at the extremes';
}

/** The judging loop's meter: how open the comparison of the two runs still is (its verdict is b - a: direction 1, b better). */
export function meterNode(m: JudgingMeter): HTMLElement {
  const v = m.verdict;
  const body =
    v.verdict === 'open'
      ? [`comparison open: ${v.openHoles} holes in ${v.openQueries} queries can still flip it`]
      : [`settled after ${m.judged} judgements: `, ...(v.direction === 0 ? ['a tie under every grading'] : [name(v.direction === 1 ? m.b.label : m.a.label), ' better under every grading of the top-10 pool'])];
  return h('div', { className: `meter ${v.verdict}`, attrs: { id: 'meter', role: 'status' } },
    h('div', { className: 'muted' }, deltaOf(m.measure, m.b.label, m.a.label), `: ${rangeText(v.lo, v.hi, true)} over the holes of the top-10 pool, on ${qrelsText(m.qrels)}`),
    h('strong', {}, ...body),
    meterEstimateNode(m));
}
