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
