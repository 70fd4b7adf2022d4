import type { Run } from '../formats/run';
import { fnv1a } from '../random';
import { topDocs } from './rankings';
import type { SplitState } from './state';

// The depth-k pool of unjudged (query, document) pairs of some runs, in blind order: what the Holes panel
// lists and the Judge sidebar judges.

export interface Pair {
  queryId: string;
  docId: string;
}

/**
 * Depth-k pool of the unjudged pairs in the given runs, deduplicated, in query order (trec_eval's). Within a
 * query the order comes from a hash of the document id, not from the ranks, so the order gives the judge no
 * hint of how high a run ranked a document. Judged pairs (qrels or the user's) are left out, except those in
 * `keep` (the user's judgements, so a queue does not shift under the judge).
 */
export function pool(state: SplitState, keys: readonly string[], depth: number, keep: { has(pair: string): boolean } = new Set()): Pair[] {
  const runs = keys.filter((k) => state.hasRun(k)).map((k) => state.run(k));
  return state.qrels('original').queryIds().flatMap((qid) => poolOf(state, qid, runs, depth, keep));
}

/** One query's pooled pairs (see pool()). */
function poolOf(state: SplitState, qid: string, runs: readonly Run[], depth: number, keep: { has(pair: string): boolean }): Pair[] {
  const docs = new Set<string>();
  for (const run of runs) {
    for (const d of topDocs(run, qid, depth)) {
      if (state.grade(qid, d.docId) !== null && !keep.has(`${qid}\t${d.docId}`)) continue;
      docs.add(d.docId);
    }
  }
  return [...docs]
    .map((d) => [fnv1a(d), d] as const)
    .sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1))
    .map(([, docId]) => ({ queryId: qid, docId }));
}

/** The user pool's parts by query, with the judgements' version they are synced to. */
interface Parts {
  version: number;
  perQuery: Map<string, { items: Pair[]; unjudged: number }>;
}

/**
 * pool() keeping the user's judgements (what the views show), kept per query between calls: a judgement
 * changes only its query's part, so a keystroke re-pools one query, not the split.
 */
export function userPool(state: SplitState, keys: readonly string[], depth: number): Pair[] {
  const out: Pair[] = [];
  for (const part of userPoolParts(state, keys, depth)) for (const p of part.items) out.push(p);
  return out;
}

/** The first `n` pairs of userPool(), its size and how many of it are unjudged, without building the whole list. */
export function userPoolHead(state: SplitState, keys: readonly string[], depth: number, n: number): { items: Pair[]; size: number; unjudged: number } {
  const items: Pair[] = [];
  let size = 0;
  let unjudged = 0;
  for (const part of userPoolParts(state, keys, depth)) {
    size += part.items.length;
    unjudged += part.unjudged;
    for (let i = 0; i < part.items.length && items.length < n; i++) items.push(part.items[i]);
  }
  return { items, size, unjudged };
}

function userPoolParts(state: SplitState, keys: readonly string[], depth: number): { items: Pair[]; unjudged: number }[] {
  const known = keys.filter((k) => state.hasRun(k));
  const parts = state.keep<Parts>(`pool:${depth}`, known, () => ({ version: state.version, perQuery: new Map() }));
  if (parts.version !== state.version) {
    const changed = state.changedSince(parts.version);
    if (changed === 'all') parts.perQuery.clear();
    else for (const q of changed) parts.perQuery.delete(q);
    parts.version = state.version;
  }
  const runs = known.map((k) => state.run(k));
  const keep = state.userJudged();
  return state.qrels('original').queryIds().map((qid) => {
    let part = parts.perQuery.get(qid);
    if (!part) {
      const items = poolOf(state, qid, runs, depth, keep);
      part = { items, unjudged: items.filter((p) => state.grade(qid, p.docId) === null).length };
      parts.perQuery.set(qid, part);
    }
    return part;
  });
}
