import type { QueryRels } from '../relevance';
import { gainOf, setupGains } from './ndcg';

/**
 * rbp (trec_eval 10 m_rbp.c; Moffat & Zobel 2008): (1 - p) * sum of gain * p^rank, persistence p (default
 * 0.9; rbp.p=0.95). Gains are set up as ndcg's (the grade, or level=gain parameters: rbp.p=0.8,1=1,2=3);
 * when one leaves [0, 1] all are rescaled by (g - min) / (max - min). trec_eval 10.0 starts min and max
 * uninitialised; a build without optimisation starts them at 0, which is what this follows.
 */
export function rbp(q: QueryRels, p: number, pairs: readonly (readonly [number, number])[]): number {
  const gains = setupGains(q, pairs);
  let min = 0;
  let max = 0;
  for (const g of gains) {
    if (g.gain < min) min = g.gain;
    if (g.gain > max) max = g.gain;
  }
  if (min < 0 || max > 1) for (const g of gains) g.gain = (g.gain - min) / (max - min);
  let sum = 0;
  let curP = 1;
  for (let i = 0; i < q.numRet; i++) {
    const gain = gainOf(q.rels[i], gains);
    if (gain !== 0) sum += gain * curP;
    curP *= p;
  }
  return (1 - p) * sum;
}

/**
 * rbp_resid (trec_eval 10 m_rbp_resid.c): how much rbp could still rise: p^n (the ranks past the ranking)
 * plus (1 - p) * the sum of p^rank over unjudged retrieved documents; 0 when every one is judged.
 */
export function rbpResidual(q: QueryRels, p: number): number {
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
