import type { FieldIndex } from './index';
import type { Hits, QueryVector } from './search';

/**
 * RM3 pseudo-relevance feedback as Anserini's Rm3Reranker computes it (defaults fbTerms 10, fbDocs 10,
 * originalQueryWeight 0.5):
 *  - each of the top fbDocs documents becomes a term -> tf vector over the feedback field, keeping only terms of
 *    2-20 characters in [a-z0-9] whose document frequency is at most 10% of the collection, pruned to its
 *    heaviest terms (Anserini's pruneToSize keeps k + 2 entries: an off-by-two we reproduce);
 *  - relevance model: rm(t) = sum over docs of tf(t, d) / |d|_1 * score(d); pruned likewise, scaled to unit L1;
 *  - expanded query = w * q / |q|_1 + (1 - w) * rm, searched as a weighted query.
 * Ties in pruning (equal weights) keep terms in ascending string order; Anserini leaves that to hash order.
 */
export interface Rm3Params {
  fbTerms: number;
  fbDocs: number;
  originalQueryWeight: number;
}

export const RM3_DEFAULTS: Rm3Params = { fbTerms: 10, fbDocs: 10, originalQueryWeight: 0.5 };

const f = Math.fround;

/** What RM3 did to one query: the feedback documents, both weighted term lists and the query they make. */
export interface Rm3Expansion {
  /** Document numbers of the feedback documents, best first. */
  feedbackDocs: number[];
  /** The original query scaled to unit L1. */
  original: QueryVector;
  /** The relevance model, pruned and scaled to unit L1. */
  model: QueryVector;
  /** w * original + (1 - w) * model: the query searched. */
  expanded: QueryVector;
}

/** Forward index (document -> its terms and tfs) of a field, and which terms may be feedback terms. */
interface Forward {
  docStart: Uint32Array;
  docTerms: Uint32Array;
  docTfs: Uint32Array;
  eligible: Uint8Array;
}

/** Built once per field and shared by every Rm3 over it (a grid over fbTerms, fbDocs and the weight). */
const FORWARD = new WeakMap<FieldIndex, Forward>();

function forwardOf(field: FieldIndex, numDocs: number): Forward {
  const known = FORWARD.get(field);
  if (known) return known;
  const { offsets, docs, tfs, terms } = field;
  const counts = new Uint32Array(numDocs + 1);
  for (let p = 0; p < docs.length; p++) counts[docs[p] + 1]++;
  for (let d = 0; d < numDocs; d++) counts[d + 1] += counts[d];
  const docStart = counts.slice();
  const fill = counts;
  const docTerms = new Uint32Array(docs.length);
  const docTfs = new Uint32Array(docs.length);
  for (let t = 0; t < terms.length; t++) {
    for (let p = offsets[t]; p < offsets[t + 1]; p++) {
      const at = fill[docs[p]]++;
      docTerms[at] = t;
      docTfs[at] = tfs[p];
    }
  }
  const eligible = new Uint8Array(terms.length);
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t];
    const df = offsets[t + 1] - offsets[t];
    eligible[t] = term.length >= 2 && term.length <= 20 && /^[a-z0-9]+$/.test(term) && !(f(df / numDocs) > f(0.1)) ? 1 : 0;
  }
  const forward = { docStart, docTerms, docTfs, eligible };
  FORWARD.set(field, forward);
  return forward;
}

export class Rm3 {
  private readonly forward: Forward;

  constructor(
    private readonly field: FieldIndex,
    numDocs: number,
    readonly params: Rm3Params,
  ) {
    this.forward = forwardOf(field, numDocs);
  }

  /** The expanded query for `query`, given its first-stage hits (best first). */
  expand(query: QueryVector, hits: Hits): QueryVector {
    return this.expansion(query, hits).expanded;
  }

  /** The expansion of `query` with its parts, given its first-stage hits (best first). */
  expansion(query: QueryVector, hits: Hits): Rm3Expansion {
    const { fbDocs, fbTerms, originalQueryWeight: w } = this.params;
    const { docStart, docTerms, docTfs, eligible } = this.forward;
    const n = Math.min(fbDocs, hits.docs.length);
    const vectors: Map<string, number>[] = [];
    const vocab = new Set<string>();
    for (let i = 0; i < n; i++) {
      const d = hits.docs[i];
      const v = new Map<string, number>();
      for (let p = docStart[d]; p < docStart[d + 1]; p++) {
        const t = docTerms[p];
        if (eligible[t]) v.set(this.field.terms[t], docTfs[p]);
      }
      const pruned = pruneToSize(v, fbTerms);
      for (const t of pruned.keys()) vocab.add(t);
      vectors.push(pruned);
    }
    const norms = vectors.map((v) => f(l1(v)));
    const rm = new Map<string, number>();
    for (const term of vocab) {
      let weight = 0;
      for (let i = 0; i < n; i++) {
        if (norms[i] > f(0.001)) weight = f(weight + f(f((vectors[i].get(term) ?? 0) / norms[i]) * hits.scores[i]));
      }
      rm.set(term, weight);
    }
    const model = scaleToUnitL1(pruneToSize(rm, fbTerms));
    const original = scaleToUnitL1(query);
    const expanded: QueryVector = new Map();
    for (const term of new Set([...original.keys(), ...model.keys()])) {
      expanded.set(term, f(f(w * (original.get(term) ?? 0)) + f(f(1 - w) * (model.get(term) ?? 0))));
    }
    return { feedbackDocs: Array.from(hits.docs.subarray(0, n)), original, model, expanded };
  }
}

/** Anserini's FeatureVector.pruneToSize: heaviest first, and (sic) k + 2 entries kept. */
function pruneToSize(v: Map<string, number>, k: number): Map<string, number> {
  const sorted = [...v].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new Map(sorted.slice(0, k + 2));
}

function l1(v: Map<string, number>): number {
  let s = 0;
  for (const x of v.values()) s += Math.abs(x);
  return s;
}

function scaleToUnitL1(v: Map<string, number>): Map<string, number> {
  const norm = l1(v);
  const out = new Map<string, number>();
  for (const [t, x] of v) out.set(t, norm > 0 ? f(x / norm) : 0);
  return out;
}
