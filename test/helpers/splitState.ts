// Opens a dataset split the way the engine does (index into an in-memory database, then the engine's split
// state), for tests that need a split state on real files without a worker.
import type { SplitState } from '../../src/core/split/state';
import { openDatabase } from '../../src/core/index/database';
import { indexWorkspace } from '../../src/core/engine/indexer';
import { evaluationOf } from '../../src/core/engine/settings';
import { SplitModels } from '../../src/core/engine/splits';

const opened = new WeakMap<SplitState, { models: SplitModels; datasetDir: string; split: string }>();

export interface LoadOptions {
  datasetDir: string;
  split: string;
  complete?: boolean;
  relevanceLevel?: number;
  measures?: string[];
}

/** The split's state as the engine builds it from the index (qrels, queries, documents, the user's judgements). */
export async function loadSplit(o: LoadOptions): Promise<SplitState> {
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: o.measures ?? [], complete: o.complete, relevanceLevel: o.relevanceLevel });
  // A runs folder name no dataset has: the test adds the runs it wants.
  await indexWorkspace(db, [o.datasetDir], { ...evaluation, runsFolder: '.no-runs-here' });
  const models = new SplitModels(db, () => evaluation);
  const state = models.state(o.datasetDir, o.split);
  if (!state) throw new Error(`${o.datasetDir} (${o.split}) did not index as a dataset split`);
  models.pin([`${o.datasetDir}\t${o.split}`]);
  opened.set(state, { models, datasetDir: o.datasetDir, split: o.split });
  return state;
}

/** Adds run files as the engine adds runs named by the user; returns those left out, with why. */
export async function addRunFiles(state: SplitState, files: readonly string[]): Promise<{ file: string; reason: string }[]> {
  const o = opened.get(state);
  if (!o) throw new Error('not a split from loadSplit()');
  for (const f of files) o.models.addExtraRun(o.datasetDir, o.split, f);
  return o.models.skipped(o.datasetDir, o.split).filter((s) => files.includes(s.file));
}

/** loadSplit() with run files added (those left out throw: a test's runs are meant to be usable). */
export async function splitWithRuns(datasetDir: string, split: string, runs: readonly string[]): Promise<SplitState> {
  const state = await loadSplit({ datasetDir, split });
  const skipped = await addRunFiles(state, runs);
  if (skipped.length) throw new Error(skipped.map((x) => `${x.file}: ${x.reason}`).join('\n'));
  return state;
}
