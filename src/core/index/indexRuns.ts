import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Database } from 'sql.js';
import { readRun, type Run } from '../formats/run';
import type { DiscoveredRun } from './discovery';
import { checkFile, forgetFile, recordFile } from './fileState';
import type { IndexContext } from './indexDataset';
import { badLineProblems, type Problem } from '../formats/problems';
import { rows, scalar, transaction } from './sql';
import { runCache } from './runCache';

export interface IndexedRun {
  id: number;
  datasetId: number | null;
  /** The file was (re-)read in this pass: its metrics must be recomputed. */
  changed: boolean;
}

/**
 * Brings one run's rows up to date with its file. A run with a bad line is not indexed at all (and any older
 * version is dropped): scoring part of a run would show figures that differ from trec_eval's without saying so.
 */
export async function indexRun(db: Database, r: DiscoveredRun, datasetIds: Map<string, number>, ctx: IndexContext): Promise<IndexedRun | undefined> {
  const existing = scalar(db, 'SELECT id FROM runs WHERE path = ?', [r.path]) as number | undefined;
  const file = await checkFile(db, r.path, (stamp) => runCache.hashOf(r.path, stamp));
  if (!file) return undefined;
  if (!file.changed && existing === undefined && leftOut(db, r.path)) {
    // Still the same bad file: its problems are stored, and reading it again would find the same ones.
    recordFile(db, file.state);
    return undefined;
  }
  if (!file.changed && existing !== undefined) {
    recordFile(db, file.state);
    // The file is the same, but its dataset may have appeared, moved or gone since: tie it again.
    const stored = scalar(db, 'SELECT dataset_id FROM runs WHERE id = ?', [existing]) as number | null;
    // Only a run tied to no dataset needs its query ids again: read them from the file (the index keeps no copy).
    const qids = () => {
      try {
        return runCache.get(r.path).qids;
      } catch {
        return [];
      }
    };
    const datasetId = r.datasetDir !== undefined ? (datasetIds.get(r.datasetDir) ?? null) : stored ?? datasetByQueries(db, qids());
    if (datasetId === stored) return { id: existing, datasetId, changed: false };
    db.run('UPDATE runs SET dataset_id = ? WHERE id = ?', [datasetId, existing]);
    db.run('DELETE FROM problems WHERE file = ?', [r.path]);
    if (datasetId === null) ctx.problems.push(noDataset(r.path, qids()[0]));
    return { id: existing, datasetId, changed: true };
  }
  ctx.progress(`Indexing run ${r.path}`);
  forgetFile(db, r.path);
  let run: Run;
  try {
    run = runCache.get(r.path);
  } catch (e) {
    if (existing !== undefined) db.run('DELETE FROM runs WHERE id = ?', [existing]);
    let partial: Run | undefined;
    const problems = badLineProblems(r.path, e, (onBadLine) => (partial = readRun(r.path, { onBadLine })), ' The run is left out until the file is fixed.');
    ctx.problems.push(...problems);
    leaveOut(db, r, datasetIds, problems, partial?.qids);
    recordFile(db, file.state);
    return undefined;
  }
  db.run('DELETE FROM left_out_runs WHERE path = ?', [r.path]);
  const datasetId = r.datasetDir !== undefined ? (datasetIds.get(r.datasetDir) ?? null) : datasetByQueries(db, run.qids);
  if (datasetId === null) ctx.problems.push(noDataset(r.path, run.qids[0]));
  const id = transaction(db, () => {
    const values = [
      r.path,
      datasetId,
      run.tag,
      sidecarConfig(r.path),
      statSync(r.path).mtime.toISOString(),
      run.qids.length,
      run.numLines,
    ];
    if (existing !== undefined) {
      db.run('UPDATE runs SET path = ?, dataset_id = ?, tag = ?, config = ?, created_at = ?, query_count = ?, result_count = ? WHERE id = ?', [
        ...values,
        existing,
      ]);
      db.run('DELETE FROM run_means WHERE run_id = ?', [existing]);
    } else {
      db.run('INSERT INTO runs (path, dataset_id, tag, config, created_at, query_count, result_count) VALUES (?, ?, ?, ?, ?, ?, ?)', values);
    }
    return existing ?? (scalar(db, 'SELECT id FROM runs WHERE path = ?', [r.path]) as number);
  });
  recordFile(db, file.state);
  ctx.reindexed.push(r.path);
  return { id, datasetId, changed: true };
}

/**
 * Records why a run is not indexed, so the Datasets tree can show it where it would be: under the splits whose
 * qrels judge a query its good lines answer (as a good run is), or every split when none of it could be read.
 */
function leaveOut(db: Database, r: DiscoveredRun, datasetIds: Map<string, number>, problems: readonly Problem[], qids: readonly string[] | undefined): void {
  const datasetId = r.datasetDir !== undefined ? (datasetIds.get(r.datasetDir) ?? null) : null;
  let splits: string[] | null = null;
  if (datasetId !== null && qids && qids.length > 0) {
    splits = rows<{ split: string }>(db, 'SELECT split FROM splits WHERE dataset_id = ?', [datasetId])
      .map((s) => s.split)
      .filter((split) => {
        const judged = new Set(rows<{ query_id: string }>(db, 'SELECT DISTINCT query_id FROM effective_qrels WHERE dataset_id = ? AND split = ?', [datasetId, split]).map((q) => q.query_id));
        return qids.some((q) => judged.has(q));
      });
  }
  const first = problems[0];
  // The first problem (which gives the count when there are more).
  const reason = `${first.line > 0 ? `line ${first.line}: ` : ''}${first.message}`;
  db.run('INSERT OR REPLACE INTO left_out_runs (path, dataset_id, reason, first_line, splits) VALUES (?, ?, ?, ?, ?)', [
    r.path,
    datasetId,
    reason,
    first.line,
    splits && JSON.stringify(splits),
  ]);
}

function leftOut(db: Database, path: string): boolean {
  return scalar(db, 'SELECT 1 FROM left_out_runs WHERE path = ?', [path]) === 1;
}

function noDataset(path: string, qid: string | undefined): Problem {
  return {
    file: path,
    line: 0,
    severity: 'warning',
    message: `no dataset in the workspace has this run's query ids (e.g. ${JSON.stringify(qid)}); put the run under <dataset>/runs/ or runs/<dataset name>/ to say which dataset it belongs to.`,
  };
}

/** The dataset whose queries.jsonl holds most of the run's query ids (a sample of them), or null. */
function datasetByQueries(db: Database, qids: readonly string[]): number | null {
  if (qids.length === 0) return null;
  const step = Math.max(1, Math.floor(qids.length / 200));
  const sample = qids.filter((_, i) => i % step === 0);
  const placeholders = sample.map(() => '?').join(',');
  const best = rows<{ dataset_id: number; n: number }>(
    db,
    `SELECT dataset_id, COUNT(*) AS n FROM queries WHERE query_id IN (${placeholders}) GROUP BY dataset_id ORDER BY n DESC LIMIT 1`,
    sample,
  )[0];
  return best && best.n * 2 >= sample.length ? best.dataset_id : null;
}

/** A run's configuration, when a `<run file>.json` sidecar records it (as the runner writes it). */
function sidecarConfig(path: string): string | null {
  const sidecar = `${path}.json`;
  if (!existsSync(sidecar)) return null;
  try {
    return JSON.stringify(JSON.parse(readFileSync(sidecar, 'utf8')));
  } catch {
    return null;
  }
}
