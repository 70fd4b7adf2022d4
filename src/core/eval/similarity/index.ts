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
  /** Queries both runs answer (of `queries` when given), in trec_eval's order, with their value where defined. */
  perQuery: Map<string, number>;
  /** Mean over the queries where the value is defined. */
  mean: number;
  /** Queries both runs answer where it is undefined (tau-AP: fewer than two shared documents), left out of the mean. */
  undefinedQueries: number;
}

/** A run's rankings of its queries, cut at a depth (see rankingsOf). */
export type Rankings = (qid: string) => Ranking | undefined;

/**
 * A run's top `depth` of each query, decoded into strings once however many similarities and pairs read it (a
 * results table of 5 runs reads each 12 times).
 */
export function rankingsOf(run: Run, depth: number): Rankings {
  const cache = new Map<string, Ranking | undefined>();
  return (qid) => {
    if (!cache.has(qid)) cache.set(qid, run.ranking(qid, depth));
    return cache.get(qid);
  };
}

/** Per query and on average over the queries both runs answer; sort perQuery ascending for "diverge most". */
export function runSimilarity(a: Run, b: Run, name: string, depth = 100, ra?: Rankings, rb?: Rankings, queries?: ReadonlySet<string>): RunSimilarity {
  return runSteps(runSimilaritySteps(a, b, name, depth, ra, rb, queries));
}

/**
 * runSimilarity() one query a step (a caller with other work to do between queries, e.g. the engine). `ra` and
 * `rb` give the runs' rankings at `depth` or deeper (each similarity cuts them to `depth` itself); `queries`
 * keeps to those (a results table's: the qrels' queries, as its other figures).
 */
export function* runSimilaritySteps(
  a: Run,
  b: Run,
  name: string,
  depth = 100,
  ra: Rankings = (q) => a.ranking(q, depth),
  rb: Rankings = (q) => b.ranking(q, depth),
  queries?: ReadonlySet<string>,
): Generator<void, RunSimilarity, undefined> {
  const sim = SIMILARITIES[name];
  if (!sim) throw new Error(`unknown similarity '${name}' (available: ${Object.keys(SIMILARITIES).join(', ')})`);
  const perQuery = new Map<string, number>();
  let undefinedQueries = 0;
  for (const qid of a.qids) {
    if (queries && !queries.has(qid)) continue;
    const right = rb(qid);
    if (!right) continue;
    const v = sim.of(ra(qid)!, right, depth);
    if (Number.isNaN(v)) undefinedQueries++;
    else perQuery.set(qid, v);
    yield;
  }
  let sum = 0;
  for (const v of perQuery.values()) sum += v;
  return { name, perQuery, mean: perQuery.size ? sum / perQuery.size : NaN, undefinedQueries };
}
