import type { Bm25Index } from './index';
import { Rm3, type Rm3Expansion, type Rm3Params } from './rm3';
import { Searcher, type Hits, type QueryVector } from './search';

/**
 * One query's ranking as a BM25 run writes it: search (then RM3's second search), drop the query's own document
 * when asked, adjust score ties. The one path of `irw run`, explanations, what-if queries and tuning, so that
 * what they show is what a run file holds.
 */
export interface Bm25Setting {
  k1: number;
  b: number;
  rm3: Rm3Params | null;
}

export interface Ranking {
  ids: string[];
  scores: number[];
  /** Per position, how many 1e-6 steps the tie adjustment took off (filled only when present). */
  ties?: number[];
}

export class Bm25Ranker {
  private own: { searcher: Searcher; rm3: Rm3 | null } | null = null;

  constructor(
    readonly index: Bm25Index,
    readonly setting: Bm25Setting,
    readonly topK: number,
    readonly removeQuery: boolean,
  ) {}

  /** The searcher (and RM3), made on first use: a run searched on other threads needs only ranking(). */
  private get parts(): { searcher: Searcher; rm3: Rm3 | null } {
    const { index, setting } = this;
    return (this.own ??= {
      searcher: new Searcher(index, { k1: setting.k1, b: setting.b }),
      rm3: setting.rm3 ? new Rm3(index.fieldIndexes[0], index.docIds.length, setting.rm3) : null,
    });
  }

  /** The hits of `query` (the second search's with RM3), and RM3's expansion when there is one. */
  search(query: QueryVector): { hits: Hits; expansion: Rm3Expansion | null } {
    const { searcher, rm3 } = this.parts;
    const first = searcher.search(query, this.topK);
    if (!rm3) return { hits: first, expansion: null };
    const expansion = rm3.expansion(query, first);
    return { hits: searcher.search(expansion.expanded, this.topK), expansion };
  }

  /**
   * The ranking of query `qid` as the run file holds it. `out`'s arrays are overwritten in place and cut to
   * length (a run's loop reuses them: emptying an array frees its storage, which refilling grows again).
   */
  rank(qid: string, query: QueryVector, out: Ranking = { ids: [], scores: [] }): Ranking {
    return this.ranking(qid, this.search(query).hits, out);
  }

  /** The ranking of query `qid` given its hits (searched here, or on a search thread: parallelSearch.ts). */
  ranking(qid: string, hits: Hits, out: Ranking = { ids: [], scores: [] }): Ranking {
    const { ids, scores } = out;
    let n = 0;
    for (let i = 0; i < hits.docs.length; i++) {
      const id = this.index.docIds[hits.docs[i]];
      // As Anserini: the hit is dropped after ranking, so such a query has one hit fewer.
      if (this.removeQuery && id === qid) continue;
      ids[n] = id;
      scores[n++] = hits.scores[i];
    }
    ids.length = n;
    scores.length = n;
    adjustScoreTies(scores, out.ties);
    return out;
  }
}

const f = Math.fround;

/** A score rounded to 1e-4 in float, the first step of Anserini's ScoreTiesAdjusterReranker. */
export function roundScore(score: number): number {
  return f(f(Math.round(f(score * f(1e4)))) / f(1e4));
}

/**
 * Anserini's ScoreTiesAdjusterReranker: scores are rounded to 1e-4 (in float) and each score tied with the one
 * above it is lowered by 1e-6 per tie, so that any evaluator (trec_eval sorts ties by document id descending)
 * sees the ranking's own order (score, then document id ascending). Without it NFCorpus nDCG@10 is 0.0013 lower.
 */
export function adjustScoreTies(scores: number[], ties?: number[]): void {
  let dup = 0;
  for (let i = 0; i < scores.length; i++) {
    scores[i] = roundScore(scores[i]);
    if (i === 0 || f(scores[i - 1] - scores[i]) > f(1e-4)) dup = 0;
    else {
      dup++;
      scores[i] = lowerTie(scores[i], dup);
    }
    if (ties) ties[i] = dup;
  }
  if (ties) ties.length = scores.length;
}

/** A rounded score lowered for its `dup`-th tie. */
export function lowerTie(rounded: number, dup: number): number {
  return dup === 0 ? rounded : f(rounded - f(f(1e-6) * dup));
}
