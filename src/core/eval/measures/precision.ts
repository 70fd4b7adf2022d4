import { relevantCutoff, type MeasureContext, type QueryRels } from '../relevance';

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
 * iprec_at_recall.x: interpolated precision (max precision at any rank at or below) at recall x, x turned
 * into a number of relevant documents as relevantCutoff() says.
 */
export function interpolatedPrecision(q: QueryRels, ctx: MeasureContext, recalls: readonly number[], out: Float64Array, at: number): void {
  const cutoffs = recalls.map((r) => relevantCutoff(ctx, r, q.numRel));
  let cut = cutoffs.length - 1;
  while (cut >= 0 && cutoffs[cut] > q.numRelRet) cut--;
  // With nothing retrieved (-J, -M 0) this is 0 / 0: trec_eval prints -nan for the recall points it reaches.
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

/** set_relative_P: relevant retrieved over min(retrieved, R). */
export function setRelativePrecision(q: QueryRels): number {
  return q.numRet && q.numRel ? q.numRelRet / Math.min(q.numRet, q.numRel) : 0;
}

/** set_map: set precision times set recall (num_rel_ret^2 / (num_ret * R)). */
export function setMap(q: QueryRels): number {
  return q.numRet && q.numRel ? (q.numRelRet * q.numRelRet) / (q.numRet * q.numRel) : 0;
}

/** 11pt_avg: interpolated precision averaged over the given recall points (default 0, 0.1, ..., 1). */
export function elevenPointAverage(q: QueryRels, ctx: MeasureContext, recalls: readonly number[]): number {
  const out = new Float64Array(recalls.length);
  interpolatedPrecision(q, ctx, recalls, out, 0);
  // Summed from the highest recall point down, in trec_eval's order (the last bit can decide a printed digit).
  let sum = 0;
  for (let k = out.length - 1; k >= 0; k--) sum += out[k];
  return sum / recalls.length;
}
