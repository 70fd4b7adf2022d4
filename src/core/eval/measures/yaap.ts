import { exactLog } from '../exactLog';
import type { MeasureContext, QueryRels } from '../relevance';

/**
 * yaap (trec_eval m_yaap.c; Robertson, "On Smoothing Average Precision", ECIR 2012): with s the sum of
 * precision at each relevant retrieved document (average precision before dividing by R),
 * log((1 + s) / (1 + R - s)). Monotonic with AP on one query but finite at AP 0 and 1, so it averages better.
 */
export function yaap(q: QueryRels, ctx: MeasureContext): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (q.rels[i] >= ctx.relevanceLevel) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return exactLog((1 + sum) / (1 + q.numRel - sum));
}
