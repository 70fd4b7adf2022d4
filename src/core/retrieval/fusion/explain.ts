import { RankedScores } from '../../formats/runWriter';
import { Run } from '../../formats/run';
import { normalizeList } from './normalize';
import { fuseRuns, type FusionSpec } from './run';

/**
 * Why a document has its fused score: per input run, its rank and raw score there (within the fusion depth),
 * the normalized score, the run's weight and what it adds. Contributions combine to the fused score by the
 * method's rule (`combine`): a sum for arithmetic (weights divided by their total), linear, combsum, combmnz
 * (sum times the runs that retrieved the document) and rrf; for the geometric mean they are w ln s / W, whose
 * sum's exponential is the score; for the harmonic mean w / s, with W over their sum the score. The score is
 * fusion's own (fuse.ts, run on the query's lists), and printed as the fused run file prints it.
 */
export interface FusionInput {
  run: string;
  tag: string;
  /** 1-based position in trec_eval order within the fusion depth; null when the run lacks the document there. */
  rank: number | null;
  raw: number | null;
  normalized: number | null;
  weight: number;
  /** The term this run adds (0 when it lacks the document; see `combine`). */
  contribution: number;
}

export interface FusionExplanation {
  retriever: 'fuse';
  queryId: string;
  docId: string;
  method: FusionSpec['method'];
  norm: FusionSpec['norm'];
  rrfK: number;
  /** How contributions make the score (see the module comment). */
  combine: string;
  inputs: FusionInput[];
  /** Runs that retrieved the document (combmnz's multiplier). */
  retrievedBy: number;
  score: number;
  rank: number | null;
  printed: string | null;
}

const COMBINE: Record<FusionSpec['method'], string> = {
  arithmetic: 'sum of w·s/W',
  linear: 'sum of w·s',
  combsum: 'sum of w·s',
  combmnz: 'sum of w·s·(runs retrieving it)',
  geometric: 'exp(sum of w·ln s/W); 0 when a run lacks it or s ≤ 0',
  harmonic: 'W / (sum of w/s); 0 when a run lacks it or s ≤ 0',
  rrf: 'sum of w/(k + rank)',
};

/** Explains `docId` for `queryId` in the fusion of `runs` (paths, for naming) with `spec`. */
export function explainFusion(runs: readonly Run[], paths: readonly string[], spec: FusionSpec, queryId: string, docId: string): FusionExplanation {
  const m = runs.length;
  const weights = spec.weights ?? runs.map(() => 1);
  const W = weights.reduce((a, b) => a + b, 0);
  const depthOf = (i: number) => (spec.depth ? spec.depth[spec.depth.length === 1 ? 0 : i] : Infinity);
  const inputs: FusionInput[] = [];
  let retrievedBy = 0;
  const lists = runs.map((run, i) => run.ranking(queryId, depthOf(i)));
  for (let i = 0; i < m; i++) {
    const list = lists[i];
    const j = list ? list.docs.indexOf(docId) : -1;
    const base = { run: paths[i], tag: runs[i].tag, weight: weights[i] };
    if (!list || j < 0) {
      inputs.push({ ...base, rank: null, raw: null, normalized: null, contribution: 0 });
      continue;
    }
    retrievedBy++;
    const norm = new Float64Array(list.docs.length);
    if (spec.method !== 'rrf') normalizeList(spec.norm, list.scores, list.docs.length, norm);
    const s = norm[j];
    const w = weights[i];
    const contribution = ((): number => {
      switch (spec.method) {
        case 'rrf':
          return w / (spec.rrfK + j + 1);
        case 'arithmetic':
          return (w * s) / W;
        case 'geometric':
          return s > 0 ? (w * Math.log(s)) / W : -Infinity;
        case 'harmonic':
          return s > 0 ? w / s : Infinity;
        default:
          return w * s;
      }
    })();
    inputs.push({ ...base, rank: j + 1, raw: list.scores[j], normalized: spec.method === 'rrf' ? null : s, contribution });
  }
  if (spec.method === 'combmnz') for (const input of inputs) input.contribution *= retrievedBy;
  // The fused list of this query alone: the same function the fused run was written with.
  const oneQuery = lists.map((list, i) => Run.fromRankings(runs[i].tag, list ? [[queryId, list.docs, list.scores]] : []));
  const fused = fuseRuns(oneQuery, spec, 'explain').ranking(queryId);
  const at = fused ? fused.docs.indexOf(docId) : -1;
  let printed: string | null = null;
  if (fused && at >= 0) {
    const texts = new RankedScores();
    for (let r = 0; r <= at; r++) printed = texts.next(fused.scores[r]);
  }
  return {
    retriever: 'fuse',
    queryId,
    docId,
    method: spec.method,
    norm: spec.norm,
    rrfK: spec.rrfK,
    combine: COMBINE[spec.method],
    inputs,
    retrievedBy,
    score: at >= 0 ? fused!.scores[at] : 0,
    rank: at >= 0 ? at + 1 : null,
    printed,
  };
}
