import { winTieLoss } from '../eval/stats';
import type { QueryDeltas } from '../../protocol/webview';
import { aligned } from './results';
import { RESULT_MEASURES } from './scores';
import type { SplitState } from './state';
import { pairDeltas } from './underHoles';

/**
 * The Results panel's per-query plot of one comparison: b - a on a tested measure, query by query, from the
 * scores the table's tests use, paired as they pair them (so the deltas' mean is the table's Δ on the same
 * qrels), in the split's query order whatever the deltas (the page sorts them: a judgement changes one entry);
 * each query's range over the holes of both top 10s where the table's ranges are computed (a tested pair, a
 * measure the top-10 pool covers).
 */
export function queryDeltas(state: SplitState, a: string, b: string, measure: string): QueryDeltas {
  const mi = RESULT_MEASURES.findIndex((m) => m.key === measure && m.tested);
  if (mi < 0) throw new Error(`${measure} is not a measure the Results table tests (${RESULT_MEASURES.filter((m) => m.tested).map((m) => m.label).join(', ')})`);
  const [xb, xa, queries] = aligned(state.scores(b, 'annotated'), state.scores(a, 'annotated'), mi);
  const deltas = queries.map((_, i) => xb[i] - xa[i]);
  const ranged = pairDeltas(state, a, b, measure, queries);
  return {
    a,
    b,
    measure,
    qrels: state.label(),
    queries,
    deltas,
    // A query with no hole in either top 10 has its delta as its range.
    ...(ranged ? { ranges: { lo: ranged.map((r, i) => r?.lo ?? deltas[i]), hi: ranged.map((r, i) => r?.hi ?? deltas[i]) } } : {}),
    ...winTieLoss(xb, xa),
  };
}
