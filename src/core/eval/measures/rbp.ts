import type { QueryRels } from '../relevance';

/**
 * rbp (trec_eval 10 m_rbp.c; Moffat & Zobel 2008): (1 - p) * sum of gain * p^rank, p = 0.9. Gains are the
 * grades, scaled to [0, 1] by (g - min) / (max - min) over the levels 0..highest grade when they leave that
 * range. trec_eval 10.0 starts min and max uninitialised; a build without optimisation starts them at 0,
 * which is what this follows (0 is also the lowest level whenever any document is judged).
 */
export function rbp(q: QueryRels, p = 0.9): number {
  let max = 0;
  for (let k = 0; k < q.grades.length; k++) if (q.grades[k] > max) max = q.grades[k];
  const scale = max > 1 ? max : 1;
  let sum = 0;
  let curP = 1;
  for (let i = 0; i < q.numRet; i++) {
    const r = q.rels[i];
    const gain = r > 0 && r <= max ? r / scale : 0;
    if (gain !== 0) sum += gain * curP;
    curP *= p;
  }
  return (1 - p) * sum;
}

/**
 * rbp_resid (trec_eval 10 m_rbp_resid.c): how much rbp could still rise: p^n (the ranks past the ranking)
 * plus (1 - p) * the sum of p^rank over unjudged retrieved documents; 0 when every one is judged.
 */
export function rbpResidual(q: QueryRels, p = 0.9): number {
  let unjudged = 0;
  let sum = 0;
  let curP = 1;
  for (let i = 0; i < q.numRet; i++) {
    if (q.rels[i] < 0) {
      unjudged++;
      sum += curP;
    }
    curP *= p;
  }
  return unjudged ? curP + (1 - p) * sum : 0;
}
