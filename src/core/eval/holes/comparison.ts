import type { PairedTestEntry } from '../stats';
import { assignmentCount, forEachAssignment, forEachSortedAssignment } from './enumerate';
import { DEFAULT_BUDGET, DELTA_BUDGET, freeHoles, holeRanks, queryInterval, rankOrdered, summariseRun, type RunIntervals, type ScoreInterval } from './interval';
import type { HoleQuery, HoleSet } from './pool';
import { listKey, QueryListValues, type HoleScorer } from './scorer';

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
  /**
   * Holes whose grade can change a - b under some grading of the others (0 when the range is one value): a
   * hole in both top 10s moves neither side of P@10. What "N holes can flip it" counts.
   */
  movers: number;
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
  /** Queries whose difference the holes can still move, and the holes that can move it there (0 when settled). */
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

/**
 * `known(r)`: run r's interval for this query if the caller has it (it is not computed again); `moverBudget`:
 * gradings of the other holes searched per hole for `movers` where no witness or rule decides; `values`: the
 * query's list values other pairs have scored (the same scorer and query).
 */
export function queryDelta(
  q: HoleQuery,
  a: number,
  b: number,
  s: HoleScorer,
  budget = DELTA_BUDGET,
  known?: (r: number) => ScoreInterval | undefined,
  moverBudget = budget,
  values: QueryListValues = new QueryListValues(s, q),
): QueryDelta {
  values.check(s, q);
  const free = freeHoles(q);
  const at = lowOrOneDelta(q, a, b, s, free, values);
  const value = at(q.grades);
  const base = { qid: q.qid, value, holes: free.length };
  if (free.length === 0) return { ...base, lo: value, hi: value, exact: true, movers: 0 };
  const grades = Int32Array.from(q.grades);
  let lo = Infinity;
  let hi = -Infinity;
  const visit = (): void => {
    const v = at(grades);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  const linear = LINEAR.has(s.family) && rankOrdered(s);
  const rule = linear ? linearRule(q, a, b, s) : s.family === 'recip_rank' ? unranked(q, a, b) : s.family === 'map' ? rOnly(q, a, b) : undefined;
  const moved = (r: { lo: number; hi: number; exact: boolean }): QueryDelta => ({ ...base, ...r, movers: r.hi - r.lo <= EPS ? 0 : countMovers(q, free, s.scale, at, rule, moverBudget) });
  if (linear) {
    const wa = weights(q, a, s);
    const wb = weights(q, b, s);
    const order = [...free].sort((x, y) => wa[y] - wb[y] - (wa[x] - wb[x]));
    forEachSortedAssignment(order, s.scale, grades, visit);
    return moved({ lo, hi, exact: true });
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
    return moved({ lo, hi, exact: true });
  }
  const ra = holeRanks(q, a);
  const rb = holeRanks(q, b);
  const placed = free.filter((h) => ra[h] >= 0 || rb[h] >= 0);
  const pooled = free.filter((h) => ra[h] < 0 && rb[h] < 0);
  if (assignmentCount(placed.length, pooled.length, s.scale.length) <= budget) {
    forEachAssignment(placed, pooled, s.scale, grades, visit);
    return moved({ lo, hi, exact: true });
  }
  const ia = known?.(a) ?? queryInterval(q, a, s, DEFAULT_BUDGET);
  const ib = known?.(b) ?? queryInterval(q, b, s, DEFAULT_BUDGET);
  return moved({ lo: ia.lo - ib.hi, hi: ia.hi - ib.lo, exact: false });
}

/**
 * a - b under an assignment of grades to q's holes. Where every free hole is at the scale's lowest grade but
 * at most one, each list's value is remembered by that hole's rank in the list, or by its grade alone where
 * the list does not read it (HoleScorer.reads: then any such hole gives the list the same value): countMovers
 * raises each hole alone first, which scored both lists for every hole, and the same value again before each.
 * Both memos are `values`' (the same gradings in every pair of the query): a cheap key for these few, a whole
 * grading's key for the rest.
 */
function lowOrOneDelta(q: HoleQuery, a: number, b: number, s: HoleScorer, free: readonly number[], values: QueryListValues): (g: Int32Array) => number {
  const low = s.scale[0];
  const size = s.scale[s.scale.length - 1] + 1;
  const lists = [a, b];
  const memos = [values.raised(a), values.raised(b)];
  const ranks = lists.map((r) => holeRanks(q, r));
  const score = (l: number, g: Int32Array, raised: number): number => {
    if (raised === -2) return values.score(lists[l], g);
    const rank = raised < 0 ? -1 : ranks[l][raised];
    const key = raised < 0 ? listKey(-2, 0, size) : listKey(s.reads(q.lists[lists[l]], rank) ? rank : -1, g[raised], size);
    let v = memos[l].get(key);
    if (v === undefined) {
      v = s.score(q, lists[l], g);
      memos[l].set(key, v);
    }
    return v;
  };
  return (g) => {
    // -1: every free hole at the lowest grade; h: only hole h above it; -2: neither (not remembered).
    let raised = -1;
    for (const h of free) {
      if (g[h] === low) continue;
      raised = raised === -1 && g[h] > low ? h : -2;
      if (raised === -2) break;
    }
    return score(0, g, raised) - score(1, g, raised);
  };
}

/**
 * What the weights of a measure linear in the holes' gains decide about hole h without a search (LINEAR: the
 * difference is (N + sum of gain(h) (wa(h) - wb(h))) / D, D fixed by the grade counts: k for P, R for recall,
 * the ideal DCG for nDCG): true or false when that settles whether h can move a - b, undefined when it takes
 * a search. P's D is fixed, so a hole moves it exactly when one top k holds it and the other does not; a hole
 * weighing the same in both moves only D, which changes nothing while the numerator is 0 under every grading,
 * nor once D is saturated: k judged documents with the highest gain (nDCG at k: the ideal top k), or k relevant
 * (recall_cap at k: min(R, k)).
 */
const SATURATE = new Set(['ndcg_cut', 'recall_cap']);

function linearRule(q: HoleQuery, a: number, b: number, s: HoleScorer): (h: number, free: readonly number[], value: number) => boolean | undefined {
  const wa = weights(q, a, s);
  const wb = weights(q, b, s);
  const u = (h: number) => wa[h] - wb[h];
  const cutoff = s.measure.cutoffs.length ? s.measure.cutoffs[0] : Infinity;
  const top = s.scale[s.scale.length - 1];
  let best = 0;
  for (let g = top; g < q.relLevels.length; g++) best += q.relLevels[g];
  q.grades.forEach((g) => g >= top && best++);
  return (h, free, value) => {
    if (s.family === 'P') return u(h) !== 0 && s.scale.length > 1;
    if (u(h) !== 0) return undefined;
    if (Math.abs(value) <= EPS && free.every((o) => u(o) === 0)) return false;
    if (SATURATE.has(s.family) && best >= cutoff) return false;
    // A numerator of 0 turns non-zero only with a relevant hole weighing differently: on a binary scale, one
    // more document of the highest grade.
    if (SATURATE.has(s.family) && Math.abs(value) <= EPS && s.scale.length === 2 && best + 1 >= cutoff) return false;
    return undefined;
  };
}

/**
 * recip_rank reads a list down to its first relevant document: a hole below it (or below `depth`, MRR@10's 10)
 * in both runs, or in neither, cannot move a - b.
 */
export function unranked(q: HoleQuery, a: number, b: number, depth = Infinity): (h: number) => boolean | undefined {
  const reach = (r: number): Int32Array => {
    const ranks = holeRanks(q, r);
    const { rels, holeAt } = q.lists[r];
    let first = Math.min(depth, rels.length);
    for (let i = 0; i < first; i++) if ((holeAt[i] >= 0 ? q.grades[holeAt[i]] : rels[i]) >= 1) first = i;
    return ranks.map((k) => (k >= first ? -1 : k));
  };
  const ra = reach(a);
  const rb = reach(b);
  return (h) => (ra[h] < 0 && rb[h] < 0 ? false : undefined);
}

/**
 * Average precision sums precisions at the relevant ranks over R: a hole neither run retrieves changes only R,
 * which moves a - b whenever the sums differ, as they do under some grading wherever the range is not one value.
 */
function rOnly(q: HoleQuery, a: number, b: number): (h: number) => boolean | undefined {
  const ra = holeRanks(q, a);
  const rb = holeRanks(q, b);
  return (h) => (ra[h] < 0 && rb[h] < 0 ? true : undefined);
}

/**
 * The free holes of q whose grade changes `delta` under some grading of the other free holes. A witness is
 * looked for where one usually is (the others at the lowest grade, then one of them raised); a hole with none
 * there is proved immobile by `rule` or by every grading of the others within `budget`, else counted (the
 * count never says fewer holes than can move it).
 */
export function countMovers(
  q: HoleQuery,
  free: readonly number[],
  scale: readonly number[],
  delta: (grades: Int32Array) => number,
  rule?: (h: number, free: readonly number[], value: number) => boolean | undefined,
  budget = DELTA_BUDGET,
): number {
  const low = scale[0];
  const grades = Int32Array.from(q.grades);
  for (const h of free) grades[h] = low;
  const value = delta(grades);
  // Whether some grade of h changes delta with the others as they are in `grades` (h back at the lowest).
  const moves = (h: number): boolean => {
    const d0 = delta(grades);
    let out = false;
    for (const g of scale) {
      if (g === low || out) continue;
      grades[h] = g;
      out = Math.abs(delta(grades) - d0) > EPS;
    }
    grades[h] = low;
    return out;
  };
  let n = 0;
  for (const h of free) {
    const decided = rule?.(h, free, value);
    if (decided !== undefined) {
      if (decided) n++;
      continue;
    }
    const others = free.filter((o) => o !== h);
    let found = moves(h);
    for (const o of others) {
      for (const g of scale) {
        if (g === low || found) continue;
        grades[o] = g;
        found = moves(h);
      }
      grades[o] = low;
      if (found) break;
    }
    if (!found && scale.length ** others.length <= budget) {
      forEachAssignment(others, [], scale, grades, () => {
        if (!found) found = moves(h);
      });
      for (const o of others) grades[o] = low;
    } else if (!found) found = true;
    if (found) n++;
  }
  return n;
}

/** `known[r]`: run r's runIntervals() for this measure, where the caller has them (a results table's cells). */
export function compareUnderHoles(set: HoleSet, a: number, b: number, s: HoleScorer, budget = DELTA_BUDGET, known?: readonly (RunIntervals | undefined)[]): Comparison {
  return comparePairsUnderHoles(set, [[a, b]], s, budget, known)[0];
}

/** compareUnderHoles() of each pair (holeFigures' comparisons). */
export function comparePairsUnderHoles(set: HoleSet, pairs: readonly (readonly [number, number])[], s: HoleScorer, budget = DELTA_BUDGET, known?: readonly (RunIntervals | undefined)[]): Comparison[] {
  return holeFigures(set, [], pairs, s, budget, known).pairs;
}

/**
 * A table's hole figures for one measure, a query at a time: runIntervals() of each of `runs` and
 * compareUnderHoles() of each pair (taking the runs' intervals, or `known`'s). A run's lists are graded the
 * same ways again in its interval and in each pair it is in, and are scored once for all of them
 * (QueryListValues, kept for one query).
 */
export function holeFigures(
  set: HoleSet,
  runs: readonly number[],
  pairs: readonly (readonly [number, number])[],
  s: HoleScorer,
  budget = DELTA_BUDGET,
  known?: readonly (RunIntervals | undefined)[],
): { runs: RunIntervals[]; pairs: Comparison[] } {
  const intervals = runs.map((): (ScoreInterval & { qid: string })[] => []);
  const deltas = pairs.map((): QueryDelta[] => []);
  const at = new Map(runs.map((r, k) => [r, k]));
  set.queries.forEach((q, i) => {
    const values = new QueryListValues(s, q);
    runs.forEach((r, k) => intervals[k].push({ qid: q.qid, ...queryInterval(q, r, s, DEFAULT_BUDGET, values) }));
    const of = (r: number): ScoreInterval | undefined => (at.has(r) ? intervals[at.get(r)!][i] : known?.[r]?.queries[i]);
    pairs.forEach(([a, b], p) => deltas[p].push(queryDelta(q, a, b, s, budget, of, budget, values)));
  });
  return { runs: runs.map((r, k) => summariseRun(set, r, s, intervals[k])), pairs: pairs.map(([a, b], p) => summarise(set, a, b, s.name, deltas[p])) };
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
  movers: Int32Array;
}

export function deltaColumns(queries: readonly QueryDelta[]): DeltaColumns {
  const n = queries.length;
  const c = { value: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n), exact: new Uint8Array(n), holes: new Int32Array(n), movers: new Int32Array(n) };
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
  c.movers[i] = d.movers;
}

/** Rows `at` of the columns, in that order. */
export function deltaRows(c: DeltaColumns, at: readonly number[]): DeltaColumns {
  return {
    value: Float64Array.from(at, (i) => c.value[i]),
    lo: Float64Array.from(at, (i) => c.lo[i]),
    hi: Float64Array.from(at, (i) => c.hi[i]),
    exact: Uint8Array.from(at, (i) => c.exact[i]),
    holes: Int32Array.from(at, (i) => c.holes[i]),
    movers: Int32Array.from(at, (i) => c.movers[i]),
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
      openHoles += c.movers[i];
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
