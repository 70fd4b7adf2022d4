import type { Database } from 'sql.js';
import { discover, SKIPPED_RUN } from '../index/discovery';
import { forgetFile } from '../index/fileState';
import { indexDataset, type IndexContext } from '../index/indexDataset';
import { indexRun } from '../index/indexRuns';
import { evaluationOf, type EvaluationSettings } from './settings';
import type { IndexSummary } from '../index/nodes';
import type { Problem } from '../formats/problems';
import { runCache } from '../index/runCache';
import { changedRunFiles, type RunParserThreads } from '../index/runParser';
import { SplitModels, splitKey } from './splits';
import { rows, scalar } from '../index/sql';

export interface IndexOptions extends EvaluationSettings {
  runsFolder: string;
  /** The run parser's threads: new run files are then parsed two at a time, off this thread. */
  runParsers?: RunParserThreads;
  /** The engine's splits: they score the runs (one evaluation for the tree and the views); a fresh set by default. */
  models?: SplitModels;
  signal?: AbortSignal;
  onProgress?: (message: string, fraction?: number) => void;
}

/**
 * Discovers the datasets and runs under `roots` and brings the database up to date with them: new and
 * changed files are (re-)read, unchanged ones cost a stat, and datasets or runs gone from disk are dropped.
 * Problems found are stored (for the Problems panel after a restart) and counted in the summary.
 */
export async function indexWorkspace(db: Database, roots: readonly string[], options: IndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  const found = discover(roots, { runsFolder: options.runsFolder });
  const evaluation = evaluationOf(options);
  const models = options.models ?? new SplitModels(db, () => evaluation);
  const problems: Problem[] = [];
  const ctx: IndexContext = {
    problems,
    progress: (message, fraction) => options.onProgress?.(message, fraction),
    signal: options.signal,
    reindexed: [],
    skippedLines: 0,
  };

  db.run('DELETE FROM problems WHERE message LIKE ?', [`${SKIPPED_RUN}%`]);
  problems.push(...found.problems);

  const removed: string[] = [];
  const keepDatasets = new Set(found.datasets.map((d) => d.dir));
  for (const d of rows<{ id: number; path: string }>(db, 'SELECT id, path FROM datasets')) {
    if (keepDatasets.has(d.path)) continue;
    const under = [`${likeEscape(d.path)}/%`];
    db.run("DELETE FROM files WHERE path LIKE ? ESCAPE '\\'", under);
    db.run("DELETE FROM problems WHERE file LIKE ? ESCAPE '\\'", under);
    db.run('DELETE FROM datasets WHERE id = ?', [d.id]);
    removed.push(d.path);
  }
  const keepRuns = new Set(found.runs.map((r) => r.path));
  for (const r of rows<{ id: number; path: string }>(db, 'SELECT id, path FROM runs')) {
    if (keepRuns.has(r.path)) continue;
    db.run('DELETE FROM runs WHERE id = ?', [r.id]);
    forgetFile(db, r.path);
    removed.push(r.path);
  }
  for (const r of rows<{ path: string }>(db, 'SELECT path FROM left_out_runs')) {
    if (keepRuns.has(r.path)) continue;
    db.run('DELETE FROM left_out_runs WHERE path = ?', [r.path]);
    forgetFile(db, r.path);
  }

  const datasetIds = new Map<string, number>();
  const changedSplits = new Map<number, { dir: string; splits: Set<string> }>();
  for (const d of found.datasets) {
    options.signal?.throwIfAborted();
    const indexed = await indexDataset(db, d, ctx);
    datasetIds.set(d.dir, indexed.id);
    changedSplits.set(indexed.id, { dir: d.dir, splits: indexed.changedSplits });
  }
  // Metrics follow their inputs: a changed run, a changed split (qrels or annotations), new evaluation settings.
  const sameSettings = scalar(db, "SELECT value FROM settings WHERE key = 'evaluation'") === JSON.stringify(evaluation);
  if (!sameSettings) models.clear();
  const changed: string[] = [];
  for (const [datasetId, { dir, splits }] of changedSplits) {
    for (const { split } of rows<{ split: string }>(db, 'SELECT split FROM splits WHERE dataset_id = ?', [datasetId])) {
      if (splits.has(split) && models.forget(dir, split)) changed.push(splitKey(dir, split));
    }
  }

  const changedRuns = new Set<number>();
  let runCount = 0;
  const toParse = options.runParsers ? changedRunFiles(db, found.runs.map((r) => r.path)) : [];
  if (toParse.length >= 2) {
    ctx.progress(`Reading ${toParse.length} run files`);
    const parsing = options.runParsers!.parse(toParse, runCache);
    // Meanwhile this thread builds the splits their scoring will need (a run tied to no folder finds its
    // dataset only once read).
    const pending = new Set(toParse);
    models.prepare(found.runs.flatMap((r) => (pending.has(r.path) && r.datasetDir !== undefined ? [r.datasetDir] : [])), pending);
    await parsing;
  }
  for (const r of found.runs) {
    options.signal?.throwIfAborted();
    const run = await indexRun(db, r, datasetIds, ctx);
    if (!run) continue;
    runCount++;
    if (run.changed) changedRuns.add(run.id);
  }

  ctx.progress('Evaluating runs');
  db.run("INSERT OR REPLACE INTO settings (key, value) VALUES ('evaluation', ?)", [JSON.stringify(evaluation)]);
  for (const [datasetId, { dir, splits }] of changedSplits) {
    for (const { split } of rows<{ split: string }>(db, 'SELECT split FROM splits WHERE dataset_id = ?', [datasetId])) {
      const runIds = rows<{ id: number }>(db, 'SELECT id FROM runs WHERE dataset_id = ?', [datasetId])
        .map((r) => r.id)
        .filter((id) => !sameSettings || splits.has(split) || changedRuns.has(id));
      if (runIds.length > 0) models.scoreRuns(dir, split, runIds, ctx.problems);
      else if (splits.has(split)) db.run('DELETE FROM run_means WHERE split = ? AND run_id IN (SELECT id FROM runs WHERE dataset_id = ?)', [split, datasetId]);
    }
  }

  models.prune();

  const insert = db.prepare('INSERT INTO problems (file, line, severity, message) VALUES (?, ?, ?, ?)');
  try {
    for (const p of problems) insert.run([p.file, p.line, p.severity, p.message]);
  } finally {
    insert.free();
  }
  return {
    datasets: found.datasets.length,
    runs: runCount,
    reindexed: ctx.reindexed,
    removed,
    problems: problems.length,
    skippedLines: ctx.skippedLines,
    changedSplits: changed,
    ms: Math.round(performance.now() - started),
  };
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
