import { IdTable, compareBytes } from '../../formats/idTable';
import { Run } from '../../formats/run';
import { normalizeList, type Normalization } from './normalize';

/**
 * Fusion of two or more runs. Per query, each run's first `depth` results are normalized (normalize.ts); a
 * document missing from a run counts 0 for it (as in the OpenSearch study). With s_i the normalized score in
 * run i, w_i its weight (default 1), W = Σ w_i and m the number of runs:
 *
 *   arithmetic  Σ w_i s_i / W
 *   geometric   exp(Σ w_i ln s_i / W); 0 when any s_i <= 0 (so a document missing from a run gets 0)
 *   harmonic    W / Σ (w_i / s_i);   0 when any s_i <= 0
 *   linear      Σ w_i s_i: the study's s = b + f * n is `--weights 1,f`
 *   combsum     Σ w_i s_i (Fox & Shaw; the same sum as linear, named for the literature)
 *   combmnz     Σ w_i s_i × (number of runs that retrieved the document)
 *   rrf         Σ w_i / (k + r_i), r_i the 1-based rank in run i, k = 60 (Cormack et al. 2009); scores are not used
 *
 * Ranks are positions in trec_eval's order (score descending, ties by document id descending), not the file's
 * rank column, which trec_eval ignores too. The fused list of each query is ranked the same way.
 */
export const METHODS = ['arithmetic', 'geometric', 'harmonic', 'linear', 'combsum', 'combmnz', 'rrf'] as const;
export type Method = (typeof METHODS)[number];

export interface FuseOptions {
  method: Method;
  /** Ignored by rrf, which fuses ranks. */
  norm: Normalization;
  /** One per run; default all 1. */
  weights?: readonly number[];
  /** Results taken from each run per query (one per run, or one for all); default all. */
  depth?: readonly number[];
  /** RRF's k. */
  rrfK?: number;
  /** Results kept per query in the fused run. */
  k: number;
  tag: string;
}

/** A run as fusion reads it: the columns of `Run` (ranked per query in trec_eval order). */
export type RankedRun = Pick<Run, 'qids' | 'offsets' | 'docIds' | 'scores' | 'docs'>;

export function fuse(runs: readonly RankedRun[], opts: FuseOptions): Run {
  const m = runs.length;
  if (m < 1) throw new Error('fusion needs at least one run');
  const weights = opts.weights ?? runs.map(() => 1);
  if (weights.length !== m) throw new Error(`${weights.length} weights for ${m} runs`);
  const depths = opts.depth ?? [Infinity];
  if (depths.length !== 1 && depths.length !== m) throw new Error(`${depths.length} depths for ${m} runs`);
  const depthOf = (i: number): number => depths[depths.length === 1 ? 0 : i];
  const W = weights.reduce((a, b) => a + b, 0);
  const rrfK = opts.rrfK ?? 60;
  const method = opts.method;

  // One id space for all runs; each run's ids are translated once per distinct document.
  const shared = new IdTable(1 << 12);
  const trans = runs.map((r) => new Int32Array(r.docs.size).fill(-1));
  const cap = runs.reduce((a, r) => a + r.docs.size, 0);
  const acc = new Float64Array(cap);
  const present = new Int32Array(cap);
  const zero = new Uint8Array(cap);
  const stamp = new Int32Array(cap).fill(-1);
  const touched = new Int32Array(cap);
  let norm = new Float64Array(1024);

  const qids = unionSorted(runs.map((r) => r.qids));
  const outOffsets = new Int32Array(qids.length + 1);
  let outDocs = new Int32Array(1 << 16);
  let outScores = new Float64Array(1 << 16);
  let outN = 0;

  const qIndex = runs.map((r) => {
    const map = new Map<string, number>();
    r.qids.forEach((q, i) => map.set(q, i));
    return map;
  });

  qids.forEach((qid, qn) => {
    let nt = 0;
    for (let i = 0; i < m; i++) {
      const run = runs[i];
      const q = qIndex[i].get(qid);
      if (q === undefined) continue;
      const start = run.offsets[q];
      const n = Math.min(run.offsets[q + 1] - start, depthOf(i));
      if (n <= 0) continue;
      if (method !== 'rrf') {
        if (norm.length < n) norm = new Float64Array(n * 2);
        normalizeList(opts.norm, run.scores.subarray(start, start + n), n, norm);
      }
      const w = weights[i];
      const tr = trans[i];
      for (let j = 0; j < n; j++) {
        const local = run.docIds[start + j];
        let id = tr[local];
        if (id < 0) id = tr[local] = shared.internString(run.docs.string(local));
        if (stamp[id] !== qn) {
          stamp[id] = qn;
          touched[nt++] = id;
          acc[id] = 0;
          present[id] = 0;
          zero[id] = 0;
        }
        present[id]++;
        const s = norm[j];
        switch (method) {
          case 'rrf':
            acc[id] += w / (rrfK + j + 1);
            break;
          case 'geometric':
            if (s > 0) acc[id] += w * Math.log(s);
            else zero[id] = 1;
            break;
          case 'harmonic':
            if (s > 0) acc[id] += w / s;
            else zero[id] = 1;
            break;
          default:
            acc[id] += w * s;
        }
      }
    }
    // Final scores, then the best k in trec_eval order.
    const ids = touched.subarray(0, nt);
    for (const id of ids) {
      const all = present[id] === m && zero[id] === 0;
      switch (method) {
        case 'arithmetic':
          acc[id] /= W;
          break;
        case 'geometric':
          acc[id] = all ? Math.exp(acc[id] / W) : 0;
          break;
        case 'harmonic':
          acc[id] = all ? W / acc[id] : 0;
          break;
        case 'combmnz':
          acc[id] *= present[id];
          break;
      }
    }
    const order = Array.from(ids).sort((a, b) => acc[b] - acc[a] || shared.compare(b, a));
    const keep = Math.min(order.length, opts.k);
    if (outN + keep > outDocs.length) {
      const size = Math.max(outDocs.length * 2, outN + keep);
      const d = new Int32Array(size);
      d.set(outDocs.subarray(0, outN));
      const s = new Float64Array(size);
      s.set(outScores.subarray(0, outN));
      outDocs = d;
      outScores = s;
    }
    for (let j = 0; j < keep; j++) {
      outDocs[outN] = order[j];
      outScores[outN++] = acc[order[j]];
    }
    outOffsets[qn + 1] = outN;
  });
  return new Run(opts.tag, qids, outOffsets, outDocs.slice(0, outN), outScores.slice(0, outN), shared);
}

/** The union of the runs' query ids, in byte order (trec_eval's). */
function unionSorted(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const q of l) all.add(q);
  return [...all].sort(compareBytes);
}
