import type { MeasureContext, QueryRels } from '../relevance';

/** trec_eval's MIN_GEO_MEAN: the floor for gm_map, so a zero AP does not zero the geometric mean. */
export const MIN_GEO_MEAN = 0.00001;

/** Precision at each relevant retrieved document, summed: average precision before dividing by R (yaap uses it too). */
export function precisionSum(q: QueryRels, ctx: MeasureContext): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (q.rels[i] >= ctx.relevanceLevel) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  return sum;
}

/** Average precision: precision at each relevant retrieved document, summed, over all relevant documents. */
export function averagePrecision(q: QueryRels, ctx: MeasureContext): number {
  const sum = precisionSum(q, ctx);
  return q.numRel ? sum / q.numRel : 0;
}

/** gm_map's per-query value is log(max(AP, MIN_GEO_MEAN)); the summary is exp of the mean. */
export function logAveragePrecision(q: QueryRels, ctx: MeasureContext): number {
  return Math.log(Math.max(averagePrecision(q, ctx), MIN_GEO_MEAN));
}

/** map_cut.k: AP over the top k, still normalised by all relevant documents. */
export function mapCut(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  if (q.numRel === 0) return;
  let ci = 0;
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = sum / q.numRel;
      if (++ci === cutoffs.length) return;
    }
    if (q.rels[i] >= ctx.relevanceLevel) {
      relSoFar++;
      sum += relSoFar / (i + 1);
    }
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = sum / q.numRel;
}
