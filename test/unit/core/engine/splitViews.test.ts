// The engine's background steps (significance, ranges under the holes) give way to requests: while requests
// keep coming (a judgement, then every open view asking for its model) they wait, then they resume.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../../src/core/index/database';
import { indexWorkspace } from '../../../../src/core/engine/indexer';
import { evaluationOf } from '../../../../src/core/engine/settings';
import { SplitModels, splitKey } from '../../../../src/core/engine/splits';
import { SplitViews } from '../../../../src/core/engine/splitViews';
import { needsShared, SHARED } from '../../support/paths';

const RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(SHARED, 'runs/scifact', f));

test('background steps wait while requests keep coming, and finish once they stop', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const dir = join(SHARED, 'datasets/scifact');
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: [] });
  await indexWorkspace(db, [dir], { ...evaluation, runsFolder: '.no-runs-here' });
  const models = new SplitModels(db, () => evaluation);
  for (const r of RUNS) assert.ok(models.addExtraRun(dir, 'test', r));
  let changed = 0;
  const views = new SplitViews(models, () => changed++);
  const key = splitKey(dir, 'test');
  // Requests every 10 ms for 3 s: the significance of three runs (about 150 steps, about 1 s when nothing waits)
  // does not advance meanwhile.
  views.touch();
  assert.equal(views.results({ key, baseline: RUNS[0] }).significancePending, true);
  const started = performance.now();
  while (performance.now() - started < 3000) {
    views.touch();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(changed, 0, 'held back while requests came');
  const stopped = performance.now();
  while (changed === 0 && performance.now() - stopped < 30_000) await new Promise((r) => setTimeout(r, 10));
  assert.equal(changed, 1, 'done once they stopped');
  assert.equal(views.results({ key, baseline: RUNS[0] }).significancePending, false);
});
