import { encodeId, hashBytes } from '../formats/idTable';
import type { Run } from '../formats/run';

/** A query's first `depth` documents in trec_eval's ranking order (1-based ranks). */
export function topDocs(run: Run, queryId: string, depth: number): { docId: string; rank: number; score: number }[] {
  const q = run.queryIndex(queryId);
  if (q < 0) return [];
  const s = run.offsets[q];
  const e = Math.min(run.offsets[q + 1], s + depth);
  const out = [];
  for (let i = s; i < e; i++) out.push({ docId: run.docs.string(run.docIds[i]), rank: i - s + 1, score: run.scores[i] });
  return out;
}

/** Every document of a query's ranking with its 1-based rank. */
export function rankMap(run: Run, queryId: string): Map<string, number> {
  const m = new Map<string, number>();
  const q = run.queryIndex(queryId);
  if (q < 0) return m;
  const s = run.offsets[q];
  for (let i = s; i < run.offsets[q + 1]; i++) m.set(run.docs.string(run.docIds[i]), i - s + 1);
  return m;
}

/** The queries whose first `depth` documents in a run include `docId`. */
export function queriesRanking(run: Run, docId: string, depth: number): string[] {
  const b = encodeId(docId);
  const out: string[] = [];
  // Entries (entry, query) whose id hashes as docId's, in run order: compare their bytes to tell collisions apart.
  const entries = topIndex(run, depth).get(hashBytes(b, 0, b.length)) ?? [];
  for (let k = 0; k < entries.length; k += 2) {
    const q = entries[k + 1];
    if (out[out.length - 1] !== run.qids[q] && run.docs.equalsBytes(run.docIds[entries[k]], b, 0, b.length)) out.push(run.qids[q]);
  }
  return out;
}

/**
 * Per run (runs do not change once read), the entries of the first `depth` documents of every query by the hash
 * of their id: built once, so a judgement looks its document up instead of scanning every ranking.
 */
const topIndexes = new WeakMap<Run, { depth: number; byHash: Map<number, number[]> }>();

function topIndex(run: Run, depth: number): Map<number, number[]> {
  const kept = topIndexes.get(run);
  if (kept?.depth === depth) return kept.byHash;
  const byHash = new Map<number, number[]>();
  for (let q = 0; q < run.qids.length; q++) {
    const s = run.offsets[q];
    for (let i = s; i < Math.min(run.offsets[q + 1], s + depth); i++) {
      const h = run.docs.hash(run.docIds[i]);
      const list = byHash.get(h);
      if (list) list.push(i, q);
      else byHash.set(h, [i, q]);
    }
  }
  topIndexes.set(run, { depth, byHash });
  return byHash;
}
