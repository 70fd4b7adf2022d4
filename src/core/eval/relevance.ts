/**
 * trec_eval's view of one query (form_res_rels.c): the relevance value of each retrieved document, by rank,
 * plus counts of the judgements. A retrieved document not in the qrels is NONPOOL; one in the qrels with a
 * negative grade is UNJUDGED ("pooled but unjudged"); both have gain 0 and are non-relevant.
 */
export const NONPOOL = -1;
export const UNJUDGED = -2;

export interface QueryRels {
  /** Relevance value at each rank (0-based), length numRet. */
  rels: Int32Array;
  numRet: number;
  /** Judged documents with grade >= relevance level. */
  numRel: number;
  /** Retrieved documents with grade >= relevance level. */
  numRelRet: number;
  /** relLevels[g] = number of judged documents with grade g (g >= 0). */
  relLevels: Int32Array;
  /** 1 + the highest grade that has a judged document (0 if none). */
  numRelLevels: number;
  /** 1 where the document at that rank is judged (grade >= 0) for some query (BEIR's "annotated corpus"); filled only to the largest hole.k cutoff. */
  judgedAnywhere: Uint8Array;
}

export interface MeasureContext {
  /** trec_eval -l: the lowest grade that counts as relevant. */
  relevanceLevel: number;
}

/** Counts judgements per grade (negative grades excluded, as trec_eval does). */
export function relLevelsOf(grades: Int32Array): { relLevels: Int32Array; numRelLevels: number } {
  let max = -1;
  for (const g of grades) if (g > max) max = g;
  const relLevels = new Int32Array(max + 1);
  for (const g of grades) if (g >= 0) relLevels[g]++;
  return { relLevels, numRelLevels: max + 1 };
}

export function numRelOf(relLevels: Int32Array, relevanceLevel: number): number {
  let n = 0;
  for (let g = Math.max(0, relevanceLevel); g < relLevels.length; g++) n += relLevels[g];
  return n;
}
