import { compareBytes } from '../../formats/idTable';
import { Run } from '../../formats/run';
import { normalizeList, type Normalization } from './normalize';
import { FusedIds, compareRange } from './fusedIds';
import { rankDescending } from './rankSort';

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

  const qids = unionSorted(runs.map((r) => r.qids));
  const qIndex = runs.map((r) => {
    const map = new Map<string, number>();
    r.qids.forEach((q, i) => map.set(q, i));
    return map;
  });
  // Per query, the documents of all runs are matched by their bytes in a small hash table (the arenas keep a
  // hash per entry), so no id is ever turned into a string or interned globally.
  let most = 1;
  for (const qid of qids) {
    let n = 0;
    runs.forEach((r, i) => {
      const q = qIndex[i].get(qid);
      if (q !== undefined) n += Math.min(r.offsets[q + 1] - r.offsets[q], depthOf(i));
    });
    if (n > most) most = n;
  }
  let size = 16;
  while (size < most * 2) size <<= 1;
  const table = new Int32Array(size); // slot -> document index k + 1 within the query, 0 = empty
  const mask = size - 1;
  const usedSlots = new Int32Array(most);
  const repRun = new Int32Array(most); // where document k's bytes are: run and entry
  const repEntry = new Int32Array(most);
  const repHash = new Int32Array(most);
  const order = new Int32Array(most);
  const acc = new Float64Array(most);
  const present = new Int32Array(most);
  const zero = new Uint8Array(most);
  let norm = new Float64Array(1024);

  const outOffsets = new Int32Array(qids.length + 1);
  let outRun = new Int32Array(1 << 16);
  let outEntry = new Int32Array(1 << 16);
  let outScores = new Float64Array(1 << 16);
  let outN = 0;

  const compareDocs = (a: number, b: number): number => {
    const da = runs[repRun[a]].docs;
    const db = runs[repRun[b]].docs;
    return compareRange(da.buffer, da.start(repEntry[a]), da.end(repEntry[a]), db.buffer, db.start(repEntry[b]), db.end(repEntry[b]));
  };

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
      const docs = run.docs;
      const buf = docs.buffer;
      for (let j = 0; j < n; j++) {
        const e = run.docIds[start + j];
        const es = docs.start(e);
        const ee = docs.end(e);
        const h = docs.hash(e);
        let slot = h & mask;
        let k = -1;
        for (;;) {
          const v = table[slot];
          if (v === 0) break;
          if (repHash[v - 1] === h && runs[repRun[v - 1]].docs.equalsBytes(repEntry[v - 1], buf, es, ee)) {
            k = v - 1;
            break;
          }
          slot = (slot + 1) & mask;
        }
        if (k < 0) {
          k = nt++;
          table[slot] = k + 1;
          usedSlots[k] = slot;
          repRun[k] = i;
          repEntry[k] = e;
          repHash[k] = h;
          acc[k] = 0;
          present[k] = 0;
          zero[k] = 0;
        }
        present[k]++;
        const s = norm[j];
        switch (method) {
          case 'rrf':
            acc[k] += w / (rrfK + j + 1);
            break;
          case 'geometric':
            if (s > 0) acc[k] += w * Math.log(s);
            else zero[k] = 1;
            break;
          case 'harmonic':
            if (s > 0) acc[k] += w / s;
            else zero[k] = 1;
            break;
          default:
            acc[k] += w * s;
        }
      }
    }
    for (let k = 0; k < nt; k++) {
      table[usedSlots[k]] = 0;
      const all = present[k] === m && zero[k] === 0;
      switch (method) {
        case 'arithmetic':
          acc[k] /= W;
          break;
        case 'geometric':
          acc[k] = all ? Math.exp(acc[k] / W) : 0;
          break;
        case 'harmonic':
          acc[k] = all ? W / acc[k] : 0;
          break;
        case 'combmnz':
          acc[k] *= present[k];
          break;
      }
    }
    // The best k in trec_eval order: score descending, ties by document id descending.
    const ranked = order.subarray(0, nt);
    for (let k = 0; k < nt; k++) ranked[k] = k;
    rankDescending(ranked, acc, compareDocs);
    const keep = Math.min(nt, opts.k);
    if (outN + keep > outRun.length) {
      const grow = Math.max(outRun.length * 2, outN + keep);
      outRun = resized(outRun, grow, outN);
      outEntry = resized(outEntry, grow, outN);
      const s = new Float64Array(grow);
      s.set(outScores.subarray(0, outN));
      outScores = s;
    }
    for (let j = 0; j < keep; j++) {
      const k = ranked[j];
      outRun[outN] = repRun[k];
      outEntry[outN] = repEntry[k];
      outScores[outN++] = acc[k];
    }
    outOffsets[qn + 1] = outN;
  });
  const ids = new FusedIds(
    runs.map((r) => r.docs),
    outRun,
    outEntry,
    outN,
  );
  const lines = new Int32Array(outN);
  for (let j = 0; j < outN; j++) lines[j] = j;
  return new Run(opts.tag, qids, outOffsets, lines, outScores.slice(0, outN), ids);
}

function resized(a: Int32Array, size: number, used: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a.subarray(0, used));
  return b;
}

/** The union of the runs' query ids, in byte order (trec_eval's). */
function unionSorted(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const q of l) all.add(q);
  return [...all].sort(compareBytes);
}
