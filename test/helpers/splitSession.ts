// Opens a dataset split the way the engine does (index into an in-memory database, then the engine's split
// state), for tests that need a session on real files without a worker.
import type { AnalysisSession } from '../../src/core/split/state';
import { openDatabase } from '../../src/core/index/database';
import { indexWorkspace } from '../../src/core/engine/indexer';
import { evaluationOf } from '../../src/core/engine/settings';
import { SplitModels } from '../../src/core/engine/splits';

const opened = new WeakMap<AnalysisSession, { models: SplitModels; datasetDir: string; split: string }>();

export interface LoadOptions {
  datasetDir: string;
  split: string;
  complete?: boolean;
  relevanceLevel?: number;
  measures?: string[];
}

/** The split's session as the engine builds it from the index (qrels, queries, documents, the user's judgements). */
export async function loadSession(o: LoadOptions): Promise<AnalysisSession> {
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: o.measures ?? [], complete: o.complete, relevanceLevel: o.relevanceLevel });
  // A runs folder name no dataset has: the test adds the runs it wants.
  await indexWorkspace(db, [o.datasetDir], { ...evaluation, runsFolder: '.no-runs-here' });
  const models = new SplitModels(db, () => evaluation);
  const session = models.session(o.datasetDir, o.split);
  if (!session) throw new Error(`${o.datasetDir} (${o.split}) did not index as a dataset split`);
  opened.set(session, { models, datasetDir: o.datasetDir, split: o.split });
  return session;
}

/** Adds run files as the engine adds runs named by the user; returns those left out, with why. */
export async function addRunFiles(session: AnalysisSession, files: readonly string[]): Promise<{ file: string; reason: string }[]> {
  const o = opened.get(session);
  if (!o) throw new Error('not a session from loadSession()');
  for (const f of files) o.models.addExtraRun(o.datasetDir, o.split, f);
  return o.models.skipped(o.datasetDir, o.split).filter((s) => files.includes(s.file));
}

/** loadSession() with run files added (those left out throw: a test's runs are meant to be usable). */
export async function sessionWithRuns(datasetDir: string, split: string, runs: readonly string[]): Promise<AnalysisSession> {
  const session = await loadSession({ datasetDir, split });
  const skipped = await addRunFiles(session, runs);
  if (skipped.length) throw new Error(skipped.map((x) => `${x.file}: ${x.reason}`).join('\n'));
  return session;
}
