import type { DiffModel } from '../../protocol/webview';
import { runSteps } from '../steps';
import { RESULT_MEASURES } from './scores';
import { similarityDiff, similaritySteps } from './similarity';
import { rowsOf, type SplitState } from './state';
import { estimateSteps, pairEstimate } from './estimates';
import { pairDeltas, pairVerdict, runRange, trustSteps, type TrustNeed } from './underHoles';

// The Run Diff's model: per query, nDCG@10 of b minus a with the user's judgements, sorted best gain first.

const COLUMN = RESULT_MEASURES[0].key;

/** The ranges the diff shows: each run's own, and b - a over both runs' holes. */
export function diffNeeds(a: string, b: string): TrustNeed[] {
  return [
    { run: a, column: COLUMN },
    { run: b, column: COLUMN },
    { a, b, column: COLUMN },
  ];
}

/** The estimate the diff shows: b - a on nDCG@10. */
export function diffEstimateNeeds(a: string, b: string): TrustNeed[] {
  return [{ a, b, column: COLUMN }];
}

/** diff()'s last order of a pair (indices into a's queries), with the query lists it is of. */
interface Order {
  a?: readonly string[];
  b?: readonly string[];
  order: number[];
}

/**
 * Per-query nDCG@10 of b minus a on the qrels in effect, sorted by delta, best gain first. With `pending`,
 * ranges and similarity not computed yet are left out (the caller runs their steps in slices).
 */
export function diffModel(state: SplitState, aKey: string, bKey: string, options: { pending?: boolean } = {}): DiffModel {
  if (!options.pending) {
    runSteps(trustSteps(state, diffNeeds(aKey, bKey)));
    runSteps(similaritySteps(state, aKey, bKey));
    runSteps(estimateSteps(state, diffEstimateNeeds(aKey, bKey)));
  }
  const mi = 0;
  const sa = state.scores(aKey, 'annotated');
  const sb = state.scores(bKey, 'annotated');
  const bIndex = rowsOf(sb.queries);
  const n = sa.queries.length;
  const deltas = new Float64Array(n);
  const last = state.keep<Order>('diffOrder', [aKey, bKey], () => ({ order: [] }));
  // The last order of this pair, when of the same queries: a judgement moves a few deltas, and the sort
  // (the same total order either way) finishes in about one pass over an almost sorted list.
  const reuse = last.a === sa.queries && last.b === sb.queries;
  const order: number[] = reuse ? last.order.slice() : [];
  const inB = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const j = bIndex.get(sa.queries[i]);
    if (j === undefined) continue;
    inB[i] = j;
    deltas[i] = sb.columns[mi][j] - sa.columns[mi][i];
    if (!reuse) order.push(i);
  }
  order.sort((x, y) => deltas[y] - deltas[x] || (sa.queries[x] < sa.queries[y] ? -1 : 1));
  Object.assign(last, { a: sa.queries, b: sb.queries, order });
  const queries = order.map((i) => sa.queries[i]);
  const sorted = order.map((i) => deltas[i]);
  const unjA = sa.names.indexOf('unj_10');
  const unjB = sb.names.indexOf('unj_10');
  return {
    dataset: state.datasetName,
    split: state.split,
    a: state.ref(aKey),
    b: state.ref(bKey),
    measure: RESULT_MEASURES[mi].label,
    queries,
    deltas: sorted,
    // A hole: a document of either top 10 not judged for the query, which is what unj.10 counts.
    holes: order.map((i) => (sa.columns[unjA][i] > 0 || sb.columns[unjB][inB[i]] > 0 ? 1 : 0)),
    texts: queries.map((q) => state.queries.get(q)?.text ?? ''),
    meanA: sa.means[mi],
    meanB: sb.means[mi],
    originalA: state.scores(aKey, 'original').means[mi],
    originalB: state.scores(bKey, 'original').means[mi],
    judgements: state.judgementCount,
    qrels: state.label(),
    ...trustDiff(state, aKey, bKey, queries, sorted),
    ...diffEstimate(state, aKey, bKey, n),
    ...similarityDiff(state, aKey, bKey, queries),
  };
}

/** b - a estimated, once computed, when the diff is over every query of the qrels (the estimate's queries). */
function diffEstimate(state: SplitState, a: string, b: string, queries: number): Pick<DiffModel, 'estimate'> {
  const e = queries === state.qrels('original').queryIds().length ? pairEstimate(state, a, b, COLUMN) : undefined;
  return e ? { estimate: e } : {};
}

/** The diff's b - a under the holes: the range of the mean and the verdict, per query, and each mean's range (once computed). */
function trustDiff(state: SplitState, a: string, b: string, queries: string[], deltas: number[]): Pick<DiffModel, 'range' | 'perQuery' | 'intervalA' | 'intervalB'> {
  // Every query of the split (the usual case) is asked as the Results table asks: the same sums, the same figures.
  const asked = queries.length === state.qrels('original').queryIds().length ? undefined : queries;
  const range = pairVerdict(state, a, b, COLUMN, asked);
  const ranged = pairDeltas(state, a, b, COLUMN, queries);
  const intervalA = runRange(state, a, COLUMN, state.scores(a, 'annotated').queries);
  const intervalB = runRange(state, b, COLUMN, state.scores(b, 'annotated').queries);
  if (!range || !ranged || !intervalA || !intervalB) return {};
  return {
    range,
    perQuery: { lo: ranged.map((d, i) => d?.lo ?? deltas[i]), hi: ranged.map((d, i) => d?.hi ?? deltas[i]) },
    intervalA,
    intervalB,
  };
}
