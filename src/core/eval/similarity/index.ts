import type { Ranking, Run } from '../../formats/run';
import { runSteps } from '../../steps';
import { jaccardAt } from './jaccard';
import { rbo, rboTies, tieGroups } from './rbo';
import { tauAp } from './tauAp';

export { jaccardAt, rbo, rboTies, tauAp, tieGroups };

/** Similarity of two rankings without judgements, by name; each looks at the top `depth` of both. */
export const SIMILARITIES: Record<string, { label: string; of(a: Ranking, b: Ranking, depth: number): number }> = {
  rbo: {
    label: 'rank-biased overlap (p = 0.9, extrapolated; equal scores are ties)',
    of: (a, b, depth) => rboTies(tieGroups(a.docs.slice(0, depth), a.scores), tieGroups(b.docs.slice(0, depth), b.scores), 0.9),
  },
  jaccard: { label: 'Jaccard of the top k', of: (a, b, depth) => jaccardAt(a.docs, b.docs, depth) },
  tau_ap: { label: "Kendall's tau-AP (symmetric, shared documents)", of: (a, b, depth) => tauAp(a.docs.slice(0, depth), b.docs.slice(0, depth)) },
};

export interface RunSimilarity {
  name: string;
  /** Queries both runs answer, in trec_eval's order, with their value. */
  perQuery: Map<string, number>;
  mean: number;
}

/** Per query and on average over the queries both runs answer; sort perQuery ascending for "diverge most". */
export function runSimilarity(a: Run, b: Run, name: string, depth = 100): RunSimilarity {
  return runSteps(runSimilaritySteps(a, b, name, depth));
}

/** runSimilarity() one query a step (a caller with other work to do between queries, e.g. the engine). */
export function* runSimilaritySteps(a: Run, b: Run, name: string, depth = 100): Generator<void, RunSimilarity, undefined> {
  const sim = SIMILARITIES[name];
  if (!sim) throw new Error(`unknown similarity '${name}' (available: ${Object.keys(SIMILARITIES).join(', ')})`);
  const perQuery = new Map<string, number>();
  for (const qid of a.qids) {
    const rb = b.ranking(qid, depth);
    if (!rb) continue;
    perQuery.set(qid, sim.of(a.ranking(qid, depth)!, rb, depth));
    yield;
  }
  let sum = 0;
  for (const v of perQuery.values()) sum += v;
  return { name, perQuery, mean: perQuery.size ? sum / perQuery.size : NaN };
}
