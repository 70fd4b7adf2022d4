import { evaluate } from '../eval';
import type { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';

/**
 * One measure's per-query values of a run, over every query of the qrels in trec_eval's order (a query the run
 * lacks scores 0, as trec_eval -c): a row of the tuning matrix. The measure must name one value (ndcg_cut.10,
 * not ndcg_cut).
 */
export interface MeasureSpec {
  measure: string;
  relevanceLevel: number;
}

export function perQueryRow(qrels: Qrels, run: Run, spec: MeasureSpec): { column: string; queries: string[]; values: Float64Array } {
  const r = evaluate(qrels, run, { measures: [spec.measure], complete: true, relevanceLevel: spec.relevanceLevel });
  if (r.columns.length !== 1) {
    throw new Error(`tuning optimizes one value, but ${spec.measure} gives ${r.columns.length} (${r.columns.map((c) => c.name).join(', ')}): name one, e.g. ndcg_cut.10`);
  }
  const values = new Float64Array(r.queries.length);
  for (let q = 0; q < r.queries.length; q++) values[q] = r.values[q];
  return { column: r.columns[0].name, queries: r.queries, values };
}
