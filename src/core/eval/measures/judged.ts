import { NONPOOL, UNJUDGED, type QueryRels } from '../relevance';

/**
 * Judgement coverage of the top k. All three divide by k, as trec_eval 10's unj does: ranks past the end of
 * a short ranking count as judged, non-relevant filler.
 */
function shareAt(
  q: QueryRels,
  cutoffs: readonly number[],
  out: Float64Array,
  at: number,
  counts: (i: number) => boolean,
): void {
  let ci = 0;
  let n = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = n / i;
      if (++ci === cutoffs.length) return;
    }
    if (counts(i)) n++;
  }
  for (; ci < cutoffs.length; ci++) out[at + ci] = n / cutoffs[ci];
}

/** unj.k (trec_eval 10.0): share of the top k not judged for this query (absent or negative grade). */
export function unjudgedAt(q: QueryRels, cutoffs: readonly number[], out: Float64Array, at: number): void {
  shareAt(q, cutoffs, out, at, (i) => q.rels[i] === NONPOOL || q.rels[i] === UNJUDGED);
}

/** judged.k: share of the top k judged (grade >= 0) for this query. */
export function judgedAt(q: QueryRels, cutoffs: readonly number[], out: Float64Array, at: number): void {
  shareAt(q, cutoffs, out, at, (i) => q.rels[i] >= 0);
}

/**
 * hole.k (BEIR's Hole@k, Thakur et al. 2021): share of the top k judged for no query at all in the qrels.
 * A document judged only with a negative grade counts as a hole.
 */
export function holeAt(q: QueryRels, cutoffs: readonly number[], out: Float64Array, at: number): void {
  shareAt(q, cutoffs, out, at, (i) => q.judgedAnywhere[i] === 0);
}

/**
 * relstring.n (trec_eval m_relstring.c): the relevance of the top n (default 10) as one character each: the
 * grade 0-9, '>' above 9, '-' outside the pool, '.' pooled but unjudged.
 */
export function relString(q: QueryRels, n: number): string {
  const len = Math.max(0, Math.min(Math.trunc(n), q.numRet));
  let s = '';
  for (let i = 0; i < len; i++) {
    const r = q.rels[i];
    s += r > 9 ? '>' : r >= 0 ? String(r) : r === NONPOOL ? '-' : r === UNJUDGED ? '.' : '<';
  }
  return s;
}
