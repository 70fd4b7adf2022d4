import { evaluate, summaryOf, type Column, type EvalResult } from '../eval';
import type { IdTable } from '../formats/idTable';
import type { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import type { MeasureColumn } from '../../protocol/webview';
import { displayName } from '../eval/displayName';

// A run's per-query scores as every view and the tree read them: one evaluation, the views' columns first.

/**
 * The measures of the results table. MRR@10 is recip_rank evaluated on each query's top 10 only (trec_eval
 * -M 10 -m recip_rank), as MS MARCO and BEIR report MRR@10; trec_eval's plain recip_rank looks at the whole
 * ranking.
 */
export const RESULT_MEASURES: readonly MeasureColumn[] = [
  { key: 'ndcg_cut_10', tested: true },
  { key: 'recall_100', tested: true },
  { key: 'map', tested: true },
  { key: 'recip_rank_10', tested: true },
  { key: 'P_10', tested: true },
  { key: 'judged_10', tested: false, onAnswered: true },
  { key: 'hole_10', tested: false, lowerIsBetter: true, onAnswered: true },
].map((m) => ({ ...m, label: displayName(m.key) }));
const TREC_MEASURES = ['ndcg_cut.10', 'recall.100', 'map', 'recip_rank', 'P.10', 'judged.10', 'hole.10', 'unj.10'];

/** The measures a session evaluates: the views' own, then those of the settings. */
export function sessionMeasures(settings: readonly string[] = []): string[] {
  return [...new Set([...TREC_MEASURES, ...settings])];
}
/** Scores hold the RESULT_MEASURES columns, then these (for the holes view), then the settings' measures. */
export const EXTRA_COLUMNS = ['unj_10'];

/** Per-query values of every column for one run, over the evaluated queries. */
export interface Scores {
  queries: string[];
  /** Column names: RESULT_MEASURES keys, then EXTRA_COLUMNS, then the other value names of the measures asked for. */
  names: string[];
  /** columns[m][q]: column m on queries[q]. */
  columns: Float64Array[];
  /**
   * Summary of each column as trec_eval prints it ("all"): a mean, or a sum/geometric mean where trec_eval's
   * is; coverage columns (ON_ANSWERED) over the answered queries only.
   */
  means: number[];
  /** Queries of `queries` the run answers (the others score 0: trec_eval -c). */
  answered: number;
}

/**
 * Families that say how well a run's own top k is judged (Judged@10, Hole@10, unj): averaged over the queries
 * the run answers, as trec_eval does without -c. With -c a query the run does not answer would count as a
 * fully judged top 10 with no hole, and a run answering half the split would look twice as well judged.
 */
const ON_ANSWERED = new Set(['judged', 'hole', 'unj']);

/** A run's per-query values of every column (RESULT_MEASURES, EXTRA_COLUMNS, then the rest of `measures`) on `qrels`, as trec_eval computes them. */
export function scoreRun(
  qrels: Qrels,
  run: Run,
  opts: { complete: boolean; relevanceLevel: number; measures?: readonly string[]; judgedDocs?: IdTable },
): Scores {
  const main = evaluate(qrels, run, { complete: opts.complete, relevanceLevel: opts.relevanceLevel, measures: opts.measures ?? TREC_MEASURES, judgedDocs: opts.judgedDocs });
  const columns = columnsOf(main);
  const names = columnNames(main);
  let answered = main.queries.length;
  for (const m of main.missing) answered -= m;
  return { queries: main.queries, names, columns, means: meansOf(columns, names, main.columns, qrels, opts.complete, main.queries.length, answered), answered };
}

const VIEW_COLUMNS = [...RESULT_MEASURES.map((m) => m.key), ...EXTRA_COLUMNS];

/** The columns' names: the views' first, then every other value name evaluated. */
function columnNames(res: EvalResult): string[] {
  return [...VIEW_COLUMNS, ...res.columns.map((c) => c.name).filter((n) => !VIEW_COLUMNS.includes(n))];
}

/** The evaluation's values as one array per column, in columnNames order. */
export function columnsOf(res: EvalResult): Float64Array[] {
  const w = res.columns.length;
  const n = res.queries.length;
  const column = (name: string) => {
    const c = res.columns.findIndex((col) => col.name === name);
    const out = new Float64Array(n);
    for (let qi = 0; qi < n; qi++) out[qi] = res.values[qi * w + c];
    return out;
  };
  // recip_rank with -M 10 is 1/rank when the first relevant document is in the top 10, else 0: the same as
  // keeping recip_rank where it is at least 1/10 (one evaluation instead of two).
  return columnNames(res).map((key) => (key === 'recip_rank_10' ? column('recip_rank').map((rr) => (rr >= 0.1 ? rr : 0)) : column(key)));
}

/**
 * Each column's summary as trec_eval aggregates it (the views' derived MRR@10 is a mean); coverage columns over
 * the `answered` queries (a query the run does not answer has 0 there, so the sum is the same).
 */
export function meansOf(columns: Float64Array[], names: readonly string[], evaluated: Column[], qrels: Qrels, complete: boolean, numQ: number, answered: number): number[] {
  return columns.map((col, i) => {
    let sum = 0;
    for (let q = 0; q < col.length; q++) sum += col[q];
    const c = evaluated.find((x) => x.name === names[i]);
    if (c && ON_ANSWERED.has(c.family.name)) return answered === 0 ? 0 : sum / answered;
    return c ? summaryOf(c, sum, numQ, complete, qrels) : numQ === 0 ? 0 : sum / numQ;
  });
}

