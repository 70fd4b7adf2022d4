import { uniform } from '../../random';
import { queryDelta, summarise, type Comparison, type QueryDelta } from './comparison';
import { DELTA_BUDGET, freeHoles } from './interval';
import { judgeHole, type HoleSet } from './pool';
import type { HoleScorer } from './scorer';

/**
 * Judge what decides: holes ordered by how far judging them is expected to move the end of the range of the
 * mean difference that decides an open comparison, in the spirit of Carterette, Allan and Sitaraman (SIGIR
 * 2006, Minimal Test Collections), which judges first the documents whose relevance can move the difference
 * most. While a leads (mean a - b > 0 with holes non-relevant) the comparison settles when the lower end of
 * the range rises above 0, so a hole's impact is the expected rise of that end once the hole is judged; while
 * b leads, the expected fall of the upper end; at 0, the expected narrowing of the range. The expectation
 * uses a prior over grades: the share of each grade among the top-k documents of the two runs that are
 * judged or holes (holes counted non-relevant), per query averaged over the set.
 *
 * The order is blind: an item carries no run, and equal impacts are shuffled with a fixed seed, not left in
 * pool (run, rank) order.
 */

export interface HoleImpact {
  /** Index into set.queries, and of the hole in that query. */
  query: number;
  hole: number;
  qid: string;
  docId: string;
  impact: number;
}

/** Which end decides: 1 the lower end (a leads), -1 the upper end (b leads), 0 the width. */
export type Side = 1 | -1 | 0;

/** P(grade) for each grade of the scorer's scale, from the top `poolDepth` of lists a and b. */
export function gradePrior(set: HoleSet, a: number, b: number, s: HoleScorer): Float64Array {
  const counts = new Float64Array(s.scale.length);
  for (const q of set.queries) {
    for (const r of [a, b]) {
      const l = q.lists[r];
      for (let i = 0; i < Math.min(set.poolDepth, l.rels.length); i++) {
        const g = l.holeAt[i] >= 0 && q.grades[l.holeAt[i]] >= 0 ? q.grades[l.holeAt[i]] : l.rels[i];
        // The highest grade of the scale not above g (binary measures see every relevant grade as one).
        let k = 0;
        while (k + 1 < s.scale.length && s.scale[k + 1] <= g) k++;
        counts[g < 0 ? 0 : k]++;
      }
    }
  }
  const total = counts.reduce((x, y) => x + y, 0);
  return total ? counts.map((c) => c / total) : Float64Array.from(s.scale, (_, i) => (i === 0 ? 1 : 0));
}

/**
 * Expected movement of each end of query q's range for each of its free holes (0 for judged ones), indexed by
 * side: [width narrowing (side 0), rise of the lower end (side 1), fall of the upper end (side -1)].
 */
export function holeImpacts(
  set: HoleSet,
  qi: number,
  a: number,
  b: number,
  s: HoleScorer,
  prior: Float64Array,
  budget = DELTA_BUDGET,
): [Float64Array, Float64Array, Float64Array] {
  const q = set.queries[qi];
  const out: [Float64Array, Float64Array, Float64Array] = [0, 1, 2].map(() => new Float64Array(q.holes.length)) as [Float64Array, Float64Array, Float64Array];
  const now = queryDelta(q, a, b, s, budget);
  if (now.hi - now.lo <= 0) return out;
  const n = set.queries.length;
  for (const h of freeHoles(q)) {
    s.scale.forEach((g, k) => {
      q.grades[h] = g;
      const d = queryDelta(q, a, b, s, budget);
      out[0][h] += (prior[k] * (now.hi - now.lo - (d.hi - d.lo))) / n;
      out[1][h] += (prior[k] * (d.lo - now.lo)) / n;
      out[2][h] += (prior[k] * (now.hi - d.hi)) / n;
    });
    q.grades[h] = -1;
  }
  return out;
}

export interface QueueOptions {
  /** Seed of the shuffle of equal impacts (default 1). */
  seed?: number;
  budget?: number;
}

/**
 * A judging queue in impact order that stays current: judging a hole re-ranges only its query (queries are
 * independent), and the comparison and meter follow.
 */
export class ImpactQueue {
  private readonly impacts: [Float64Array, Float64Array, Float64Array][];
  private readonly ties: Float64Array[];
  private readonly deltas: QueryDelta[];
  private readonly budget: number;
  private readonly prior: Float64Array;
  private side: Side;
  judged = 0;

  constructor(
    readonly set: HoleSet,
    readonly a: number,
    readonly b: number,
    readonly scorer: HoleScorer,
    options: QueueOptions = {},
  ) {
    this.budget = options.budget ?? DELTA_BUDGET;
    const rand = uniform(options.seed ?? 1);
    this.ties = set.queries.map((q) => Float64Array.from(q.holes, () => rand()));
    this.deltas = set.queries.map((q) => queryDelta(q, a, b, scorer, this.budget));
    this.prior = gradePrior(set, a, b, scorer);
    this.side = this.currentSide();
    this.impacts = set.queries.map((_, qi) => holeImpacts(set, qi, a, b, scorer, this.prior, this.budget));
  }

  private impact(qi: number, h: number): number {
    return this.impacts[qi][this.side === 0 ? 0 : this.side === 1 ? 1 : 2][h];
  }

  private currentSide(): Side {
    const mean = this.comparison().mean;
    return mean > 1e-12 ? 1 : mean < -1e-12 ? -1 : 0;
  }

  comparison(): Comparison {
    return summarise(this.set, this.a, this.b, this.scorer.name, this.deltas);
  }

  /** Every unjudged hole, highest impact first. */
  order(): HoleImpact[] {
    const out: (HoleImpact & { tie: number })[] = [];
    this.set.queries.forEach((q, qi) =>
      q.grades.forEach((g, h) => {
        if (g < 0) out.push({ query: qi, hole: h, qid: q.qid, docId: q.holes[h], impact: this.impact(qi, h), tie: this.ties[qi][h] });
      }),
    );
    out.sort((x, y) => y.impact - x.impact || x.tie - y.tie);
    return out.map(({ tie: _tie, ...item }) => item);
  }

  /** The next hole to judge, or undefined when none is left. */
  next(): HoleImpact | undefined {
    let best: HoleImpact | undefined;
    let bestTie = Infinity;
    this.set.queries.forEach((q, qi) =>
      q.grades.forEach((g, h) => {
        if (g >= 0) return;
        const impact = this.impact(qi, h);
        const tie = this.ties[qi][h];
        if (!best || impact > best.impact || (impact === best.impact && tie < bestTie)) {
          best = { query: qi, hole: h, qid: q.qid, docId: q.holes[h], impact };
          bestTie = tie;
        }
      }),
    );
    return best;
  }

  judge(query: number, hole: number, grade: number): void {
    judgeHole(this.set.queries[query], hole, grade);
    this.judged++;
    this.deltas[query] = queryDelta(this.set.queries[query], this.a, this.b, this.scorer, this.budget);
    // If the lead changed hands, every hole's impact is about the other end now: impacts keep both ends.
    this.side = this.currentSide();
    this.impacts[query] = holeImpacts(this.set, query, this.a, this.b, this.scorer, this.prior, this.budget);
  }
}
