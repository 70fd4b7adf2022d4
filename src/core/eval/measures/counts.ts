import type { MeasureContext, QueryRels } from '../relevance';

/** num_ret, num_rel, num_rel_ret: counts, summed (not averaged) over queries. */
export function numRet(q: QueryRels): number {
  return q.numRet;
}

export function numRel(q: QueryRels): number {
  return q.numRel;
}

export function numRelRet(q: QueryRels): number {
  return q.numRelRet;
}

/** Retrieved documents judged non-relevant (0 <= grade < relevance level). */
export function numNonrelJudgedRet(q: QueryRels, ctx: MeasureContext): number {
  let n = 0;
  for (let i = 0; i < q.numRet; i++) if (q.rels[i] >= 0 && q.rels[i] < ctx.relevanceLevel) n++;
  return n;
}

/**
 * utility.a,b,c,d: a * relevant retrieved + b * non-relevant retrieved + c * relevant not retrieved + d *
 * non-relevant not retrieved (the last needs the collection size, trec_eval -N).
 */
export function utility(q: QueryRels, numDocsInColl: number, p: readonly number[]): number {
  return (
    p[0] * q.numRelRet +
    p[1] * (q.numRet - q.numRelRet) +
    p[2] * (q.numRel - q.numRelRet) +
    p[3] * (numDocsInColl + q.numRelRet - q.numRet - q.numRel)
  );
}
