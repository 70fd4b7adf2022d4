import type { MeasureContext, QueryRels } from '../relevance';

/** recall.k: relevant in the top k over all relevant. */
export function recallAt(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  if (q.numRel === 0) return;
  let ci = 0;
  let relSoFar = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = relSoFar / q.numRel;
      if (++ci === cutoffs.length) return;
    }
    if (q.rels[i] >= ctx.relevanceLevel) relSoFar++;
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = relSoFar / q.numRel;
}

/**
 * recall_cap.k (BEIR's R_cap@k; not in trec_eval): relevant in the top k over min(R, k), so a query with more
 * relevant documents than k can still reach 1.
 */
export function cappedRecallAt(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  if (q.numRel === 0) return;
  let ci = 0;
  let relSoFar = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = relSoFar / Math.min(q.numRel, cutoffs[ci]);
      if (++ci === cutoffs.length) return;
    }
    if (q.rels[i] >= ctx.relevanceLevel) relSoFar++;
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = relSoFar / Math.min(q.numRel, cutoffs[ci]);
}

/** set_recall: relevant retrieved over relevant. */
export function setRecall(q: QueryRels): number {
  return q.numRel ? q.numRelRet / q.numRel : 0;
}

/** set_F.beta: (beta + 1) P R / (beta P + R) over the whole retrieved set; beta defaults to 1. */
export function setF(q: QueryRels, _ctx: MeasureContext, params: readonly number[]): number {
  if (!q.numRelRet) return 0;
  const beta = params[0];
  const p = q.numRelRet / q.numRet;
  const r = q.numRelRet / q.numRel;
  return ((beta + 1) * p * r) / (beta * p + r);
}
