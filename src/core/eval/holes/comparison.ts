import type { PairedTestEntry } from '../stats';
import { assignmentCount, forEachAssignment, forEachSortedAssignment } from './enumerate';
import { DEFAULT_BUDGET, DELTA_BUDGET, freeHoles, holeRanks, queryInterval, rankOrdered, type RunIntervals, type ScoreInterval } from './interval';
import type { HoleQuery, HoleSet } from './pool';
import type { HoleScorer } from './scorer';

/**
 * Settled or open: the range of the difference a - b over every assignment of grades to the holes, the same
 * assignment for both runs (documents are shared). Queries are independent, so the range of the mean
 * difference is the mean of the per-query ranges, and each end is reached by one assignment.
 *
 * Per query, exact for any number of holes where the difference is linear in the holes' gains over a shared
 * denominator (LINEAR: nDCG over the same ideal DCG, precision over k, recall over the same R): for a fixed
 * count of holes per grade, the extremes give the highest grades to the holes with the largest (smallest)
 * weight in a minus weight in b. recip_rank has its own exact argument (below). Other measures are
 * enumerated up to `budget` assignments (holes neither run retrieves only count by grade), else bounded by
 * the two runs' own intervals (lo a - hi b, hi a - lo b; sound, exact: false).
 */
const LINEAR = new Set(['ndcg', 'ndcg_cut', 'P', 'recall', 'recall_cap']);

export interface QueryDelta {
  qid: string;
  /** a - b with holes non-relevant (trec_eval). */
  value: number;
  lo: number;
  hi: number;
  exact: boolean;
  holes: number;
}

export type Verdict = 'settled' | 'open';

export interface Comparison {
  a: string;
  b: string;
  measure: string;
  /** Mean of a - b with holes non-relevant. */
  mean: number;
  lo: number;
  hi: number;
  exact: boolean;
  queries: QueryDelta[];
  /** Settled when no assignment can change the sign of the mean difference (or it is 0 under all of them). */
  verdict: Verdict;
  /** 1: a better under every assignment, -1: b better, 0: open or a tie under every assignment. */
  direction: 1 | -1 | 0;
  /** Queries whose difference the holes can still move, and their unjudged holes (0 when settled). */
  openQueries: number;
  openHoles: number;
}

/** Differences within this are float noise, not a difference. */
const EPS = 1e-12;

/** The weight a hole's gain has in the measure's numerator for list r: the discount, or 1 within the cutoff. */
function weights(q: HoleQuery, r: number, s: HoleScorer): Float64Array {
  const ranks = holeRanks(q, r);
  const cutoff = s.measure.cutoffs.length ? s.measure.cutoffs[0] : Infinity;
  const nDcg = s.family === 'ndcg' || s.family === 'ndcg_cut';
  return Float64Array.from(ranks, (k) => (k < 0 || k >= cutoff ? 0 : nDcg ? 1 / Math.log2(k + 2) : 1));
}

/** `known(r)`: run r's interval for this query if the caller has it (it is not computed again). */
export function queryDelta(q: HoleQuery, a: number, b: number, s: HoleScorer, budget = DELTA_BUDGET, known?: (r: number) => ScoreInterval | undefined): QueryDelta {
  const value = s.score(q, a, q.grades) - s.score(q, b, q.grades);
  const free = freeHoles(q);
  const base = { qid: q.qid, value, holes: free.length };
  if (free.length === 0) return { ...base, lo: value, hi: value, exact: true };
  const grades = Int32Array.from(q.grades);
  let lo = Infinity;
  let hi = -Infinity;
  const visit = (): void => {
    const v = s.score(q, a, grades) - s.score(q, b, grades);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  if (LINEAR.has(s.family) && rankOrdered(s)) {
    const wa = weights(q, a, s);
    const wb = weights(q, b, s);
    const order = [...free].sort((x, y) => wa[y] - wb[y] - (wa[x] - wb[x]));
    forEachSortedAssignment(order, s.scale, grades, visit);
    return { ...base, lo, hi, exact: true };
  }
  if (s.family === 'recip_rank') {
    // Only a's best relevant hole can raise a's side, and any more relevant holes only raise b's: the
    // extremes judge at most one hole relevant. The minimum is the same argument with a and b swapped.
    const rel = s.scale[s.scale.length - 1];
    visit();
    for (const h of free) {
      grades[h] = rel;
      visit();
      grades[h] = 0;
    }
    return { ...base, lo, hi, exact: true };
  }
  const ra = holeRanks(q, a);
  const rb = holeRanks(q, b);
  const placed = free.filter((h) => ra[h] >= 0 || rb[h] >= 0);
  const pooled = free.filter((h) => ra[h] < 0 && rb[h] < 0);
  if (assignmentCount(placed.length, pooled.length, s.scale.length) <= budget) {
    forEachAssignment(placed, pooled, s.scale, grades, visit);
    return { ...base, lo, hi, exact: true };
  }
  const ia = known?.(a) ?? queryInterval(q, a, s, DEFAULT_BUDGET);
  const ib = known?.(b) ?? queryInterval(q, b, s, DEFAULT_BUDGET);
  return { ...base, lo: ia.lo - ib.hi, hi: ia.hi - ib.lo, exact: false };
}

/** `known[r]`: run r's runIntervals() for this measure, where the caller has them (a results table's cells). */
export function compareUnderHoles(set: HoleSet, a: number, b: number, s: HoleScorer, budget = DELTA_BUDGET, known?: readonly (RunIntervals | undefined)[]): Comparison {
  return summarise(set, a, b, s.name, set.queries.map((q, i) => queryDelta(q, a, b, s, budget, known && ((r) => known[r]?.queries[i]))));
}

/** The comparison from per-query ranges (e.g. after re-ranging the one query a judgement changed). */
export function summarise(set: HoleSet, a: number, b: number, measure: string, queries: QueryDelta[]): Comparison {
  return summariseColumns(set, a, b, measure, queries, deltaColumns(queries));
}

/** Per-query differences as columns, in the order of a QueryDelta[] (exact: 1 or 0). */
export interface DeltaColumns {
  value: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  exact: Uint8Array;
  holes: Int32Array;
}

export function deltaColumns(queries: readonly QueryDelta[]): DeltaColumns {
  const n = queries.length;
  const c = { value: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n), exact: new Uint8Array(n), holes: new Int32Array(n) };
  queries.forEach((d, i) => setDeltaRow(c, i, d));
  return c;
}

/** Row i of the columns becomes `d` (a caller keeping them in step with its deltas). */
export function setDeltaRow(c: DeltaColumns, i: number, d: QueryDelta): void {
  c.value[i] = d.value;
  c.lo[i] = d.lo;
  c.hi[i] = d.hi;
  c.exact[i] = d.exact ? 1 : 0;
  c.holes[i] = d.holes;
}

/** Rows `at` of the columns, in that order. */
export function deltaRows(c: DeltaColumns, at: readonly number[]): DeltaColumns {
  return {
    value: Float64Array.from(at, (i) => c.value[i]),
    lo: Float64Array.from(at, (i) => c.lo[i]),
    hi: Float64Array.from(at, (i) => c.hi[i]),
    exact: Uint8Array.from(at, (i) => c.exact[i]),
    holes: Int32Array.from(at, (i) => c.holes[i]),
  };
}

/**
 * summarise() from `queries` as columns (a caller that keeps them in step with the deltas spares walking the
 * objects): the same sums in the same order, so the same figures.
 */
export function summariseColumns(set: HoleSet, a: number, b: number, measure: string, queries: QueryDelta[], c: DeltaColumns): Comparison {
  const count = c.value.length;
  const n = count || 1;
  let mean = 0;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < count; i++) {
    mean += c.value[i] / n;
    lo += c.lo[i] / n;
    hi += c.hi[i] / n;
  }
  const direction = lo > EPS ? 1 : hi < -EPS ? -1 : 0;
  const settled = direction !== 0 || hi - lo <= EPS;
  let exact = true;
  for (let i = 0; i < count && exact; i++) exact = c.exact[i] === 1;
  let openQueries = 0;
  let openHoles = 0;
  for (let i = 0; i < count && !settled; i++) {
    if (c.hi[i] - c.lo[i] > EPS) {
      openQueries++;
      openHoles += c.holes[i];
    }
  }
  return {
    a: set.runIds[a],
    b: set.runIds[b],
    measure,
    mean,
    lo,
    hi,
    exact,
    queries,
    verdict: settled ? 'settled' : 'open',
    direction,
    openQueries,
    openHoles,
  };
}

/** The meter's sentence. */
export function meter(c: Comparison, judged?: number): string {
  if (c.verdict === 'open') return `comparison open: ${c.openHoles} holes in ${c.openQueries} queries can still flip it`;
  const who = c.direction === 1 ? `${c.a} better` : c.direction === -1 ? `${c.b} better` : 'a tie';
  return `settled: ${who} under every judgement of the holes${judged === undefined ? '' : ` (after ${judged} judgements)`}`;
}

export interface SignificanceUnderHoles {
  /** p of the per-query differences with holes non-relevant. */
  p: number;
  /** p when every query takes its lowest, resp. highest, difference (each a real assignment of the holes). */
  pAtLo: number;
  pAtHi: number;
  significant: boolean;
  /**
   * Significant now, and at one of the two extreme assignments not significant or significant the other way
   * (the mean difference changes sign): judging can lose it. Not significant now, and significant at one:
   * judging can gain it. Both are certain (a witness assignment exists); a false
   * answer only says that neither extreme changes the verdict, since p need not be monotone in the holes.
   */
  canLose: boolean;
  canGain: boolean;
}

export function significanceUnderHoles(c: Comparison, test: PairedTestEntry, alpha = 0.05, options: SignificanceOptions = {}): SignificanceUnderHoles {
  return significanceOf(c, deltaColumns(c.queries), test, alpha, options);
}

export interface SignificanceOptions {
  /** The test's seed (the randomization test's), as the table's own test is seeded. */
  seed?: number;
  /**
   * This comparison's corrected p from a raw one, the other comparisons' p as they are (Holm, BH ...): the
   * significance that can be lost or gained is the corrected one the table shows. Default: none.
   */
  adjust?: (p: number) => number;
}

/**
 * significanceUnderHoles() from the per-query differences, lows and highs of `c.queries` as columns (a caller
 * that keeps them so spares three copies of every query's figures).
 */
export function significanceOf(
  c: Pick<Comparison, 'mean' | 'lo' | 'hi'>,
  perQuery: { value: ArrayLike<number>; lo: ArrayLike<number>; hi: ArrayLike<number> },
  test: PairedTestEntry,
  alpha = 0.05,
  options: SignificanceOptions = {},
): SignificanceUnderHoles {
  const zeros = new Float64Array(perQuery.value.length);
  const adjust = options.adjust ?? ((x: number) => x);
  const at = (v: ArrayLike<number>) => adjust(test.p(v, zeros, options.seed === undefined ? undefined : { seed: options.seed }));
  const p = at(perQuery.value);
  const pAtLo = at(perQuery.lo);
  const pAtHi = at(perQuery.hi);
  const significant = p <= alpha;
  // A significant win that turns into a significant loss is lost too, not kept.
  const sign = Math.sign(c.mean);
  const anyInsignificant = pAtLo > alpha || pAtHi > alpha || Math.sign(c.lo) !== sign || Math.sign(c.hi) !== sign;
  const anySignificant = pAtLo <= alpha || pAtHi <= alpha;
  return { p, pAtLo, pAtHi, significant, canLose: significant && anyInsignificant, canGain: !significant && anySignificant };
}
