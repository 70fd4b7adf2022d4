import { uniform } from '../../random';
import { queryDelta, summarise, type Comparison, type QueryDelta } from './comparison';
import { DELTA_BUDGET, freeHoles } from './interval';
import { judgeHole, type HoleSet } from './pool';
import type { HoleScorer } from './scorer';

/**
 * Judge what decides: holes ordered by how much judging them is sure to narrow the range of the mean
 * difference of an open comparison, in the spirit of Carterette, Allan and Sitaraman (SIGIR 2006, Minimal
 * Test Collections), which judges first the documents whose relevance moves the difference most.
 *
 * A hole's impact is the narrowing it guarantees: the query's range width now minus the widest it can still
 * be once the hole has a grade (the worst case over grades), over the number of queries. The order is blind:
 * an item carries no run, and equal impacts are shuffled with a fixed seed, not left in pool (run, rank)
 * order.
 */

export interface HoleImpact {
  /** Index into set.queries, and of the hole in that query. */
  query: number;
  hole: number;
  qid: string;
  docId: string;
  impact: number;
}

/** Guaranteed narrowing of query q's range for each of its free holes (0 for judged holes). */
export function holeImpacts(set: HoleSet, qi: number, a: number, b: number, s: HoleScorer, budget = DELTA_BUDGET): Float64Array {
  const q = set.queries[qi];
  const out = new Float64Array(q.holes.length);
  const now = queryDelta(q, a, b, s, budget);
  const width = now.hi - now.lo;
  if (width <= 0) return out;
  for (const h of freeHoles(q)) {
    let widest = 0;
    for (const g of s.scale) {
      q.grades[h] = g;
      const d = queryDelta(q, a, b, s, budget);
      widest = Math.max(widest, d.hi - d.lo);
    }
    q.grades[h] = -1;
    out[h] = Math.max(0, width - widest) / set.queries.length;
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
  private readonly impacts: Float64Array[];
  private readonly ties: Float64Array[];
  private readonly deltas: QueryDelta[];
  private readonly budget: number;
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
    this.impacts = set.queries.map((_, qi) => holeImpacts(set, qi, a, b, scorer, this.budget));
  }

  comparison(): Comparison {
    return summarise(this.set, this.a, this.b, this.scorer.name, this.deltas);
  }

  /** Every unjudged hole, highest impact first. */
  order(): HoleImpact[] {
    const out: (HoleImpact & { tie: number })[] = [];
    this.set.queries.forEach((q, qi) =>
      q.grades.forEach((g, h) => {
        if (g < 0) out.push({ query: qi, hole: h, qid: q.qid, docId: q.holes[h], impact: this.impacts[qi][h], tie: this.ties[qi][h] });
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
        const impact = this.impacts[qi][h];
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
    this.impacts[query] = holeImpacts(this.set, query, this.a, this.b, this.scorer, this.budget);
  }
}
