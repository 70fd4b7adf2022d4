import { bpref, infAP, logBpref } from './measures/bpref';
import { numNonrelJudgedRet, numRel, numRelRet, numRet, utility } from './measures/counts';
import { holeAt, judgedAt, relString, unjudgedAt } from './measures/judged';
import { averagePrecision, logAveragePrecision, mapCut } from './measures/map';
import { binaryG, gainG, ndcg, ndcgCut, ndcgRel, rNdcg } from './measures/ndcg';
import {
  elevenPointAverage,
  interpolatedPrecision,
  precisionAt,
  rPrecision,
  rPrecisionMult,
  reciprocalRank,
  setMap,
  setPrecision,
  setRelativePrecision,
  success,
} from './measures/precision';
import { cappedRecallAt, recallAt, setF, setRecall } from './measures/recall';
import type { MeasureContext, QueryRels } from './relevance';
import { formatFixed } from './trecFormat';

/** A bad -m argument: unknown measure or malformed parameters. */
export class MeasureSpecError extends Error {}

type Params =
  | { kind: 'none' }
  | { kind: 'cutoffs'; integer: boolean; defaults: number[] } // one value per cutoff
  | { kind: 'values'; defaults: number[] } // a parameter list (set_F's beta, utility's coefficients, 11pt_avg's recall points)
  | { kind: 'gains' }; // level=gain pairs (ndcg family)

type Compute = (q: QueryRels, ctx: MeasureContext, m: ResolvedMeasure, out: Float64Array, at: number) => void;

export interface Family {
  name: string;
  /** Printed as an integer (%ld) or with four decimals (%.4f). */
  integer: boolean;
  params: Params;
  /** How per-query values become the summary: mean, sum (counts) or geometric mean (gm_map). */
  aggregate: 'mean' | 'sum' | 'gm';
  /** trec_eval prints some measures only in the summary (runid, num_q, gm_map). */
  perQuery: boolean;
  /** Where the definition comes from; trec_eval 10 measures switch -c -q output to trec_eval 10's layout. */
  origin: 'trec_eval 9' | 'trec_eval 10' | 'irw';
  compute: Compute;
  /** A measure whose per-query value is text (relstring), printed quoted and never summarised. */
  text?: (q: QueryRels, m: ResolvedMeasure) => string;
}

export interface ResolvedMeasure {
  family: Family;
  /** Output names, one per value (e.g. P_5, P_10). */
  names: string[];
  cutoffs: number[];
  values: number[];
  gains: [number, number][];
}

const STD_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
const scalar = (f: (q: QueryRels, ctx: MeasureContext, m: ResolvedMeasure) => number): Compute =>
  (q, ctx, m, out, at) => {
    out[at] = f(q, ctx, m);
  };
const cut = (integer: boolean, defaults: number[]): Params => ({ kind: 'cutoffs', integer, defaults });

/** In trec_eval's measure-table order, which is the order of its output whatever the order of -m. */
export const FAMILIES: readonly Family[] = [
  { name: 'runid', integer: false, params: { kind: 'none' }, aggregate: 'sum', perQuery: false, origin: 'trec_eval 9', compute: () => {} },
  { name: 'num_q', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: false, origin: 'trec_eval 9', compute: () => {} },
  { name: 'num_ret', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRet) },
  { name: 'num_rel', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRel) },
  { name: 'num_rel_ret', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRelRet) },
  { name: 'map', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(averagePrecision) },
  { name: 'gm_map', integer: false, params: { kind: 'none' }, aggregate: 'gm', perQuery: false, origin: 'trec_eval 9', compute: scalar(logAveragePrecision) },
  { name: 'Rprec', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(rPrecision) },
  { name: 'bpref', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(bpref) },
  { name: 'recip_rank', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(reciprocalRank) },
  {
    name: 'iprec_at_recall', integer: false, params: cut(false, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: (q, ctx, m, out, at) => interpolatedPrecision(q, ctx, m.cutoffs, out, at),
  },
  { name: 'P', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => precisionAt(q, ctx, m.cutoffs, out, at) },
  {
    name: 'relstring', integer: false, params: { kind: 'values', defaults: [10] }, aggregate: 'mean', perQuery: true,
    origin: 'trec_eval 9', compute: () => {}, text: (q, m) => relString(q, m.values[0]),
  },
  { name: 'recall', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => recallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'infAP', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(infAP) },
  { name: 'gm_bpref', integer: false, params: { kind: 'none' }, aggregate: 'gm', perQuery: false, origin: 'trec_eval 9', compute: scalar(logBpref) },
  {
    name: 'Rprec_mult', integer: false, params: cut(false, [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2]),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: (q, ctx, m, out, at) => rPrecisionMult(q, ctx, m.cutoffs, out, at),
  },
  {
    name: 'utility', integer: false, params: { kind: 'values', defaults: [1, -1, 0, 0] },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: scalar((q, ctx, m) => utility(q, ctx.numDocsInColl, m.values)),
  },
  {
    name: '11pt_avg', integer: false, params: { kind: 'values', defaults: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: scalar((q, ctx, m) => elevenPointAverage(q, ctx, m.values)),
  },
  { name: 'binG', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, ctx) => binaryG(q, ctx.relevanceLevel)) },
  { name: 'G', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => gainG(q, m.gains)) },
  { name: 'ndcg', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => ndcg(q, m.gains)) },
  { name: 'ndcg_rel', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => ndcgRel(q, m.gains)) },
  { name: 'Rndcg', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => rNdcg(q, m.gains)) },
  { name: 'ndcg_cut', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, _c, m, out, at) => ndcgCut(q, m.cutoffs, out, at) },
  { name: 'map_cut', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => mapCut(q, ctx, m.cutoffs, out, at) },
  { name: 'relative_P', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => cappedRecallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'success', integer: false, params: cut(true, [1, 5, 10]), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => success(q, ctx, m.cutoffs, out, at) },
  { name: 'set_P', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setPrecision) },
  { name: 'set_relative_P', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setRelativePrecision) },
  { name: 'set_recall', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setRecall) },
  { name: 'set_map', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setMap) },
  { name: 'set_F', integer: false, params: { kind: 'values', defaults: [1] }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, ctx, m) => setF(q, ctx, m.values)) },
  { name: 'num_nonrel_judged_ret', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numNonrelJudgedRet) },
  { name: 'unj', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: (q, _c, m, out, at) => unjudgedAt(q, m.cutoffs, out, at) },
  { name: 'recall_cap', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, ctx, m, out, at) => cappedRecallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'judged', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, _c, m, out, at) => judgedAt(q, m.cutoffs, out, at) },
  { name: 'hole', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, _c, m, out, at) => holeAt(q, m.cutoffs, out, at) },
];

const BY_NAME = new Map(FAMILIES.map((f) => [f.name, f]));

/** trec_eval's nicknames for sets of measures. */
export const NICKNAMES: Record<string, string[]> = {
  all_trec: [
    'runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank', 'iprec_at_recall', 'P',
    'relstring', 'recall', 'infAP', 'gm_bpref', 'utility', '11pt_avg', 'ndcg', 'relative_P', 'Rprec_mult', 'success', 'map_cut',
    'ndcg_cut', 'ndcg_rel', 'Rndcg', 'binG', 'G', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F', 'num_nonrel_judged_ret',
  ],
  official: ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank', 'iprec_at_recall', 'P'],
  set: ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'],
};

/**
 * Resolves -m arguments ("ndcg_cut.10,20", "official", "P") to measures in output order.
 * `firstParamsWin` reproduces trec_eval, which uses the parameters of the first -m naming a measure and
 * ignores later ones; otherwise cutoffs of repeated -m are merged (the library's default, e.g. for
 * ['recall.100', 'recall.1000']).
 */
export function resolveMeasures(specs: readonly string[], firstParamsWin = false): ResolvedMeasure[] {
  const marked = new Set<Family>();
  const paramText = new Map<Family, string[]>();
  for (const spec of specs.length ? specs : ['official']) {
    const dot = spec.indexOf('.');
    const name = dot < 0 ? spec : spec.slice(0, dot);
    const params = dot < 0 ? undefined : spec.slice(dot + 1);
    if (params === '') throw new MeasureSpecError(`improper measure '${spec}': nothing after the '.'`);
    const nick = NICKNAMES[name];
    const family = BY_NAME.get(name);
    if (!nick && !family) {
      const near = suggest(name);
      throw new MeasureSpecError(
        `unknown measure '${name}'${near.length ? `: did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : ''} ` +
          `Known: ${[...Object.keys(NICKNAMES), ...FAMILIES.map((f) => f.name)].join(', ')}`,
      );
    }
    for (const n of nick ?? [name]) marked.add(BY_NAME.get(n)!);
    if (params !== undefined && family) {
      const list = paramText.get(family) ?? [];
      if (!(firstParamsWin && list.length)) list.push(params);
      paramText.set(family, list);
    }
  }
  return FAMILIES.filter((f) => marked.has(f)).map((f) => resolveOne(f, paramText.get(f)));
}

function resolveOne(family: Family, texts: string[] | undefined): ResolvedMeasure {
  const m: ResolvedMeasure = { family, names: [family.name], cutoffs: [], values: [], gains: [] };
  const p = family.params;
  if (p.kind === 'cutoffs') {
    m.cutoffs = texts ? parseCutoffs(family, texts, p.integer) : [...p.defaults];
    m.names = m.cutoffs.map((c) => `${family.name}_${p.integer ? String(c) : formatFixed(c, 2)}`);
  } else if (p.kind === 'values') {
    m.values = texts ? texts[0].split(',').map((t) => parseNumber(family, t)) : [...p.defaults];
    if (texts) m.names = [`${family.name}_${texts[0]}`];
  } else if (p.kind === 'gains' && texts) {
    m.gains = parseGains(family, texts[0]);
    m.names = [`${family.name}_${texts[0]}`];
  }
  return m;
}

function parseNumber(family: Family, t: string): number {
  const v = Number(t);
  if (t.trim() === '' || !Number.isFinite(v)) throw new MeasureSpecError(`${family.name}: parameter '${t}' is not a number`);
  return v;
}

function parseCutoffs(family: Family, texts: string[], integer: boolean): number[] {
  const all = texts.flatMap((t) => t.split(',')).map((t) => {
    // trec_eval reads integer cutoffs with a C cast: ndcg_cut.23.4 is ndcg_cut_23.
    const v = integer ? Math.trunc(parseNumber(family, t)) : parseNumber(family, t);
    if (integer && v <= 0) throw new MeasureSpecError(`${family.name}: cutoff '${t}' must be a positive integer`);
    return v;
  });
  const sorted = [...new Set(all)].sort((a, b) => a - b);
  if (texts.length === 1 && sorted.length !== all.length) {
    throw new MeasureSpecError(`${family.name}: duplicate cutoffs in '${texts[0]}'`);
  }
  return sorted;
}

function parseGains(family: Family, text: string): [number, number][] {
  return text.split(',').map((pair) => {
    const [level, gain, extra] = pair.split('=');
    if (gain === undefined || extra !== undefined || !/^-?\d+$/.test(level)) {
      throw new MeasureSpecError(`${family.name}: malformed gain '${pair}': expected level=gain, e.g. ${family.name}.1=1,2=3`);
    }
    return [Number(level), parseNumber(family, gain)];
  });
}

/** The nearest measure names to a mistyped one: `recall_10` (the output name) -> `recall.10`, else by edit distance. */
export function suggest(name: string): string[] {
  const known = [...Object.keys(NICKNAMES), ...FAMILIES.map((f) => f.name)];
  const asOutput = /^(.+?)_(\d[\d.,]*)$/.exec(name);
  if (asOutput && BY_NAME.has(asOutput[1])) return [`${asOutput[1]}.${asOutput[2]}`];
  const scored = known.map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }));
  const best = Math.min(...scored.map((x) => x.d));
  return best <= Math.max(2, Math.floor(name.length / 3)) ? scored.filter((x) => x.d === best).map((x) => x.k) : [];
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
