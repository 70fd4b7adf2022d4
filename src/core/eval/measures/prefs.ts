import type { JudgmentGroupCounts, QueryPrefs } from '../prefs';

/**
 * trec_eval's preference measures (m_prefs_*.c) over the counts of prefs.ts. "ful" = fulfilled, "poss" =
 * possible; _ret counts only pairs with both documents retrieved, _imp also pairs with one retrieved, the
 * plain measures also pairs with neither (which are never fulfilled).
 */
type Part = 'ret' | 'imp' | 'all';

function ful(g: JudgmentGroupCounts, part: Part): number {
  return part === 'ret' ? g.fulfilledRet : g.fulfilledRet + g.fulfilledImp;
}

function poss(g: JudgmentGroupCounts, part: Part): number {
  return part === 'ret' ? g.possibleRet : part === 'imp' ? g.possibleRet + g.possibleImp : g.possibleRet + g.possibleImp + g.possibleNotOccur;
}

export function numPrefsPossible(p: QueryPrefs): number {
  let n = 0;
  for (const g of p.groups) n += poss(g, 'all');
  return n;
}

export function numPrefsFulfilled(p: QueryPrefs, part: 'ret' | 'imp'): number {
  let n = 0;
  for (const g of p.groups) n += ful(g, part);
  return n;
}

/** prefs_simp(_ret, _imp): fulfilled over possible, summed over groups. */
export function prefsSimple(p: QueryPrefs, part: Part): number {
  let f = 0;
  let n = 0;
  for (const g of p.groups) {
    f += ful(g, part);
    n += poss(g, part);
  }
  return n ? f / n : 0;
}

/** prefs_avgjg(_ret, _imp): fulfilled over possible per group, averaged over the groups. */
export function prefsAvgJg(p: QueryPrefs, part: Part): number {
  let sum = 0;
  for (const g of p.groups) {
    const n = poss(g, part);
    if (n) sum += ful(g, part) / n;
  }
  return sum > 0 ? sum / p.groups.length : 0;
}

/**
 * prefs_pair(_ret, _imp): per document pair with a preference, the share of groups agreeing with the
 * ranking, averaged over pairs. Pairs of two unretrieved documents count (as 0) only in prefs_pair.
 */
export function prefsPair(p: QueryPrefs, part: Part): number {
  const { counts, numJudged: nj, numJudgedRet: njr } = p;
  let pairs = 0;
  let sum = 0;
  const add = (i: number, j: number) => {
    const a = counts[i * nj + j];
    const b = counts[j * nj + i];
    if (a || b) {
      pairs++;
      sum += a / (a + b);
    }
  };
  for (let i = 0; i < njr; i++) for (let j = i + 1; j < njr; j++) add(i, j);
  if (part !== 'ret') for (let i = 0; i < njr; i++) for (let j = njr; j < nj; j++) add(i, j);
  if (part === 'all') {
    for (let i = njr; i < nj; i++) for (let j = i + 1; j < nj; j++) if (counts[i * nj + j] || counts[j * nj + i]) pairs++;
  }
  return pairs ? sum / pairs : 0;
}

/**
 * prefs_avgjg_Rnonrel(_ret): prefs_avgjg with each group's non-relevant documents (grade <= 0, the last
 * class) cut or padded to R, the number of relevant ones (retrieved ones for _ret), as trec_eval computes it.
 */
export function prefsAvgJgRnonrel(p: QueryPrefs, retOnly: boolean): number {
  let sum = 0;
  for (const g of p.groups) {
    const R = retOnly ? g.numRelRet : g.numRel;
    const N = retOnly ? g.numNonrelRet : g.numNonrel;
    let f: number;
    let n: number;
    if (R >= N) {
      f = retOnly ? g.fulfilledRet : g.fulfilledRet + g.fulfilledImp;
      n = retOnly ? g.possibleRet : g.possibleRet + g.possibleImp + g.possibleNotOccur;
      f += g.numRelRet * (R - N);
      n += g.numRel * (R - N);
    } else [f, n] = recalculate(g, p, R, retOnly);
    sum += f / n;
  }
  return sum > 0 ? sum / p.groups.length : 0;
}

/**
 * The counts again with only the first R documents of the last class, trec_eval's loops kept as they are:
 * when that class (grade <= 0; there may be several) has fewer than R documents, trec_eval reads on into the
 * next group's ranks in its array, and so does this (RankPool keeps what trec_eval's array holds there).
 */
function recalculate(g: JudgmentGroupCounts, p: QueryPrefs, R: number, retOnly: boolean): [number, number] {
  const njr = p.numJudgedRet;
  if (g.prefers) return recalculateArray(g, g.prefers, g.relArray!, p.numJudged, njr, retOnly);
  let f = 0;
  let n = 0;
  const ecs = g.classes;
  // With _ret, a class's ranks are walked only while they are retrieved (they are in rank order).
  const walk = (ranks: readonly number[], limit: number, each: (r: number) => void) => {
    for (let k = 0; k < limit && (!retOnly || ranks[k] < njr); k++) each(ranks[k]);
  };
  const pair = (a: number, b: number) => {
    if (retOnly ? a < b : a < b && a < njr) f++;
    else n++;
  };
  for (let c1 = 0; c1 < ecs.length; c1++) {
    for (let c2 = c1 + 1; c2 < ecs.length - 1; c2++) {
      walk(ecs[c1].ranks, ecs[c1].ranks.length, (a) => walk(ecs[c2].ranks, ecs[c2].ranks.length, (b) => pair(a, b)));
    }
  }
  const start = ecs[ecs.length - 1].start;
  const last = Array.from({ length: R }, (_, k) => p.pool[start + k] ?? 0);
  for (let c1 = 0; c1 < ecs.length; c1++) {
    walk(ecs[c1].ranks, ecs[c1].ranks.length, (a) => walk(last, last.length, (b) => pair(a, b)));
  }
  return [f, n + f];
}

/**
 * recalculate for a group with sub-groups: non-relevant documents (rel_level 0) after the first numRel of
 * them (in docid-rank order; only retrieved ones with _ret) are left out of the preference matrix.
 */
function recalculateArray(g: JudgmentGroupCounts, a: Uint8Array, rel: Float32Array, nj: number, njr: number, retOnly: boolean): [number, number] {
  const scan = retOnly ? njr : nj;
  let first = 0;
  let seen = 0;
  for (; first < scan; first++) if (rel[first] === 0 && ++seen === g.numRel + 1) break;
  const out = (i: number) => i >= first && rel[i] === 0;
  let f = 0;
  let n = 0;
  for (let i = 0; i < njr; i++) {
    if (out(i)) continue;
    for (let j = 0; j < i; j++) if (!out(j) && a[i * nj + j]) n++;
    for (let j = i + 1; j < njr; j++) if (!out(j) && a[i * nj + j]) f++;
    if (!retOnly) for (let j = njr; j < nj; j++) if (!out(j) && a[i * nj + j]) f++;
  }
  if (!retOnly) {
    for (let i = njr; i < nj; i++) {
      if (out(i)) continue;
      for (let j = 0; j < nj; j++) if (!out(j) && a[i * nj + j]) n++;
    }
  }
  return [f, n + f];
}
