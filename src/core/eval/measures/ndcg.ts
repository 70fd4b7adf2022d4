import type { QueryRels } from '../relevance';

/**
 * nDCG as trec_eval 9 computes it (Järvelin & Kekäläinen 2002): linear gain (the grade itself, unless
 * overridden by `level=gain` parameters), discount log2(rank + 1), negative grades and unjudged documents
 * gain 0. The ideal ranking orders the judged documents by decreasing gain.
 */

/** log2(i + 2) for 0-based rank i; trec_eval divides by it (not multiplies by its inverse). */
let LOG2: Float64Array = new Float64Array(0);
function log2At(i: number): number {
  if (i >= LOG2.length) {
    const t = new Float64Array(Math.max(2 * LOG2.length, i + 1, 1024));
    for (let k = 0; k < t.length; k++) t[k] = Math.log2(k + 2);
    LOG2 = t;
  }
  return LOG2[i];
}

export interface Gain {
  level: number;
  gain: number;
  count: number;
}

/**
 * trec_eval's setup_gains: parameter pairs first, then every grade 0..max not overridden, sorted by gain.
 * Grades no document has are left out: they have no documents in the ideal ranking and no retrieved
 * document has them, so they cannot change a value (and an extreme grade costs nothing).
 */
export function setupGains(q: QueryRels, pairs: readonly (readonly [number, number])[]): Gain[] {
  const gains: Gain[] = pairs.map(([level, gain]) => ({ level, gain, count: 0 }));
  for (let k = 0; k < q.grades.length; k++) {
    const level = q.grades[k];
    const g = gains.find((x) => x.level === level);
    if (g) g.count = q.gradeCounts[k];
    else gains.push({ level, gain: level, count: q.gradeCounts[k] });
  }
  // trec_eval compares gains as (int)(g1 - g2): fractional differences tie. Array.prototype.sort is stable.
  return gains.sort((a, b) => Math.trunc(a.gain - b.gain));
}

export function gainOf(rel: number, gains: Gain[]): number {
  for (const g of gains) if (g.level === rel) return g.gain;
  return 0;
}

/** Walks the ideal ranking: the gain at each successive rank, highest first, until gains run out. */
class IdealWalk {
  private cur: number;
  private numAtLevel = 0;
  gain: number;

  constructor(private readonly gains: Gain[]) {
    this.cur = gains.length - 1;
    this.gain = this.cur >= 0 ? gains[this.cur].gain : 0;
  }

  next(): number {
    this.numAtLevel++;
    while (this.cur >= 0 && this.numAtLevel > this.gains[this.cur].count) {
      this.numAtLevel = 1;
      this.cur--;
      this.gain = this.cur >= 0 ? this.gains[this.cur].gain : 0;
    }
    return this.gain;
  }
}

export function ndcg(q: QueryRels, pairs: readonly (readonly [number, number])[]): number {
  const [dcg, idcg] = dcgAndIdeal(q, pairs);
  return idcg > 0 ? dcg / idcg : 0;
}

/** DCG of the ranking and of the ideal ranking (trec_eval 10's dcg and ideal_dcg; ndcg is their ratio). */
export function dcgAndIdeal(q: QueryRels, pairs: readonly (readonly [number, number])[]): [number, number] {
  const gains = setupGains(q, pairs);
  const ideal = new IdealWalk(gains);
  let dcg = 0;
  let idcg = 0;
  let i = 0;
  for (; i < q.numRet && ideal.gain > 0; i++) {
    const g = gainOf(q.rels[i], gains);
    if (g !== 0) dcg += g / log2At(i);
    const ig = ideal.next();
    if (ig > 0) idcg += ig / log2At(i);
  }
  for (; i < q.numRet; i++) {
    const g = gainOf(q.rels[i], gains);
    if (g !== 0) dcg += g / log2At(i);
  }
  for (; ideal.gain > 0; i++) {
    const ig = ideal.next();
    if (ig > 0) idcg += ig / log2At(i);
  }
  return [dcg, idcg];
}

/** ndcg_rel: nDCG averaged over the ranks of relevant (gain > 0) documents; unretrieved ones use final nDCG. */
export function ndcgRel(q: QueryRels, pairs: readonly (readonly [number, number])[]): number {
  const gains = setupGains(q, pairs);
  const ideal = new IdealWalk(gains);
  let dcg = 0;
  let idcg = 0;
  let sum = 0;
  let numRelRet = 0;
  let numRel = 0;
  let i = 0;
  for (; i < q.numRet && ideal.gain > 0; i++) {
    const g = gainOf(q.rels[i], gains);
    if (g !== 0) dcg += g / log2At(i);
    const ig = ideal.next();
    if (ig > 0) {
      numRel++;
      idcg += ig / log2At(i);
    }
    if (g > 0) {
      sum += dcg / idcg;
      numRelRet++;
    }
  }
  for (; i < q.numRet; i++) {
    const g = gainOf(q.rels[i], gains);
    if (g !== 0) dcg += g / log2At(i);
    if (g > 0) {
      sum += dcg / idcg;
      numRelRet++;
    }
  }
  for (; ideal.gain > 0; i++) {
    const ig = ideal.next();
    if (ig > 0) {
      numRel++;
      idcg += ig / log2At(i);
    }
  }
  sum += ((numRel - numRelRet) * dcg) / idcg;
  return sum > 0 ? sum / numRel : 0;
}

/** Rndcg: nDCG averaged at the ranks where the ideal gain changes (the "R levels"), plus at num_ret. */
export function rNdcg(q: QueryRels, pairs: readonly (readonly [number, number])[]): number {
  const gains = setupGains(q, pairs);
  if (q.numRel === 0) return 0;
  const ideal = new IdealWalk(gains);
  let oldGain = ideal.gain;
  let dcg = 0;
  let idcg = 0;
  let sum = 0;
  let changes = 0;
  let i = 0;
  for (; i < q.numRet && ideal.gain > 0; i++) {
    const g = gainOf(q.rels[i], gains);
    const ig = ideal.next();
    if (oldGain !== ig) {
      if (idcg > 0) {
        sum += dcg / idcg;
        changes++;
      }
      oldGain = ig;
    }
    if (g !== 0) dcg += g / log2At(i);
    if (ig > 0) idcg += ig / log2At(i);
  }
  if (i < q.numRet) {
    for (; i < q.numRet; i++) {
      const g = gainOf(q.rels[i], gains);
      if (g !== 0) dcg += g / log2At(i);
    }
    if (idcg > 0) {
      sum += dcg / idcg;
      changes++;
    }
  }
  for (; ideal.gain > 0; i++) {
    const ig = ideal.next();
    if (oldGain !== ig) {
      if (idcg > 0) {
        sum += dcg / idcg;
        changes++;
      }
      oldGain = ig;
    }
    if (ig > 0) idcg += ig / log2At(i);
  }
  return sum / changes;
}

/**
 * ndcg_cut.k: nDCG over the top k, against the ideal top k. Gains are the grades (no parameters); grades
 * below 1 gain nothing, whatever the relevance level.
 */
export function ndcgCut(q: QueryRels, cutoffs: readonly number[], out: Float64Array, at: number): void {
  const n = cutoffs.length;
  let ci = 0;
  let dcg = 0;
  let i = 0;
  for (; i < q.numRet; i++) {
    if (i === cutoffs[ci]) {
      out[at + ci] = dcg;
      if (++ci === n) break;
    }
    const g = q.rels[i];
    if (g > 0) dcg += g / log2At(i);
  }
  for (; ci < n; ci++) out[at + ci] = dcg;

  ci = 0;
  let idcg = 0;
  let k = q.grades.length - 1;
  let lvlCount = 0;
  if (k >= 0 && q.grades[k] > 0) {
    for (i = 0; ; i++) {
      lvlCount++;
      while (k >= 0 && q.grades[k] > 0 && lvlCount > q.gradeCounts[k]) {
        k--;
        lvlCount = 1;
      }
      if (k < 0 || q.grades[k] <= 0) break;
      if (i === cutoffs[ci]) {
        if (idcg > 0) out[at + ci] /= idcg;
        if (++ci === n) break;
      }
      idcg += q.grades[k] / log2At(i);
    }
  }
  for (; ci < n; ci++) if (idcg > 0) out[at + ci] /= idcg;
}

/**
 * binG (trec_eval m_binG.c): binary gain with a discount that grows with the non-relevant documents seen,
 * 1 / log2(2 + rank - relevant so far) per relevant document, over R.
 */
export function binaryG(q: QueryRels, relevanceLevel: number): number {
  let relSoFar = 0;
  let sum = 0;
  for (let i = 0; i < q.numRet; i++) {
    if (q.rels[i] >= relevanceLevel) {
      relSoFar++;
      sum += 1 / Math.log2(3 + i - relSoFar);
    }
  }
  return relSoFar ? sum / q.numRel : 0;
}

/**
 * G (trec_eval m_G.c, Sakai's normalised cumulative gain with a cost of at least 1 per rank): gain over
 * log2(2 + ideal cost so far - gain so far), over the ideal cumulative gain.
 */
export function gainG(q: QueryRels, pairs: readonly (readonly [number, number])[]): number {
  const gains = setupGains(q, pairs);
  const ideal = new IdealWalk(gains);
  const minCost = 1;
  let resultsG = 0;
  let sumResults = 0;
  let sumIdeal = 0;
  let sumCost = 0;
  let i = 0;
  for (; i < q.numRet && ideal.gain > 0; i++) {
    const g = gainOf(q.rels[i], gains);
    sumResults += g;
    const ig = ideal.next();
    if (ig > 0) sumIdeal += ig;
    sumCost += ig >= minCost ? ig : minCost;
    if (g !== 0) resultsG += g / Math.log2(2 + sumCost - sumResults);
  }
  for (; i < q.numRet; i++) {
    const g = gainOf(q.rels[i], gains);
    sumResults += g;
    sumCost += minCost;
    if (g !== 0) resultsG += g / Math.log2(2 + sumCost - sumResults);
  }
  while (ideal.gain > 0) {
    const ig = ideal.next();
    if (ig > 0) sumIdeal += ig;
  }
  return sumIdeal > 0 ? resultsG / sumIdeal : 0;
}
