import type { QueryPrefs } from './prefs';

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
  /**
   * The grades (>= 0) that judged documents have, ascending, and how many documents have each: sparse, so an
   * extreme grade (2e9) costs no more than a small one.
   */
  grades: Int32Array;
  gradeCounts: Int32Array;
  /** 1 where the document at that rank is judged (grade >= 0) for some query (BEIR's "annotated corpus"); filled only to the largest hole.k cutoff. */
  judgedAnywhere: Uint8Array;
  /** With -R qrels_jg: the ranking judged by each judgment group, in byte order of the group names. */
  groups?: QueryRels[];
  /** With -R qrels_prefs: the preference counts of the query's ranking. */
  prefs?: QueryPrefs;
}

export interface MeasureContext {
  /** trec_eval -l: the lowest grade that counts as relevant. */
  relevanceLevel: number;
  /** trec_eval -N: number of documents in the collection (utility's non-relevant-not-retrieved term). */
  numDocsInColl: number;
  /**
   * How a recall level x becomes a number of relevant documents (iprec_at_recall, 11pt_avg): trec_eval 9
   * computes (long)(x * R + 0.9), trec_eval 10 lround(x * R).
   */
  trecEval10Rounding: boolean;
}

export function relevantCutoff(ctx: MeasureContext, x: number, numRel: number): number {
  return ctx.trecEval10Rounding ? Math.round(x * numRel) : Math.trunc(x * numRel + 0.9);
}

/** Counts judgements per grade (negative grades excluded, as trec_eval does), grades ascending. */
export function gradeLevelsOf(judged: Int32Array): { grades: Int32Array; gradeCounts: Int32Array } {
  // A query has a handful of distinct grades: a scan of those seen beats a Map (it ran once per query and run).
  const seen: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < judged.length; i++) {
    const g = judged[i];
    if (g < 0) continue;
    const k = seen.indexOf(g);
    if (k >= 0) counts[k]++;
    else {
      seen.push(g);
      counts.push(1);
    }
  }
  const grades = Int32Array.from(seen).sort();
  const gradeCounts = new Int32Array(grades.length);
  for (let k = 0; k < grades.length; k++) gradeCounts[k] = counts[seen.indexOf(grades[k])];
  return { grades, gradeCounts };
}

export function numRelOf(grades: Int32Array, gradeCounts: Int32Array, relevanceLevel: number): number {
  let n = 0;
  for (let k = 0; k < grades.length; k++) if (grades[k] >= relevanceLevel) n += gradeCounts[k];
  return n;
}
