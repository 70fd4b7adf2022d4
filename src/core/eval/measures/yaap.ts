import { exactLog } from '../exactLog';
import { precisionSum } from './map';
import type { MeasureContext, QueryRels } from '../relevance';

/**
 * yaap (trec_eval m_yaap.c; Robertson, "On Smoothing Average Precision", ECIR 2012): with s the sum of
 * precision at each relevant retrieved document (average precision before dividing by R),
 * log((1 + s) / (1 + R - s)). Monotonic with AP on one query but finite at AP 0 and 1, so it averages better.
 */
export function yaap(q: QueryRels, ctx: MeasureContext): number {
  const sum = precisionSum(q, ctx);
  return exactLog((1 + sum) / (1 + q.numRel - sum));
}
