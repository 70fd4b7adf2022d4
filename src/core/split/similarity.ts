import { runSimilaritySteps } from '../eval/similarity';
import type { DiffModel } from '../../protocol/webview';
import type { SplitState } from './state';

// How alike two runs' rankings are, per query, without judgements: the Diff's "most divergent first".

/** Depth of the rankings compared (RBO). */
const SIMILARITY_DEPTH = 100;

interface Slot {
  perQuery?: ReadonlyMap<string, number>;
}

/** Computes the pair's RBO, a query a step (10,000 queries take a third of a second); kept until the runs change. */
export function* similaritySteps(state: SplitState, a: string, b: string): Generator<void, void, undefined> {
  const slot = state.keep<Slot>('rbo', [a, b], () => ({}));
  if (slot.perQuery) return;
  const sim = yield* runSimilaritySteps(state.run(a), state.run(b), 'rbo', SIMILARITY_DEPTH);
  slot.perQuery = sim.perQuery;
}

/** RBO of the two runs per diff query (a query one run misses: 0, nothing shared) and its mean, once computed. */
export function similarityDiff(state: SplitState, a: string, b: string, queries: readonly string[]): Pick<DiffModel, 'rbo' | 'rboMean'> {
  const sim = state.kept<Slot>('rbo', [a, b])?.perQuery;
  if (!sim) return {};
  const rbo = queries.map((q) => sim.get(q) ?? 0);
  return { rbo, rboMean: rbo.length ? rbo.reduce((x, y) => x + y, 0) / rbo.length : 0 };
}
