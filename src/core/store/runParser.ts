import { statSync } from 'node:fs';
import { resolve as absolute } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Database } from 'sql.js';
import { scoreRun, type Scores } from '../analysis/scores';
import { DocArena, type ArenaParts } from '../formats/docArena';
import { Qrels, type Judgement } from '../formats/qrels';
import { readRun, Run } from '../formats/run';
import type { RunCache } from './runCache';

/**
 * Parsing new run files on both cores: the engine reads the runs an index pass will need in worker threads of
 * this module (dist/run-parser.js), two at a time, and keeps them in its run cache, so a first diff of two new
 * 1 M-line runs does not parse them one after the other. A run that fails to parse here is left to the index
 * pass, which reads it again and reports the problem with its file and line.
 * Each worker also scores its run on the splits it is given (their qrels and settings), so the two new runs of
 * a first diff are evaluated side by side too, not one after the other on the engine's thread.
 */

/** A split to score a parsed run on: its qrels and evaluation settings (the engine's session's own). */
export interface ScoringJob {
  qrels: Qrels;
  complete: boolean;
  relevanceLevel: number;
  measures: readonly string[];
}

/** The scores the workers computed, by run, with the job each is of (the engine takes them for that job only). */
const scoredInWorkers = new WeakMap<Run, { job: ScoringJob; scores: Scores }[]>();

/** A run's scores for exactly this job (the same qrels object and settings), when a worker computed them. */
export function workerScores(run: Run, job: ScoringJob): Scores | undefined {
  return scoredInWorkers
    .get(run)
    ?.find(
      (s) =>
        s.job.qrels === job.qrels &&
        s.job.complete === job.complete &&
        s.job.relevanceLevel === job.relevanceLevel &&
        s.job.measures.length === job.measures.length &&
        s.job.measures.every((m, i) => m === job.measures[i]),
    )?.scores;
}

interface WorkerJob {
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
  /** The run's per-query figures for each job given, in order. */
  evaluated: Scores[];
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
 * Parses `paths` in worker threads of `entry`, `concurrency` at a time, into `cache`, and scores each on the
 * jobs `jobsFor` gives for it (see workerScores). Never throws.
 */
export async function parseRunsInParallel(
  paths: readonly string[],
  entry: string,
  cache: RunCache,
  options: { concurrency?: number; jobsFor?: (path: string) => ScoringJob[] } = {},
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency ?? 2, paths.length) }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        const jobs = options.jobsFor?.(path) ?? [];
        const parsed = await inWorker(entry, path, jobs);
        if (!parsed) continue;
        const run = new Run(parsed.tag, parsed.qids, parsed.offsets, parsed.docIds, parsed.scores, DocArena.fromParts(parsed.docs));
        cache.put(path, parsed.stamp, run);
        if (jobs.length > 0) scoredInWorkers.set(run, jobs.map((job, i) => ({ job, scores: parsed.evaluated[i] })));
      }
    }),
  );
}

function inWorker(entry: string, path: string, scoring: ScoringJob[]): Promise<Parsed | undefined> {
  const jobs: WorkerJob[] = scoring.map((j) => ({ judgements: [...j.qrels.entries()], complete: j.complete, relevanceLevel: j.relevanceLevel, measures: j.measures }));
  return new Promise((resolve) => {
    const w = entry.endsWith('.ts')
      ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { eval: true, workerData: { path, jobs } })
      : new Worker(absolute(entry), { workerData: { path, jobs }, execArgv: [] });
    let settled = false;
    const done = (p: Parsed | undefined) => {
      if (settled) return;
      settled = true;
      resolve(p);
      void w.terminate();
    };
    w.once('message', (m: Parsed | null) => done(m ?? undefined));
    w.once('error', () => done(undefined));
    w.once('exit', () => done(undefined));
  });
}

// The worker's side: parse, then hand the arrays over (transferred, not copied).
if (!isMainThread && (workerData as { path?: unknown } | undefined)?.path !== undefined && parentPort) {
  const { path, jobs } = workerData as { path: string; jobs: WorkerJob[] };
  try {
    const stamp = stampOf(path);
    const run = readRun(path);
    const evaluated = jobs.map((j) => scoreRun(Qrels.fromJudgements(j.judgements, 'error'), run, j));
    // The arena's bytes may live in Node's shared Buffer pool, which cannot be transferred: copy them out.
    const arena = (run.docs as DocArena).toParts();
    const docs = { ...arena, bytes: new Uint8Array(arena.bytes.subarray(0, arena.used)) };
    const parsed: Parsed = { tag: run.tag, qids: [...run.qids], offsets: run.offsets, docIds: run.docIds, scores: run.scores, docs, stamp, evaluated };
    const buffers = [parsed.offsets, parsed.docIds, parsed.scores, docs.bytes, docs.starts, docs.hashes, ...evaluated.flatMap((e) => e.columns)].map((a) => a.buffer as ArrayBuffer);
    parentPort.postMessage(parsed, [...new Set(buffers)]);
  } catch {
    parentPort.postMessage(null);
  }
}
