import type { Run } from '../../formats/run';
import { jaccardAt } from './jaccard';
import { rbo } from './rbo';
import { tauAp } from './tauAp';

export { jaccardAt, rbo, tauAp };

/** Similarity of two rankings without judgements, by name; each looks at the top `depth` of both. */
export const SIMILARITIES: Record<string, { label: string; of(a: readonly string[], b: readonly string[], depth: number): number }> = {
  rbo: { label: 'rank-biased overlap (p = 0.9, extrapolated)', of: (a, b, depth) => rbo(a.slice(0, depth), b.slice(0, depth), 0.9) },
  jaccard: { label: 'Jaccard of the top k', of: (a, b, depth) => jaccardAt(a, b, depth) },
  tau_ap: { label: "Kendall's tau-AP (symmetric, shared documents)", of: (a, b, depth) => tauAp(a.slice(0, depth), b.slice(0, depth)) },
};

export interface RunSimilarity {
  name: string;
  /** Queries both runs answer, in trec_eval's order, with their value. */
  perQuery: Map<string, number>;
  mean: number;
}

/** Per query and on average over the queries both runs answer; sort perQuery ascending for "diverge most". */
export function runSimilarity(a: Run, b: Run, name: string, depth = 100): RunSimilarity {
  const sim = SIMILARITIES[name];
  if (!sim) throw new Error(`unknown similarity '${name}' (available: ${Object.keys(SIMILARITIES).join(', ')})`);
  const perQuery = new Map<string, number>();
  for (const qid of a.qids) {
    const rb = b.ranking(qid);
    if (!rb) continue;
    perQuery.set(qid, sim.of(a.ranking(qid)!.docs, rb.docs, depth));
  }
  let sum = 0;
  for (const v of perQuery.values()) sum += v;
  return { name, perQuery, mean: perQuery.size ? sum / perQuery.size : NaN };
}
