// The engine's split state takes the figures the run parser's workers computed for a new run, but only those of
// the file as it is now: a run rewritten since its worker read it is scored again on the engine's thread.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { scoreRun } from '../../../../src/core/analysis/scores';
import { Qrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { openDatabase } from '../../../../src/core/store/database';
import { indexWorkspace } from '../../../../src/core/store/indexer';
import { evaluationOf } from '../../../../src/core/store/metrics';
import { SplitModels, splitKey } from '../../../../src/core/store/splits';
import { SHARED } from '../../support/paths';

test("a worker's figures for a run are taken when they are of the file as it is, and ignored otherwise", async () => {
  const dir = join(SHARED, 'datasets/scifact');
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: ['ndcg_cut.10'] });
  await indexWorkspace(db, [dir], { ...evaluation, runsFolder: '.no-runs-here' });
  const models = new SplitModels(db, () => evaluation);

  const jobs = models.scoringJobs(dir);
  const key = splitKey(dir, 'test');
  assert.deepEqual(jobs.map((j) => j.key), [key, splitKey(dir, 'train')], 'one job per split of the dataset');
  const job = jobs[0];
  const qrels = models.session(dir, 'test')!.original;
  assert.equal(job.judgements.length, qrels.queryIds().reduce((n, q) => n + qrels.judgements(q)!.docs.length, 0));

  const tmp = mkdtempSync(join(tmpdir(), 'irw-splits-'));
  const [fresh, stale] = ['fresh.trec', 'stale.trec'].map((f) => {
    copyFileSync(join(SHARED, 'runs/scifact/bm25okapi.knarfthekant.trec'), join(tmp, f));
    return join(tmp, f);
  });
  // What the worker computes, from the job alone; marked so that taking it shows.
  const real = scoreRun(Qrels.fromJudgements(job.judgements, 'error'), readRun(fresh), job);
  const ndcg = real.names.indexOf('ndcg_cut_10');
  const marked = { ...real, means: real.means.map((m, i) => (i === ndcg ? 0.123456 : m)) };
  const stamp = (p: string) => `${statSync(p).size}:${statSync(p).mtimeMs}`;
  models.putScores(key, fresh, stamp(fresh), marked);
  models.putScores(key, stale, 'an-older-stamp', marked);
  assert.ok(models.addExtraRun(dir, 'test', fresh));
  assert.ok(models.addExtraRun(dir, 'test', stale));
  const session = models.session(dir, 'test')!;
  assert.equal(session.summary(fresh).original.ndcg_cut_10, 0.123456, 'taken');
  assert.equal(session.summary(stale).original.ndcg_cut_10, real.means[ndcg], 'scored here instead');
  assert.equal(real.means[ndcg].toFixed(4), "0.5597", "trec_eval's figure for this run");
});
