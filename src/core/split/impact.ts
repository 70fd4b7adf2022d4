import { HoleScorer, ImpactQueue, prepareHoles } from '../eval/holes';
import type { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import { RANGED } from './holeRanges';
import type { SplitState } from './state';

/**
 * The judging loop's impact order for two runs (a, b) of the pool, kept in step with the judgements: each
 * sync hands the queue the grades the user gave to its holes since (and takes back undone ones), which
 * re-ranges only their queries. Holes are those of the qrels in effect when the queue was made.
 */
export class ImpactJudging {
  readonly queue: ImpactQueue;
  private qrels: Qrels;

  constructor(qrels: Qrels, runs: readonly [Run, Run], depth: number, scale: readonly number[], relevanceLevel: number, column = 'ndcg_cut_10') {
    this.qrels = qrels;
    const set = prepareHoles(qrels, runs, { poolDepth: depth });
    this.queue = new ImpactQueue(set, 0, 1, new HoleScorer(RANGED[column], scale, relevanceLevel));
  }

  /** Brings the queue's hole grades to those of `qrels` (the user's judgements and undos). */
  sync(qrels: Qrels): void {
    if (qrels === this.qrels) return;
    this.qrels = qrels;
    this.queue.set.queries.forEach((q, qi) =>
      q.holes.forEach((docId, h) => {
        const g = qrels.grade(q.qid, docId);
        const grade = g === undefined || g < 0 ? -1 : g;
        if (grade !== q.grades[h]) this.queue.judge(qi, h, grade);
      }),
    );
  }

  /** Unjudged holes of the two runs, in impact order (blind: no run, no impact). */
  items(): { queryId: string; docId: string }[] {
    return this.queue.order().map((i) => ({ queryId: i.qid, docId: i.docId }));
  }

  /** Holes of the two runs judged since the queue was made. */
  get judged(): number {
    let n = 0;
    for (const q of this.queue.set.queries) for (const g of q.grades) if (g >= 0) n++;
    return n;
  }
}

/** The impact queue of runs a and b pooled at `depth`, kept (and synced with the judgements) while they stay the same. */
export function impactJudging(state: SplitState, a: string, b: string, depth: number): ImpactJudging {
  const j = state.keep(`impact:${depth}`, [a, b], (runs) => new ImpactJudging(state.qrels('annotated'), [runs[0], runs[1]], depth, state.gradeScale(), state.relevanceLevel));
  j.sync(state.qrels('annotated'));
  return j;
}
