// New run files parsed in worker threads, two at a time, land in the engine's run cache exactly as the engine
// would have read them itself; a file that does not parse is left to the index pass (which reports it). Each
// worker also scores its run on the splits given, with the figures the engine's own evaluation gives.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { scoreRun, sessionMeasures } from '../../../../src/core/analysis/scores';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { openDatabase } from '../../../../src/core/store/database';
import { indexWorkspace } from '../../../../src/core/store/indexer';
import { evaluationOf } from '../../../../src/core/store/metrics';
import { RunCache } from '../../../../src/core/store/runCache';
import { parseRunsInParallel, workerScores } from '../../../../src/core/store/runParser';
import { SplitModels } from '../../../../src/core/store/splits';
import { SHARED } from '../../support/paths';

const ENTRY = join(__dirname, '../../../../src/core/store/runParser.ts');

test('runs parsed in worker threads are the runs readRun gives, and are cache hits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-parser-'));
  const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => {
    copyFileSync(join(SHARED, 'runs/scifact', f), join(dir, f));
    return join(dir, f);
  });
  const bad = join(dir, 'bad.trec');
  writeFileSync(bad, '1 Q0 d1 1 not-a-score t\n');
  const cache = new RunCache();
  await parseRunsInParallel([...files, bad], ENTRY, cache);
  assert.deepEqual([...files, bad].map((f) => cache.has(f)), [true, true, true, false], 'parsed in the workers, the bad one left out');
  for (const f of files) {
    const hit = cache.get(f); // a hit: no parse here (the stamp matches)
    const direct = readRun(f);
    assert.equal(hit.tag, direct.tag);
    assert.deepEqual(hit.qids, direct.qids);
    assert.deepEqual([...hit.offsets], [...direct.offsets]);
    assert.deepEqual([...hit.scores], [...direct.scores]);
    for (const q of direct.qids.slice(0, 20)) assert.deepEqual(hit.ranking(q), direct.ranking(q));
  }
  assert.throws(() => cache.get(bad), /not-a-score|score/, 'the bad file is parsed (and refused) by the caller, with its line');
});

test('a worker scores its run on the jobs given, as the engine would; the scores are taken only for the same qrels and settings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-parser-'));
  const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => {
    copyFileSync(join(SHARED, 'runs/scifact', f), join(dir, f));
    return join(dir, f);
  });
  const qrels = readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv'));
  const job = { qrels, complete: true, relevanceLevel: 1, measures: sessionMeasures(['ndcg_cut.20']) };
  const cache = new RunCache();
  await parseRunsInParallel(files, ENTRY, cache, { jobsFor: () => [job] });
  for (const f of files) {
    const run = cache.get(f);
    const scored = workerScores(run, job)!;
    assert.ok(scored, 'scored in the worker');
    assert.deepEqual(scored, scoreRun(qrels, run, job), 'the engine\'s own evaluation gives the same figures');
    assert.equal(workerScores(run, { ...job, measures: sessionMeasures([]) }), undefined, 'other measures: not these scores');
    assert.equal(workerScores(run, { ...job, complete: false }), undefined, 'other settings: not these scores');
    assert.equal(workerScores(run, { ...job, qrels: readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv')) }), undefined, 'other qrels (even equal ones): not these');
  }
});

test('indexing new runs: the split takes the scores their workers computed on its qrels, the figures of its own evaluation', async () => {
  const root = mkdtempSync(join(tmpdir(), 'irw-parser-'));
  const ds = join(root, 'scifact');
  mkdirSync(join(ds, 'qrels'), { recursive: true });
  mkdirSync(join(ds, 'runs'));
  for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) copyFileSync(join(SHARED, 'datasets/scifact', f), join(ds, f));
  const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => {
    copyFileSync(join(SHARED, 'runs/scifact', f), join(ds, 'runs', f));
    return join(ds, 'runs', f);
  });
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: ['ndcg_cut.20'] });
  const models = new SplitModels(db, () => evaluation);
  await indexWorkspace(db, [root], { ...evaluation, runsFolder: '.none', models });
  await indexWorkspace(db, [root], { ...evaluation, runsFolder: 'runs', models, runParser: ENTRY });
  const session = models.session(ds, 'test')!;
  const job = models.scoringJob(ds, 'test')!;
  for (const f of files) {
    const scores = session.scores(f, 'original');
    assert.equal(scores, workerScores(session.run(f), job), 'the worker\'s scores, not an evaluation of the engine\'s');
    assert.deepEqual(scores, scoreRun(session.original, session.run(f), job));
  }
});
