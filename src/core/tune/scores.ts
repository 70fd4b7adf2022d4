import { evaluate, resolveMeasures } from '../eval';
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

/** Families whose values look at the top k of a ranking only (k: their largest cutoff). */
const TOP_K_FAMILIES = new Set(['P', 'recall', 'ndcg_cut', 'map_cut', 'relative_P', 'success', 'recall_cap', 'judged', 'hole', 'unj']);

/** How deep a ranking the measure reads (its largest cutoff), or null when it reads the whole ranking (map, recip_rank). */
export function measureDepth(measure: string): number | null {
  const [m] = resolveMeasures([measure]);
  return m && TOP_K_FAMILIES.has(m.family.name) ? Math.max(...m.cutoffs) : null;
}

/** Hits searched or fused beyond a measure's depth, so that ties at its last place are seen (a deeper pass is rare). */
const DEPTH_MARGIN = 32;

/** How many hits a shallow pass keeps, out of `topK`, for a measure reading the top `depth` (null: all of it). */
export function shallowDepth(depth: number | null, topK: number): number {
  return depth === null ? topK : Math.min(topK, depth + DEPTH_MARGIN);
}

/**
 * The length to keep of a ranking (scores as the run file prints them, best first) for a measure reading its
 * top `depth`: `depth`, extended over every later score trec_eval reads as equal to the depth-th (it reads
 * 32-bit floats and orders equal ones by document id, so any of them can take the last places).
 */
export function keptLength(scores: ArrayLike<number>, depth: number): number {
  if (scores.length <= depth) return scores.length;
  const last = Math.fround(scores[depth - 1]);
  let n = depth;
  while (n < scores.length && Math.fround(scores[n]) === last) n++;
  return n;
}
