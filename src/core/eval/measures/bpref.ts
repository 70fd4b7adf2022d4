import { NONPOOL, UNJUDGED, type MeasureContext, type QueryRels } from '../relevance';
import { MIN_GEO_MEAN } from './map';

/** trec_eval's INFAP_EPSILON. */
const INFAP_EPSILON = 0.00001;

/**
 * bpref (Buckley & Voorhees, SIGIR 2004): for each relevant retrieved document, the share of the top-R
 * judged non-relevant documents ranked below it. Unjudged documents are skipped.
 */
export function bpref(q: QueryRels, ctx: MeasureContext): number {
  let numNonrel = 0;
  for (let k = 0; k < q.grades.length && q.grades[k] < ctx.relevanceLevel; k++) numNonrel += q.gradeCounts[k];
  let nonrelSoFar = 0;
  let value = 0;
  for (let j = 0; j < q.numRet; j++) {
    const r = q.rels[j];
    if (r === NONPOOL || r === UNJUDGED) continue;
    if (r >= 0 && r < ctx.relevanceLevel) nonrelSoFar++;
    else if (nonrelSoFar > 0) value += 1 - Math.min(nonrelSoFar, q.numRel) / Math.min(numNonrel, q.numRel);
    else value += 1;
  }
  return q.numRel ? value / q.numRel : 0;
}

/**
 * infAP (Yilmaz & Aslam, CIKM 2006), as trec_eval computes it: documents outside the pool count as
 * non-relevant, pooled-but-unjudged ones (negative grades) are assumed relevant in the judged proportion.
 */
export function infAP(q: QueryRels, ctx: MeasureContext): number {
  let nonrelSoFar = 0;
  let relSoFar = 0;
  let poolUnjudgedSoFar = 0;
  let value = 0;
  for (let j = 0; j < q.numRet; j++) {
    const r = q.rels[j];
    if (r === NONPOOL) continue;
    if (r === UNJUDGED) {
      poolUnjudgedSoFar++;
      continue;
    }
    if (r >= 0 && r < ctx.relevanceLevel) {
      nonrelSoFar++;
    } else {
      relSoFar++;
      if (j === 0) value += 1;
      else {
        value +=
          1 / (j + 1) +
          (j / (j + 1)) *
            ((relSoFar - 1 + nonrelSoFar + poolUnjudgedSoFar) / j) *
            ((relSoFar - 1 + INFAP_EPSILON) / (relSoFar - 1 + nonrelSoFar + 2 * INFAP_EPSILON));
      }
    }
  }
  return q.numRel ? value / q.numRel : 0;
}

/** gm_bpref's per-query value is log(max(bpref, MIN_GEO_MEAN)); the summary is exp of the mean. */
export function logBpref(q: QueryRels, ctx: MeasureContext): number {
  return Math.log(Math.max(bpref(q, ctx), MIN_GEO_MEAN));
}
