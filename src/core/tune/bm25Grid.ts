import type { Qrels } from '../formats/qrels';
import { Run } from '../formats/run';
import type { Bm25Index } from '../retrieval/bm25/index';
import { Bm25Ranker, type Bm25Setting, type Ranking } from '../retrieval/bm25/ranker';
import { RM3_DEFAULTS } from '../retrieval/bm25/rm3';
import type { QueryVector } from '../retrieval/bm25/search';
import { fixed6 } from '../formats/runWriter';
import { keptLength, measureDepth, perQueryRow, shallowDepth, type MeasureSpec } from './scores';

/**
 * A grid over BM25's k1 and b and, with RM3, its feedback terms, documents and original-query weight. Every
 * setting searches the one index (its postings and, with RM3, its forward index are shared: only the per-norm
 * cache depends on k1 and b), ranks exactly as a run of that setting would be written (ranker.ts, scores as
 * the file prints them) and is evaluated per query.
 */
export interface Bm25Grid {
  k1: number[];
  b: number[];
  rm3: { fbTerms: number[]; fbDocs: number[]; originalQueryWeight: number[] } | null;
}

/** Anserini's BEIR defaults, the setting tuning must beat. */
export const BM25_DEFAULT: Bm25Setting = { k1: 0.9, b: 0.4, rm3: null };

export function bm25Label(s: Bm25Setting): string {
  return `k1=${s.k1} b=${s.b}${s.rm3 ? ` rm3=${s.rm3.fbTerms},${s.rm3.fbDocs},${s.rm3.originalQueryWeight}` : ''}`;
}

/** The grid's settings in order, the default (BM25_DEFAULT, with RM3's defaults when the grid has RM3) first if the grid lacks it. */
export function bm25GridSettings(grid: Bm25Grid): { settings: Bm25Setting[]; defaultIndex: number } {
  const settings: Bm25Setting[] = [];
  for (const k1 of grid.k1) {
    for (const b of grid.b) {
      if (!grid.rm3) settings.push({ k1, b, rm3: null });
      else {
        for (const fbTerms of grid.rm3.fbTerms) {
          for (const fbDocs of grid.rm3.fbDocs) {
            for (const originalQueryWeight of grid.rm3.originalQueryWeight) settings.push({ k1, b, rm3: { fbTerms, fbDocs, originalQueryWeight } });
          }
        }
      }
    }
  }
  const dflt: Bm25Setting = { ...BM25_DEFAULT, rm3: grid.rm3 ? RM3_DEFAULTS : null };
  let defaultIndex = settings.findIndex((s) => bm25Label(s) === bm25Label(dflt));
  if (defaultIndex < 0) {
    settings.unshift(dflt);
    defaultIndex = 0;
  }
  return { settings, defaultIndex };
}

export interface Bm25GridInput {
  index: Bm25Index;
  qids: readonly string[];
  queries: readonly QueryVector[];
  topK: number;
  removeQuery: boolean;
}


/**
 * Each setting's per-query values (rows, over the qrels' queries); `onSetting` after each (progress, cancel).
 * A measure of the top k (ndcg_cut.10) needs only each ranking's top k and the ties at its last place
 * (scores.ts keptLength): the search asks for fewer hits and the rankings evaluated are short, with the same
 * values as the full run's; a query whose ties run past the shallow search is searched again in full.
 */
export async function bm25Matrix(
  input: Bm25GridInput,
  settings: readonly Bm25Setting[],
  qrels: Qrels,
  spec: MeasureSpec,
  onSetting?: (done: number) => Promise<void> | void,
): Promise<{ column: string; queries: string[]; rows: Float64Array[] }> {
  const rows: Float64Array[] = [];
  let column = '';
  let queries: string[] = [];
  const ranking: Ranking = { ids: [], scores: [] };
  const depth = measureDepth(spec.measure);
  const shallowK = shallowDepth(depth, input.topK);
  for (let s = 0; s < settings.length; s++) {
    const shallow = new Bm25Ranker(input.index, settings[s], shallowK, input.removeQuery);
    const full = shallowK === input.topK ? shallow : new Bm25Ranker(input.index, settings[s], input.topK, input.removeQuery);
    const rankings: [string, string[], number[]][] = input.qids.map((qid, i) => {
      shallow.rank(qid, input.queries[i], ranking);
      // As the run file prints them (6 decimals), which trec_eval then reads.
      let scores = ranking.scores.map(fixed6);
      let keep = depth === null ? scores.length : keptLength(scores, depth);
      if (keep === scores.length && shallow !== full && scores.length >= shallowK - 1) {
        full.rank(qid, input.queries[i], ranking);
        scores = ranking.scores.map(fixed6);
        keep = keptLength(scores, depth!);
      }
      return [qid, ranking.ids.slice(0, keep), scores.slice(0, keep)];
    });
    const row = perQueryRow(qrels, Run.fromRankings('tune', rankings), spec);
    rows.push(row.values);
    column = row.column;
    queries = row.queries;
    await onSetting?.(s + 1);
  }
  return { column, queries, rows };
}
