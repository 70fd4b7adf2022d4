import { prepareHoles, queryDelta, summarise, type HoleScorer, type HoleSet, type QueryDelta } from '../../src/core/eval/holes';
import { Qrels } from '../../src/core/formats/qrels';
import { Run } from '../../src/core/formats/run';

/**
 * How far any judging order can be from the exact minimum, and why issue 23's sound-mode goals (at most 1.3x
 * the exact minimum on near-ties, 1.15x elsewhere) cannot hold for every comparison.
 *
 * The exact minimum is the fewest judgements that settle a comparison when the hidden grades are known (an
 * oracle picks them). A real order does not know them: it only learns a hole's grade by judging it. Over a
 * family of equally likely truths, the best such order (adaptive, given the family) is found by dynamic
 * programming over what has been judged and what it showed; a randomized order is an average of deterministic
 * ones, so it does no better (Yao's principle). If that best average exceeds c times the exact minimum of every
 * truth, then every order needs more than c times the exact minimum on some truth of the family.
 */

/** Both lists' holes of every query, flattened: [query index, hole index] (the order of a truth's grades). */
export function holesOf(set: HoleSet): (readonly [number, number])[] {
  return set.queries.flatMap((q, qi) => q.holes.map((_, h) => [qi, h] as const));
}

/** Grades of the holes in `mask` from `truth` (holes in the order of holesOf), the rest unjudged. */
function judge(set: HoleSet, holes: readonly (readonly [number, number])[], truth: ArrayLike<number>, mask: number): void {
  holes.forEach(([qi, h], i) => (set.queries[qi].grades[h] = (mask >> i) & 1 ? truth[i] : -1));
}

/** Whether lists 0 and 1 are settled under the set's grades; each query's range is kept by its grades. */
function settledCheck(set: HoleSet, s: HoleScorer): () => boolean {
  const memo = set.queries.map(() => new Map<string, QueryDelta>());
  return () => {
    const deltas = set.queries.map((q, qi) => {
      const key = q.grades.join(',');
      let d = memo[qi].get(key);
      if (!d) memo[qi].set(key, (d = queryDelta(q, 0, 1, s)));
      return d;
    });
    return summarise(set, 0, 1, s.name, deltas).verdict === 'settled';
  };
}

/**
 * The fewest holes whose true grades settle lists 0 and 1 of `set`, over every subset (2^holes comparisons:
 * small cases only). `truth[i]` is the grade of holesOf(set)[i]. Leaves every hole unjudged.
 */
export function exactMinimum(set: HoleSet, s: HoleScorer, truth: ArrayLike<number>): number {
  const holes = holesOf(set);
  if (holes.length > 20) throw new Error(`exactMinimum: ${holes.length} holes is too many to enumerate`);
  const settled = settledCheck(set, s);
  let min = Infinity;
  for (let mask = 0; mask < 1 << holes.length; mask++) {
    let size = 0;
    for (let x = mask; x; x &= x - 1) size++;
    if (size >= min) continue;
    judge(set, holes, truth, mask);
    if (settled()) min = size;
  }
  judge(set, holes, truth, 0);
  return min;
}

/**
 * The fewest judgements, on average over the equally likely `truths` (each a grade per hole, as exactMinimum's),
 * that an order which learns grades only by judging needs to settle lists 0 and 1 of `set`: the best adaptive
 * order, by dynamic programming over (holes judged, truths still consistent with the grades seen). Every truth
 * must settle once all its holes are judged. Leaves every hole unjudged.
 */
export function onlineMinimum(set: HoleSet, s: HoleScorer, truths: readonly ArrayLike<number>[]): number {
  const holes = holesOf(set);
  if (holes.length > 22 || truths.length > 30) throw new Error('onlineMinimum: too large to search');
  const settled = settledCheck(set, s);
  const memo = new Map<number, number>();
  const all = (1 << truths.length) - 1;
  const best = (mask: number, consistent: number): number => {
    const key = mask * 2 ** 30 + consistent;
    const known = memo.get(key);
    if (known !== undefined) return known;
    // The judged grades are the same in every consistent truth, so any of them tells whether it is settled.
    judge(set, holes, truths[31 - Math.clz32(consistent & -consistent)], mask);
    let value = 0;
    if (!settled()) {
      const members = truths.flatMap((_, t) => ((consistent >> t) & 1 ? [t] : []));
      value = Infinity;
      holes.forEach((_, i) => {
        if ((mask >> i) & 1) return;
        const byGrade = new Map<number, number>();
        for (const t of members) byGrade.set(truths[t][i], (byGrade.get(truths[t][i]) ?? 0) | (1 << t));
        let expected = 1;
        for (const part of byGrade.values()) {
          let size = 0;
          for (let x = part; x; x &= x - 1) size++;
          expected += (size / members.length) * best(mask | (1 << i), part);
        }
        value = Math.min(value, expected);
      });
      if (value === Infinity) throw new Error('onlineMinimum: a truth does not settle with every hole judged');
    }
    memo.set(key, value);
    return value;
  };
  const v = best(0, all);
  judge(set, holes, truths[0], 0);
  return v;
}

/**
 * Comparisons no order can settle within 1.3x the exact minimum on every truth. m queries alike: run a ranks a
 * hole A_q 10th, run b a hole B_q 1st, and both rank the query's one judged relevant document 3rd. `filler`
 * fully judged queries both runs answer alike set the size of the difference. In truth i, A_i is the one
 * relevant hole (the needle): a leads by nDCG@10 0.177 / (m + filler), a near-tie with 40 filler queries and
 * m = 6, over 0.01 with 11. Settling needs every B_q judged (each unjudged one can be relevant, worth more than
 * A_i) and A_i found; an order that does not know i finds it after (m + 1) / 2 of the A holes on average,
 * whatever it does.
 */
export function needleFamily(m: number, filler: number) {
  const judgements: { qid: string; docid: string; grade: number }[] = [];
  const rankings: [string, string[], number[]][][] = [[], []];
  const scores = Array.from({ length: 10 }, (_, i) => 10 - i);
  for (let q = 0; q < m + filler; q++) {
    const qid = `q${q}`;
    const n = Array.from({ length: 7 }, (_, i) => `n${i}`);
    for (const d of ['x', ...n]) judgements.push({ qid, docid: d, grade: 0 });
    judgements.push({ qid, docid: 'r', grade: 1 });
    const holed = q < m;
    rankings[0].push([qid, ['x', 'n0', 'r', ...n.slice(1), holed ? 'A' : 'n7'], scores]);
    rankings[1].push([qid, [holed ? 'B' : 'n7', 'n0', 'r', ...n.slice(1), 'x'], scores]);
    if (!holed) judgements.push({ qid, docid: 'n7', grade: 0 });
  }
  const runs = rankings.map((r, i) => Run.fromRankings(`run${i}`, r));
  const set = prepareHoles(Qrels.fromJudgements(judgements), runs, { poolDepth: 10 });
  const holes = set.queries.flatMap((q) => q.holes.map((d) => [q.qid, d] as const));
  const truths = Array.from({ length: m }, (_, i) => Int32Array.from(holes, ([qid, d]) => (qid === `q${i}` && d === 'A' ? 1 : 0)));
  return { set, holes, truths };
}
