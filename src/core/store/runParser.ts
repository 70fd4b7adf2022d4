import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve as absolute } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Database } from 'sql.js';
import { scoreRun, type Scores } from '../analysis/scores';
import { DocArena, type ArenaParts } from '../formats/docArena';
import { Qrels, type Judgement } from '../formats/qrels';
import { readRun, Run } from '../formats/run';
import { hashedBy } from './fileState';
import type { RunCache } from './runCache';

/**
 * Parsing new run files on both cores: the engine reads the runs an index pass will need in worker threads of
 * this module (dist/run-parser.js), two at a time, and keeps them in its run cache, so a first diff of two new
 * 1 M-line runs does not parse them one after the other. The workers also score each run on the splits it
 * will be shown on (the same scoreRun the sessions use), so the engine's thread only takes the figures. A run
 * that fails to parse here is left to the index pass, which reads it again and reports the problem with its
 * file and line.
 */

/** A split to score a run on in the worker: its qrels (as the split's session holds them) and the session's options. */
export interface ScoringJob {
  key: string;
  judgements: Judgement[];
  complete: boolean;
  relevanceLevel: number;
  measures: readonly string[];
}

interface Parsed {
  tag: string;
  qids: string[];
  offsets: Int32Array;
  docIds: Int32Array;
  scores: Float64Array;
  docs: ArenaParts;
  stamp: string;
  /** The file's sha256 (the index keeps it to tell a touched but identical file): hashed here, off the engine's thread. */
  hash: string;
  /** The run's per-query figures on each split of its job that it ranks queries of. */
  perSplit: { key: string; scores: Scores }[];
}

function stampOf(path: string): string {
  const st = statSync(path);
  return `${st.size}:${st.mtimeMs}`;
}

/** Run files whose size or mtime differ from what the index recorded: the ones the pass will parse. */
export function changedRunFiles(db: Database, paths: readonly string[]): string[] {
  return paths.filter((p) => {
    try {
      const st = statSync(p);
      const row = db.exec('SELECT size, mtime_ms FROM files WHERE path = ?', [p])[0]?.values[0];
      return !row || row[0] !== st.size || row[1] !== st.mtimeMs;
    } catch {
      return false;
    }
  });
}

/**
 * Parses `paths` in worker threads of `entry`, `concurrency` at a time, into `cache`. Each worker starts
 * parsing at once; `scoring` (a run path -> the splits to score it on) is sent to it when it resolves, so the
 * caller can build what it needs meanwhile. Figures per split go to `scored`, with the file's stamp
 * (size:mtime) as parsed. Never throws.
 */
export async function parseRunsInParallel(
  paths: readonly string[],
  entry: string,
  cache: RunCache,
  scoring: Promise<(path: string) => ScoringJob[]> = Promise.resolve(() => []),
  scored: (path: string, stamp: string, key: string, scores: Scores) => void = () => undefined,
  concurrency = 2,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, paths.length) }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        const parsed = await inWorker(entry, path, scoring);
        if (!parsed) continue;
        hashedBy(path, parsed.stamp, parsed.hash);
        cache.put(path, parsed.stamp, new Run(parsed.tag, parsed.qids, parsed.offsets, parsed.docIds, parsed.scores, DocArena.fromParts(parsed.docs)));
        for (const p of parsed.perSplit) scored(path, parsed.stamp, p.key, p.scores);
      }
    }),
  );
}

function inWorker(entry: string, path: string, scoring: Promise<(path: string) => ScoringJob[]>): Promise<Parsed | undefined> {
  return new Promise((resolve) => {
    const w = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: { path } })
      : new Worker(absolute(entry), { workerData: { path }, execArgv: [] });
    let settled = false;
    const done = (p: Parsed | undefined) => {
      if (settled) return;
      settled = true;
      resolve(p);
      void w.terminate();
    };
    scoring.then(
      (jobsOf) => !settled && w.postMessage(jobsOf(path)),
      () => !settled && w.postMessage([]),
    );
    w.once('message', (m: Parsed | null) => done(m ?? undefined));
    w.once('error', () => done(undefined));
    w.once('exit', () => done(undefined));
  });
}

// The worker's side: parse, then score on the splits the engine sends, then hand the arrays over (transferred,
// not copied).
if (!isMainThread && (workerData as { path?: unknown } | undefined)?.path !== undefined && parentPort) {
  const port = parentPort;
  const { path } = workerData as { path: string };
  const scoring = new Promise<ScoringJob[]>((resolve) => port.once('message', resolve));
  void (async () => {
    try {
      const stamp = stampOf(path);
      const run = readRun(path);
      const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
      const perSplit = (await scoring).flatMap((j) => {
        const qrels = Qrels.fromJudgements(j.judgements, 'error');
        // As the engine adds runs: one that ranks none of the split's queries is not shown there.
        return qrels.queryIds().some((q) => run.queryIndex(q) >= 0) ? [{ key: j.key, scores: scoreRun(qrels, run, j) }] : [];
      });
      // The arena's bytes may live in Node's shared Buffer pool, which cannot be transferred: copy them out.
      const arena = (run.docs as DocArena).toParts();
      const docs = { ...arena, bytes: new Uint8Array(arena.bytes.subarray(0, arena.used)) };
      const parsed: Parsed = { tag: run.tag, qids: [...run.qids], offsets: run.offsets, docIds: run.docIds, scores: run.scores, docs, stamp, hash, perSplit };
      const buffers = [parsed.offsets, parsed.docIds, parsed.scores, docs.bytes, docs.starts, docs.hashes, ...perSplit.flatMap((p) => p.scores.columns)].map((a) => a.buffer as ArrayBuffer);
      port.postMessage(parsed, [...new Set(buffers)]);
    } catch {
      port.postMessage(null);
    }
  })();
}
