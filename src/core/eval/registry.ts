import { mapAvgJg, precisionAvgJg, rPrecisionMultAvgJg } from './measures/avgjg';
import { bpref, infAP, logBpref } from './measures/bpref';
import { numPrefsFulfilled, numPrefsPossible, prefsAvgJg, prefsAvgJgRnonrel, prefsPair, prefsSimple } from './measures/prefs';
import { numNonrelJudgedRet, numRel, numRelRet, numRet, utility } from './measures/counts';
import { holeAt, judgedAt, relString, unjudgedAt } from './measures/judged';
import { averagePrecision, logAveragePrecision, mapCut } from './measures/map';
import { binaryG, dcgAndIdeal, gainG, ndcg, ndcgCut, ndcgRel, rNdcg } from './measures/ndcg';
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
import { rbp, rbpResidual } from './measures/rbp';
import { yaap } from './measures/yaap';
import { cappedRecallAt, recallAt, setF, setRecall } from './measures/recall';
import type { MeasureContext, QueryRels } from './relevance';
import { formatFixed } from './printf';
import { nearest } from '../nearest';
import { fieldMeasure, FieldNameError, nearestFieldNames, type MeasureView } from './names';

/** A bad -m argument: unknown measure or malformed parameters. */
export class MeasureSpecError extends Error {}

type Params =
  | { kind: 'none' }
  | { kind: 'cutoffs'; integer: boolean; defaults: number[] } // one value per cutoff
  | { kind: 'values'; defaults: number[] } // a parameter list (set_F's beta, utility's coefficients, 11pt_avg's recall points)
  | { kind: 'gains'; named?: Record<string, number> }; // level=gain pairs (ndcg family), plus named values with their defaults (rbp's p)

type Compute = (q: QueryRels, ctx: MeasureContext, m: ResolvedMeasure, out: Float64Array, at: number) => void;

export interface Family {
  name: string;
  /** trec_eval -h -m NAME: what the measure is, with an example of its parameters. */
  help: string;
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
  /** Reads judgment-group qrels (-R qrels_jg) or preferences (-R qrels_prefs), and only those; default plain qrels. */
  reads?: 'qrels_jg' | 'prefs';
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
  /** Named pair parameters (rbp.p=0.8): the family's defaults, overridden by the -m text. */
  named: Record<string, number>;
  /** Another relevance level or ranking depth than the evaluation's (a field name such as P(rel=2)@10, RR@10). */
  view?: MeasureView;
}

const STD_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
const scalar = (f: (q: QueryRels, ctx: MeasureContext, m: ResolvedMeasure) => number): Compute =>
  (q, ctx, m, out, at) => {
    out[at] = f(q, ctx, m);
  };
const cut = (integer: boolean, defaults: number[]): Params => ({ kind: 'cutoffs', integer, defaults });

/** In trec_eval's measure-table order, which is the order of its output whatever the order of -m. */
export const FAMILIES: readonly Family[] = [
  { name: 'runid', help: 'Run id: the tag (6th column) of the run\'s last line.', integer: false, params: { kind: 'none' }, aggregate: 'sum', perQuery: false, origin: 'trec_eval 9', compute: () => {} },
  { name: 'num_q', help: 'Number of queries evaluated (in both files, or every qrels query with -c).', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: false, origin: 'trec_eval 9', compute: () => {} },
  { name: 'num_ret', help: 'Number of documents retrieved (after -M, and -J). Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRet) },
  { name: 'num_rel', help: 'Number of relevant documents (grade >= -l) in the qrels. Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRel) },
  { name: 'num_rel_ret', help: 'Number of relevant documents retrieved. Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numRelRet) },
  { name: 'map', help: 'Mean average precision: precision at each relevant retrieved document, summed, over R.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(averagePrecision) },
  { name: 'gm_map', help: 'Geometric mean of average precision (per query floored at 0.00001). Summary only.', integer: false, params: { kind: 'none' }, aggregate: 'gm', perQuery: false, origin: 'trec_eval 9', compute: scalar(logAveragePrecision) },
  { name: 'Rprec', help: 'Precision after R documents (R = number of relevant documents).', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(rPrecision) },
  { name: 'bpref', help: 'Binary preference (Buckley & Voorhees 2004): for each relevant retrieved document, 1 minus the share of the first R judged non-relevant documents ranked above it, over R.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(bpref) },
  { name: 'recip_rank', help: 'Reciprocal rank of the first relevant document.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(reciprocalRank) },
  {
    name: 'iprec_at_recall', help: 'Interpolated precision (the highest precision at or below a rank) at recall levels; default 0, 0.1, ..., 1. iprec_at_recall.0.25,0.5', integer: false, params: cut(false, [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: (q, ctx, m, out, at) => interpolatedPrecision(q, ctx, m.cutoffs, out, at),
  },
  { name: 'P', help: 'Precision at cutoffs: relevant in the top k over k. P.5,10', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => precisionAt(q, ctx, m.cutoffs, out, at) },
  {
    name: 'relstring', help: 'Relevance of the top n (default 10) as one character each: grade 0-9, > above 9, - not in the pool, . pooled but unjudged. Per query only. relstring.20', integer: false, params: { kind: 'values', defaults: [10] }, aggregate: 'mean', perQuery: true,
    origin: 'trec_eval 9', compute: () => {}, text: (q, m) => relString(q, m.values[0]),
  },
  { name: 'recall', help: 'Recall at cutoffs: relevant in the top k over R. recall.100,1000', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => recallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'infAP', help: 'Inferred AP (Yilmaz & Aslam 2006): pooled-but-unjudged documents (negative grades) estimated from the judged ones.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(infAP) },
  { name: 'gm_bpref', help: 'Geometric mean of bpref (per query floored at 0.00001). Summary only.', integer: false, params: { kind: 'none' }, aggregate: 'gm', perQuery: false, origin: 'trec_eval 9', compute: scalar(logBpref) },
  {
    name: 'Rprec_mult', help: 'Precision after x * R documents, for multipliers x (default 0.2 ... 2.0). Rprec_mult.0.5,2', integer: false, params: cut(false, [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2]),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: (q, ctx, m, out, at) => rPrecisionMult(q, ctx, m.cutoffs, out, at),
  },
  {
    name: 'utility', help: 'Set utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret (the last needs -N). Default utility.1,-1,0,0', integer: false, params: { kind: 'values', defaults: [1, -1, 0, 0] },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: scalar((q, ctx, m) => utility(q, ctx.numDocsInColl, m.values)),
  },
  {
    name: '11pt_avg', help: 'Interpolated precision averaged over recall points (default 0, 0.1, ..., 1). 11pt_avg.0.2,0.5,0.8', integer: false, params: { kind: 'values', defaults: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1] },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9',
    compute: scalar((q, ctx, m) => elevenPointAverage(q, ctx, m.values)),
  },
  { name: 'binG', help: 'Binary gain: 1/log2(2 + rank - relevant so far) per relevant document, over R.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, ctx) => binaryG(q, ctx.relevanceLevel)) },
  { name: 'G', help: 'Normalised cumulative gain with a cost of at least 1 per rank (Sakai); gains as ndcg. G.1=1,2=3', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => gainG(q, m.gains)) },
  { name: 'dcg', help: 'trec_eval 10: discounted cumulative gain of the ranking (gains as ndcg). dcg.1=1,2=3', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: scalar((q, _c, m) => dcgAndIdeal(q, m.gains)[0]) },
  { name: 'ideal_dcg', help: 'trec_eval 10: discounted cumulative gain of the ideal ranking (gains as ndcg).', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: scalar((q, _c, m) => dcgAndIdeal(q, m.gains)[1]) },
  { name: 'ndcg', help: 'Normalised discounted cumulative gain over the whole ranking; gain = grade unless level=gain pairs are given. ndcg.1=1,2=3', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => ndcg(q, m.gains)) },
  { name: 'ndcg_rel', help: 'nDCG averaged over the ranks of the relevant documents.', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => ndcgRel(q, m.gains)) },
  { name: 'Rndcg', help: 'nDCG averaged at the ranks where the ideal gain level changes, up to R.', integer: false, params: { kind: 'gains' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, _c, m) => rNdcg(q, m.gains)) },
  { name: 'ndcg_cut', help: 'nDCG at cutoffs (gain = grade). ndcg_cut.10', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, _c, m, out, at) => ndcgCut(q, m.cutoffs, out, at) },
  { name: 'map_cut', help: 'Average precision over the top k, normalised by R. map_cut.100', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => mapCut(q, ctx, m.cutoffs, out, at) },
  { name: 'relative_P', help: 'Relevant in the top k over min(k, R). relative_P.10', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => cappedRecallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'success', help: '1 if a relevant document is in the top k. success.1,5,10', integer: false, params: cut(true, [1, 5, 10]), aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: (q, ctx, m, out, at) => success(q, ctx, m.cutoffs, out, at) },
  { name: 'set_P', help: 'Precision of the whole retrieved set.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setPrecision) },
  { name: 'set_relative_P', help: 'Relevant retrieved over min(retrieved, R).', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setRelativePrecision) },
  { name: 'set_recall', help: 'Recall of the whole retrieved set.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setRecall) },
  { name: 'set_map', help: 'Set precision times set recall.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(setMap) },
  { name: 'set_F', help: 'F-measure of set precision and recall with weight beta (default 1). set_F.0.5', integer: false, params: { kind: 'values', defaults: [1] }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar((q, ctx, m) => setF(q, ctx, m.values)) },
  { name: 'num_nonrel_judged_ret', help: 'Number of retrieved documents judged non-relevant (0 <= grade < -l). Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', compute: scalar(numNonrelJudgedRet) },
  { name: 'prefs_num_prefs_poss', help: 'Preferences possible (-R qrels_prefs: in each judgment group every document of a higher grade is preferred to each of a lower grade), retrieved or not. Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => numPrefsPossible(q.prefs!)) },
  { name: 'prefs_num_prefs_ful', help: 'Preferences fulfilled: both documents retrieved in that order, or only the preferred one retrieved. Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => numPrefsFulfilled(q.prefs!, 'imp')) },
  { name: 'prefs_num_prefs_ful_ret', help: 'Preferences fulfilled among retrieved documents. Summed over queries.', integer: true, params: { kind: 'none' }, aggregate: 'sum', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => numPrefsFulfilled(q.prefs!, 'ret')) },
  { name: 'prefs_simp', help: 'Preferences fulfilled over preferences possible (a pair neither of whose documents is retrieved counts as failed).', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsSimple(q.prefs!, 'all')) },
  { name: 'prefs_pair', help: 'Per document pair with a preference, the share of judgment groups whose preference the ranking fulfils, averaged over pairs.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsPair(q.prefs!, 'all')) },
  { name: 'prefs_avgjg', help: 'prefs_simp per judgment group, averaged over the groups.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsAvgJg(q.prefs!, 'all')) },
  { name: 'prefs_avgjg_Rnonrel', help: 'prefs_avgjg with the non-relevant documents of each group cut or padded to R, its number of relevant documents (akin to bpref).', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsAvgJgRnonrel(q.prefs!, false)) },
  { name: 'prefs_simp_ret', help: 'prefs_simp among retrieved documents only.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsSimple(q.prefs!, 'ret')) },
  { name: 'prefs_pair_ret', help: 'prefs_pair among retrieved documents only.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsPair(q.prefs!, 'ret')) },
  { name: 'prefs_avgjg_ret', help: 'prefs_avgjg among retrieved documents only.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsAvgJg(q.prefs!, 'ret')) },
  { name: 'prefs_avgjg_Rnonrel_ret', help: 'prefs_avgjg_Rnonrel among retrieved documents only (R = relevant retrieved).', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsAvgJgRnonrel(q.prefs!, true)) },
  { name: 'prefs_simp_imp', help: 'prefs_simp over pairs with at least one document retrieved.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsSimple(q.prefs!, 'imp')) },
  { name: 'prefs_pair_imp', help: 'prefs_pair over pairs with at least one document retrieved.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsPair(q.prefs!, 'imp')) },
  { name: 'prefs_avgjg_imp', help: 'prefs_avgjg over pairs with at least one document retrieved.', integer: false, params: { kind: 'none' }, aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'prefs', compute: scalar((q) => prefsAvgJg(q.prefs!, 'imp')) },
  {
    name: 'map_avgjg', help: 'map against each judgment group\'s judgements (-R qrels_jg: one set per assessor), averaged over the groups.', integer: false, params: { kind: 'none' },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'qrels_jg', compute: (q, ctx, _m, out, at) => mapAvgJg(q, ctx, out, at),
  },
  {
    name: 'P_avgjg', help: 'P at cutoffs, averaged over judgment groups (-R qrels_jg). P_avgjg.5,10', integer: false, params: cut(true, STD_CUTOFFS),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'qrels_jg', compute: (q, ctx, m, out, at) => precisionAvgJg(q, ctx, m.cutoffs, out, at),
  },
  {
    name: 'Rprec_mult_avgjg', help: 'Rprec_mult, averaged over judgment groups (-R qrels_jg). Rprec_mult_avgjg.0.5,2', integer: false, params: cut(false, [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2]),
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', reads: 'qrels_jg', compute: (q, ctx, m, out, at) => rPrecisionMultAvgJg(q, ctx, m.cutoffs, out, at),
  },
  {
    name: 'yaap', help: 'Yet another average precision (Robertson 2012): log((1 + s) / (1 + R - s)), s = the sum of precision at each relevant retrieved document; monotonic with AP on a query, finite at AP 0 and 1.', integer: false, params: { kind: 'none' },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 9', compute: scalar(yaap),
  },
  {
    name: 'rbp', help: 'trec_eval 10: rank-biased precision (Moffat & Zobel 2008) with persistence p (default 0.9); gains as ndcg, rescaled to [0, 1] when one leaves it. rbp.p=0.95 or rbp.p=0.8,1=1,2=3', integer: false, params: { kind: 'gains', named: { p: 0.9 } },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: scalar((q, _c, m) => rbp(q, m.named.p, m.gains)),
  },
  {
    name: 'rbp_resid', help: 'trec_eval 10: how much rbp (persistence p, default 0.9) could still rise if every unjudged retrieved document (and every rank past the ranking) had gain 1. rbp_resid.p=0.95', integer: false, params: { kind: 'gains', named: { p: 0.9 } },
    aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: scalar((q, _c, m) => rbpResidual(q, m.named.p)),
  },
  { name: 'unj', help: 'trec_eval 10: share of the top k not judged for the query (k past a short ranking count as judged). unj.10', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'trec_eval 10', compute: (q, _c, m, out, at) => unjudgedAt(q, m.cutoffs, out, at) },
  { name: 'recall_cap', help: 'BEIR R_cap@k: relevant in the top k over min(R, k). recall_cap.100', integer: false, params: cut(true, STD_CUTOFFS), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, ctx, m, out, at) => cappedRecallAt(q, ctx, m.cutoffs, out, at) },
  { name: 'judged', help: 'Share of the top k judged (grade >= 0) for this query. judged.10', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, _c, m, out, at) => judgedAt(q, m.cutoffs, out, at) },
  { name: 'hole', help: 'BEIR Hole@k: share of the top k judged for no query of the qrels. hole.10', integer: false, params: cut(true, [5, 10, 20]), aggregate: 'mean', perQuery: true, origin: 'irw', compute: (q, _c, m, out, at) => holeAt(q, m.cutoffs, out, at) },
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
  qrels_jg: ['runid', 'num_q', 'map_avgjg', 'P_avgjg', 'Rprec_mult_avgjg'],
  all_prefs: [
    'runid', 'num_q', 'prefs_num_prefs_poss', 'prefs_num_prefs_ful', 'prefs_num_prefs_ful_ret', 'prefs_simp', 'prefs_pair', 'prefs_avgjg',
    'prefs_avgjg_Rnonrel', 'prefs_simp_ret', 'prefs_pair_ret', 'prefs_avgjg_ret', 'prefs_avgjg_Rnonrel_ret', 'prefs_simp_imp', 'prefs_pair_imp',
    'prefs_avgjg_imp',
  ],
  prefs: ['runid', 'num_q', 'prefs_num_prefs_poss', 'prefs_num_prefs_ful', 'prefs_num_prefs_ful_ret', 'prefs_simp', 'prefs_pair', 'prefs_avgjg'],
  set: ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'],
};

/** A measure seen through a view (field names only): its parameter texts and, per cutoff or alone, its names. */
interface Viewed {
  family: Family;
  view: MeasureView;
  texts: string[];
  labels: Map<number | undefined, string>;
}

/**
 * Resolves -m arguments ("ndcg_cut.10,20", "official", "P", or field names such as "nDCG@10", names.ts) to
 * measures in output order (trec_eval's table order; a field name's view after its family).
 * `firstParamsWin` reproduces trec_eval, which uses the parameters of the first -m naming a measure and
 * ignores later ones (each reported to `onIgnored`, with the -m kept and, for cutoffs, the one -m giving both); otherwise cutoffs of repeated -m are
 * merged (the library's default, e.g. for ['recall.100', 'recall.1000']). Field names' cutoffs always merge: they
 * are not trec_eval's syntax, so there is no trec_eval behaviour to follow.
 */
export function resolveMeasures(
  specs: readonly string[],
  firstParamsWin = false,
  trecEval: 9 | 10 = 9,
  onIgnored?: (spec: string, kept: string, both?: string) => void,
): ResolvedMeasure[] {
  const marked = new Set<Family>();
  const paramText = new Map<Family, string[]>();
  /** The -m whose parameters a family takes (trec_eval syntax), for firstParamsWin. */
  const trecKept = new Map<Family, string>();
  const viewed = new Map<string, Viewed>();
  const addParams = (family: Family, params: string, spec: string, trecSyntax: boolean) => {
    const list = paramText.get(family) ?? [];
    paramText.set(family, list);
    const kept = trecKept.get(family);
    if (trecSyntax && firstParamsWin && kept !== undefined) {
      if (params !== kept.slice(kept.indexOf('.') + 1)) onIgnored?.(spec, kept, family.params.kind === 'cutoffs' ? `${kept},${params}` : undefined);
      return;
    }
    if (trecSyntax && kept === undefined) trecKept.set(family, spec);
    // Only cutoffs merge: a family takes one list of values or gains (the first given).
    if (family.params.kind !== 'cutoffs' && list.length && list[0] !== params) {
      if (!trecSyntax) throw new MeasureSpecError(`'${spec}': ${family.name} takes one set of parameters per evaluation (already ${family.name}.${list[0]}): evaluate them separately`);
      onIgnored?.(spec, `${family.name}.${list[0]}`);
      return;
    }
    list.push(params);
  };
  for (const spec of specs.length ? specs : ['official']) {
    const dot = spec.indexOf('.');
    const name = dot < 0 ? spec : spec.slice(0, dot);
    const params = dot < 0 ? undefined : spec.slice(dot + 1);
    // trec_eval 10's all_trec adds its own unj, rbp and rbp_resid.
    const nick = name === 'all_trec' && trecEval === 10 ? [...NICKNAMES.all_trec, 'unj', 'rbp', 'rbp_resid'] : Object.hasOwn(NICKNAMES, name) ? NICKNAMES[name] : undefined;
    const family = BY_NAME.get(name);
    if (nick || family) {
      if (params === '') throw new MeasureSpecError(`improper measure '${spec}': nothing after the '.'`);
      for (const n of nick ?? [name]) marked.add(BY_NAME.get(n)!);
      if (params !== undefined && family) addParams(family, params, spec, true);
      continue;
    }
    const field = fieldName(spec);
    const f = BY_NAME.get(field.family)!;
    if (!field.view) {
      marked.add(f);
      if (field.params !== undefined) addParams(f, field.params, spec, false);
      continue;
    }
    const key = `${f.name} ${field.view.level} ${field.view.depth}`;
    const v: Viewed = viewed.get(key) ?? { family: f, view: field.view, texts: [], labels: new Map() };
    viewed.set(key, v);
    if (field.params !== undefined) v.texts.push(field.params);
    const at = field.params === undefined || f.params.kind !== 'cutoffs' ? undefined : parseCutoffs(f, [field.params], f.params.integer)[0];
    if (!v.labels.has(at)) v.labels.set(at, field.label);
  }
  const out: ResolvedMeasure[] = [];
  for (const f of FAMILIES) {
    if (marked.has(f)) out.push(resolveOne(f, paramText.get(f)));
    for (const v of viewed.values()) if (v.family === f) out.push(resolveViewed(v));
  }
  return out;
}

/** A field name as a registry measure, or the error saying what is wrong and what is near. */
function fieldName(spec: string) {
  let field;
  try {
    field = fieldMeasure(spec);
  } catch (e) {
    if (e instanceof FieldNameError) throw new MeasureSpecError(e.message);
    throw e;
  }
  if (field) return field;
  const asTrec = /^(\w+)@([\d.,]+)$/.exec(spec);
  const near = asTrec && BY_NAME.has(asTrec[1]) ? [`${asTrec[1]}.${asTrec[2]}`] : [...nearestFieldNames(spec), ...suggest(spec.split('.')[0])];
  // A trec_eval-style name is named without its parameters (ndgc_cut.10: 'ndgc_cut'), as trec_eval does.
  const shown = /[@(]/.test(spec) ? spec : spec.split('.')[0];
  throw new MeasureSpecError(
    `unknown measure '${shown}'${near.length ? `: did you mean ${near.map((n) => `'${n}'`).join(' or ')}?` : '.'} ` +
      "Measures are trec_eval's (ndcg_cut.10, recall.100, map, P.10; irw eval --help lists them) or the field's (nDCG@10, R@100, AP, RR@10, P(rel=2)@10, Judged@10)",
  );
}

function resolveViewed(v: Viewed): ResolvedMeasure {
  const m = resolveOne(v.family, v.texts.length ? v.texts : undefined);
  m.view = v.view;
  m.names = v.family.params.kind === 'cutoffs' && v.texts.length ? m.cutoffs.map((c) => v.labels.get(c)!) : [v.labels.values().next().value!];
  if (v.family.params.kind !== 'cutoffs' && new Set(v.texts).size > 1) {
    throw new MeasureSpecError(`${[...v.labels.values()].join(' and ')}: ${v.family.name} takes one set of parameters per evaluation: evaluate them separately`);
  }
  return m;
}

function resolveOne(family: Family, texts: string[] | undefined): ResolvedMeasure {
  const m: ResolvedMeasure = { family, names: [family.name], cutoffs: [], values: [], gains: [], named: {} };
  const p = family.params;
  if (p.kind === 'cutoffs') {
    m.cutoffs = texts ? parseCutoffs(family, texts, p.integer) : [...p.defaults];
    m.names = m.cutoffs.map((c) => `${family.name}_${p.integer ? String(c) : formatFixed(c, 2)}`);
  } else if (p.kind === 'values') {
    m.values = texts ? texts[0].split(',').map((t) => parseNumber(family, t)) : [...p.defaults];
    if (texts) m.names = [`${family.name}_${texts[0]}`];
  } else if (p.kind === 'gains') {
    m.named = { ...p.named };
    if (texts) {
      m.gains = parseGains(family, texts[0], m.named);
      m.names = [`${family.name}_${texts[0]}`];
    }
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

/** name=value pairs: an integer name is a grade's gain, another name one of the family's named values (the last one given wins, as in trec_eval). */
function parseGains(family: Family, text: string, named: Record<string, number>): [number, number][] {
  const gains: [number, number][] = [];
  for (const pair of text.split(',')) {
    const [name, value, extra] = pair.split('=');
    if (value !== undefined && extra === undefined && Object.hasOwn(named, name)) {
      named[name] = parseNumber(family, value);
      continue;
    }
    if (value === undefined || extra !== undefined || !/^-?\d+$/.test(name)) {
      const names = Object.keys(named).map((n) => `${n}=value or `).join('');
      throw new MeasureSpecError(`${family.name}: malformed parameter '${pair}': expected ${names}level=gain, e.g. ${family.name}.${names ? `${Object.keys(named)[0]}=${named[Object.keys(named)[0]]},` : ''}1=1,2=3`);
    }
    gains.push([Number(name), parseNumber(family, value)]);
  }
  return gains;
}

/** The nearest measure names to a mistyped one: `recall_10` (the output name) -> `recall.10`, else by edit distance. */
export function suggest(name: string): string[] {
  const asOutput = /^(.+?)_(\d[\d.,]*)$/.exec(name);
  if (asOutput && BY_NAME.has(asOutput[1])) return [`${asOutput[1]}.${asOutput[2]}`];
  return nearest(name, [...Object.keys(NICKNAMES), ...FAMILIES.map((f) => f.name)]);
}
