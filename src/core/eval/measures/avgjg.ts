import type { MeasureContext, QueryRels } from '../relevance';
import { averagePrecision } from './map';
import { precisionAt, rPrecisionMult } from './precision';

/**
 * The judgment-group measures of trec_eval (-R qrels_jg; m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c):
 * the plain measure computed against each group's judgements (each assessor's), summed in group order and
 * divided by the number of groups.
 */
function averageOverGroups(
  q: QueryRels,
  width: number,
  out: Float64Array,
  at: number,
  measure: (g: QueryRels, tmp: Float64Array) => void,
): void {
  const groups = q.groups ?? [];
  const tmp = new Float64Array(width);
  for (const g of groups) {
    tmp.fill(0);
    measure(g, tmp);
    for (let k = 0; k < width; k++) out[at + k] += tmp[k];
  }
  if (groups.length > 1) for (let k = 0; k < width; k++) out[at + k] /= groups.length;
}

export function mapAvgJg(q: QueryRels, ctx: MeasureContext, out: Float64Array, at: number): void {
  averageOverGroups(q, 1, out, at, (g, tmp) => {
    tmp[0] = averagePrecision(g, ctx);
  });
}

export function precisionAvgJg(q: QueryRels, ctx: MeasureContext, cutoffs: readonly number[], out: Float64Array, at: number): void {
  averageOverGroups(q, cutoffs.length, out, at, (g, tmp) => precisionAt(g, ctx, cutoffs, tmp, 0));
}

export function rPrecisionMultAvgJg(q: QueryRels, ctx: MeasureContext, mults: readonly number[], out: Float64Array, at: number): void {
  averageOverGroups(q, mults.length, out, at, (g, tmp) => rPrecisionMult(g, ctx, mults, tmp, 0));
}
