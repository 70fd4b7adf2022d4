import type { MeasureContext, QueryRels } from '../relevance';

/** P.k: relevant in the top k over k (missing ranks count as non-relevant). */
export function precisionAt(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  let ci = 0;
  let relSoFar = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = relSoFar / i;
      if (++ci === cutoffs.length) return;
    }
    if (q.rels[i] >= ctx.relevanceLevel) relSoFar++;
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = relSoFar / cutoffs[ci];
}

/** Rprec: precision after R documents, R = number of relevant documents. */
export function rPrecision(q: QueryRels, ctx: MeasureContext): number {
  let relSoFar = 0;
  for (let i = 0; i < q.numRet && i < q.numRel; i++) if (q.rels[i] >= ctx.relevanceLevel) relSoFar++;
  return q.numRel ? relSoFar / q.numRel : 0;
}

/** recip_rank: 1 / rank of the first relevant document. */
export function reciprocalRank(q: QueryRels, ctx: MeasureContext): number {
  for (let i = 0; i < q.numRet; i++) if (q.rels[i] >= ctx.relevanceLevel) return 1 / (i + 1);
  return 0;
}

/** success.k: 1 if a relevant document is in the top k. */
export function success(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  let ci = 0;
  let relSoFar = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = relSoFar ? 1 : 0;
      if (++ci === cutoffs.length) return;
    }
    if (q.rels[i] >= ctx.relevanceLevel) relSoFar++;
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = relSoFar ? 1 : 0;
}

/** set_P: relevant retrieved over retrieved. */
export function setPrecision(q: QueryRels): number {
  return q.numRet ? q.numRelRet / q.numRet : 0;
}

/**
 * Rprec_mult.x: precision after x * R documents. trec_eval 9 turns x * R into a rank as (long)(x * R + 0.9).
 */
export function rPrecisionMult(q: QueryRels, ctx: MeasureContext, mults: readonly number[], out: Float64Array, at: number): void {
  if (q.numRet === 0) return;
  const cutoffs = mults.map((m) => Math.trunc(m * q.numRel + 0.9));
  let cut = cutoffs.length - 1;
  while (cut >= 0 && cutoffs[cut] > q.numRet) {
    out[at + cut] = q.numRelRet / cutoffs[cut];
    cut--;
  }
  let relSoFar = q.numRelRet;
  for (let i = q.numRet; i > 0 && relSoFar > 0; i--) {
    const precis = relSoFar / i;
    while (cut >= 0 && i === cutoffs[cut]) {
      out[at + cut] = precis;
      cut--;
    }
    if (q.rels[i - 1] >= ctx.relevanceLevel) relSoFar--;
  }
}

/**
 * iprec_at_recall.x: interpolated precision (max precision at any rank at or below) at recall x. trec_eval 9
 * turns x into a number of relevant documents as (long)(x * R + 0.9).
 */
export function interpolatedPrecision(q: QueryRels, ctx: MeasureContext, recalls: readonly number[], out: Float64Array, at: number): void {
  if (q.numRet === 0) return;
  const cutoffs = recalls.map((r) => Math.trunc(r * q.numRel + 0.9));
  let cut = cutoffs.length - 1;
  while (cut >= 0 && cutoffs[cut] > q.numRelRet) cut--;
  let intPrecis = q.numRelRet / q.numRet;
  let relSoFar = q.numRelRet;
  for (let i = q.numRet; i > 0 && relSoFar > 0; i--) {
    const precis = relSoFar / i;
    if (intPrecis < precis) intPrecis = precis;
    if (q.rels[i - 1] >= ctx.relevanceLevel) {
      while (cut >= 0 && relSoFar === cutoffs[cut]) {
        out[at + cut] = intPrecis;
        cut--;
      }
      relSoFar--;
    }
  }
  for (; cut >= 0; cut--) out[at + cut] = intPrecis;
}
