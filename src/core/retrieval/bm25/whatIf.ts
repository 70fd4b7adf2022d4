import { evaluate, type EvalOptions } from '../../eval';
import type { Qrels } from '../../formats/qrels';
import { Run } from '../../formats/run';
import type { Analyzer } from '../analysis/analyzer';
import type { Bm25RunContext } from './runContext';
import { bagOfWords, type QueryVector } from './search';

/**
 * What-if queries: one query of a BM25 run edited (its text, or its terms' weights: boost, drop, add) and
 * re-run live with the run's own settings (ranker.ts: the same path as the run, RM3 included), then evaluated
 * on the current qrels beside the runs it is compared with. Edited queries are saved as a queries file
 * (queriesFile.ts) that `irw run --queries FILE` runs for the whole split.
 */
export interface QueryEdit {
  /** The query's new text, analysed as the run's queries are. */
  text?: string;
  /**
   * The query's terms with their weights, replacing the query vector (after `text`, if both): a weight of 0
   * drops a term. Terms are index terms (as the query vector and explanations list them), except those marked
   * `typed`: written as a person types them ("Cancers"), they are analysed to the index's terms ("cancer").
   */
  terms?: { term: string; weight: number; typed?: boolean }[];
}

export interface WhatIfRanked {
  docId: string;
  score: number;
  /** 1-based rank in the edited query's ranking, and in each compared run (null: not retrieved there). */
  rank: number;
  before: (number | null)[];
}

export interface WhatIfResult {
  queryId: string;
  /** The query vector searched (before RM3): term -> weight. */
  query: { term: string; weight: number }[];
  /** Typed terms the analyser removes (stopwords) and index terms no document has. */
  dropped: string[];
  unknownTerms: string[];
  /** The edited query's first results. */
  ranking: WhatIfRanked[];
  /** Measure names (trec_eval's) and, per measure: the edited query's value and each compared run's. */
  measures: string[];
  values: { edited: number[]; runs: number[][] };
  /** Labels of the compared runs, in `values.runs` order. */
  runs: string[];
}

/** The query vector of `edit` over the run's own query `base`. */
export function editedQuery(analyzer: Analyzer, base: QueryVector, edit: QueryEdit): { query: QueryVector; dropped: string[] } {
  let query = edit.text !== undefined ? bagOfWords(analyzer.analyze(edit.text)) : base;
  const dropped: string[] = [];
  if (edit.terms) {
    query = new Map();
    for (const { term, weight, typed } of edit.terms) {
      if (!Number.isFinite(weight)) throw new Error(`the weight of ${JSON.stringify(term)} is not a finite number`);
      const analysed = typed ? analyzer.analyze(term) : [term];
      if (analysed.length === 0) dropped.push(term);
      for (const t of analysed) {
        if (weight === 0) query.delete(t);
        else query.set(t, (query.get(t) ?? 0) + weight);
      }
    }
  }
  return { query, dropped };
}

export interface CompareWith {
  label: string;
  run: Run;
}

/**
 * Re-runs query `queryId` of the run `ctx` with `edit` and evaluates it on `qrels` with `measures` (trec_eval
 * names), beside `compare` (the runs of the diff, evaluated on the same qrels). `show`: results listed.
 */
export function whatIf(
  ctx: Bm25RunContext,
  queryId: string,
  edit: QueryEdit,
  qrels: Qrels,
  measures: readonly string[],
  compare: readonly CompareWith[],
  options: Pick<EvalOptions, 'relevanceLevel'> & { show?: number } = {},
): WhatIfResult {
  const base = ctx.query(queryId);
  if (!base) throw new Error(`query ${JSON.stringify(queryId)} is not among the run's queries`);
  const { query, dropped } = editedQuery(ctx.analyzer, base, edit);
  const ranking = ctx.ranker.rank(queryId, query);
  // Scored as a run file of these lines would be (6 decimals, then trec_eval's order).
  const edited = Run.fromRankings('what-if', [[queryId, ranking.ids, ranking.scores.map((s) => Number(s.toFixed(6)))]]);
  const only = new Set([queryId]);
  const evalOptions: EvalOptions = { measures, onlyQueries: only, complete: true, relevanceLevel: options.relevanceLevel ?? 1 };
  const valuesOf = (run: Run) => {
    const r = evaluate(qrels, run, evalOptions);
    const q = r.queries.indexOf(queryId);
    return { columns: r.columns.map((c) => c.name), values: r.columns.map((_c, c) => (q < 0 ? 0 : r.values[q * r.columns.length + c])) };
  };
  const own = valuesOf(edited);
  const known = new Set<string>();
  for (const fi of ctx.ranker.index.fieldIndexes) for (const t of query.keys()) if (fi.termIds.has(t)) known.add(t);
  const compared = compare.map((c) => c.run.ranking(queryId)?.docs ?? []);
  const positions = compared.map((docs) => new Map(docs.map((d, i) => [d, i + 1])));
  const ordered = edited.ranking(queryId) ?? { docs: [], scores: new Float64Array(0) };
  const show = Math.min(options.show ?? 100, ordered.docs.length);
  return {
    queryId,
    query: [...query].map(([term, weight]) => ({ term, weight })),
    dropped,
    unknownTerms: [...query.keys()].filter((t) => !known.has(t)),
    ranking: ordered.docs.slice(0, show).map((docId, i) => ({ docId, score: ordered.scores[i], rank: i + 1, before: positions.map((p) => p.get(docId) ?? null) })),
    measures: own.columns,
    values: { edited: own.values, runs: compare.map((c) => valuesOf(c.run).values) },
    runs: compare.map((c) => c.label),
  };
}
