import { assignmentCount, forEachAssignment, forEachSortedAssignment } from './enumerate';
import type { HoleQuery, HoleSet, RankedList } from './pool';
import type { HoleScorer, QueryListValues } from './scorer';

/**
 * Score intervals under holes. For one run and query: the trec_eval value (holes non-relevant), the judged-only
 * value (-J), and the tightest range over every assignment of the measure's grades to the free holes.
 *
 * Exact for any number of holes where a rearrangement argument holds: for the measures in RANK_ORDER, once
 * it is fixed how many holes get each grade (which fixes the ideal ranking and the number of relevant
 * documents), the value only grows when a higher grade moves to a better-ranked hole, so the extremes are the
 * two sorted assignments of each count vector (nDCG is not monotone in a hole's grade, but it is in this
 * rearrangement). Other measures are enumerated exactly up to `budget` assignments (holes the run does not
 * retrieve only count by grade), else bounded by the measure's range [0, 1] (exact: false).
 */

export const RANK_ORDER = new Set(['ndcg', 'ndcg_cut', 'P', 'recall', 'recall_cap', 'map', 'map_cut', 'recip_rank', 'success', 'Rprec', 'set_P', 'set_recall', 'set_F']);
/** Families whose values lie in [0, 1] whatever the judgements (the fallback bound). */
const UNIT = new Set([...RANK_ORDER, 'bpref', 'infAP', 'iprec_at_recall', 'Rprec_mult']);

/** Default largest number of assignments enumerated for one query: every assignment of 16 binary holes. */
export const DEFAULT_BUDGET = 1 << 16;
/**
 * For differences without a shortcut (map and the like) each assignment scores two full rankings: enumerate
 * up to 12 binary holes by default so a table stays interactive; beyond, the bound of the two intervals.
 */
export const DELTA_BUDGET = 1 << 12;

export interface ScoreInterval {
  /** Holes non-relevant: trec_eval's figure. */
  value: number;
  /** Unjudged documents removed from the ranking (trec_eval -J). */
  judgedOnly: number;
  lo: number;
  hi: number;
  /** False when the range is a bound (too many holes to enumerate for a measure without a shortcut). */
  exact: boolean;
  /** Holes of the query not judged yet. */
  holes: number;
}

export function freeHoles(q: HoleQuery): number[] {
  const out: number[] = [];
  q.grades.forEach((g, h) => g < 0 && out.push(h));
  return out;
}

const ranksOf = new WeakMap<RankedList, Int32Array>();

/**
 * Rank of each hole in list r (0-based), -1 where the run does not retrieve it. Worked out once per list (a
 * list's holes never move; the comparisons, estimates and their rules asked again for every pair, measure and
 * query): the array is shared, read it only.
 */
export function holeRanks(q: HoleQuery, r: number): Int32Array {
  const list = q.lists[r];
  let ranks = ranksOf.get(list);
  if (ranks === undefined || ranks.length !== q.holes.length) {
    ranks = new Int32Array(q.holes.length).fill(-1);
    const at = list.holeAt;
    for (let i = 0; i < at.length; i++) if (at[i] >= 0) ranks[at[i]] = i;
    ranksOf.set(list, ranks);
  }
  return ranks;
}

/** True when the family can use the rearrangement shortcut (nDCG with explicit gains may reorder grades). */
export function rankOrdered(s: HoleScorer): boolean {
  return RANK_ORDER.has(s.family) && s.measure.gains.length === 0;
}

/** `values`: the query's list values other intervals and comparisons have scored (the same scorer and query). */
export function queryInterval(q: HoleQuery, r: number, s: HoleScorer, budget = DEFAULT_BUDGET, values?: QueryListValues): ScoreInterval {
  values?.check(s, q);
  const value = s.score(q, r, q.grades);
  const judgedOnly = s.score(q, r, q.grades, true);
  const free = freeHoles(q);
  if (free.length === 0) return { value, judgedOnly, lo: value, hi: value, exact: true, holes: 0 };
  const grades = Int32Array.from(q.grades);
  let lo = Infinity;
  let hi = -Infinity;
  const visit = (): void => {
    const v = values ? values.score(r, grades) : s.score(q, r, grades);
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  };
  const ranks = holeRanks(q, r);
  if (rankOrdered(s)) {
    const byRank = [...free].sort((x, y) => (ranks[x] < 0 ? Infinity : ranks[x]) - (ranks[y] < 0 ? Infinity : ranks[y]));
    forEachSortedAssignment(byRank, s.scale, grades, visit);
    return { value, judgedOnly, lo, hi, exact: true, holes: free.length };
  }
  const placed = free.filter((h) => ranks[h] >= 0);
  const pooled = free.filter((h) => ranks[h] < 0);
  if (assignmentCount(placed.length, pooled.length, s.scale.length) <= budget) {
    forEachAssignment(placed, pooled, s.scale, grades, visit);
    return { value, judgedOnly, lo, hi, exact: true, holes: free.length };
  }
  const unit = UNIT.has(s.family);
  return { value, judgedOnly, lo: unit ? 0 : -Infinity, hi: unit ? 1 : Infinity, exact: false, holes: free.length };
}

export interface RunIntervals {
  runId: string;
  measure: string;
  queries: (ScoreInterval & { qid: string })[];
  /** Means over every query of the set; lo and hi are exact ranges of the mean (queries are independent). */
  mean: ScoreInterval;
}

export function runIntervals(set: HoleSet, r: number, s: HoleScorer, budget = DEFAULT_BUDGET): RunIntervals {
  return summariseRun(set, r, s, set.queries.map((q) => ({ qid: q.qid, ...queryInterval(q, r, s, budget) })));
}

/** Run r's intervals from its queries' (in the set's order). */
export function summariseRun(set: HoleSet, r: number, s: HoleScorer, queries: (ScoreInterval & { qid: string })[]): RunIntervals {
  const n = queries.length || 1;
  const sum = (f: (x: ScoreInterval) => number): number => queries.reduce((acc, x) => acc + f(x), 0) / n;
  return {
    runId: set.runIds[r],
    measure: s.name,
    queries,
    mean: {
      value: sum((x) => x.value),
      judgedOnly: sum((x) => x.judgedOnly),
      lo: sum((x) => x.lo),
      hi: sum((x) => x.hi),
      exact: queries.every((x) => x.exact),
      holes: queries.reduce((acc, x) => acc + x.holes, 0),
    },
  };
}
