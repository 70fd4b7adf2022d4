// New run files parsed in worker threads, two at a time, land in the engine's run cache exactly as the engine
// would have read them itself, with the figures the engine would have computed; a file that does not parse is
// left to the index pass (which reports it).
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { scoreRun } from '../../../../src/core/analysis/scores';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { openDatabase } from '../../../../src/core/store/database';
import { checkFile, sha256File } from '../../../../src/core/store/fileState';
import { RunCache } from '../../../../src/core/store/runCache';
import { parseRunsInParallel } from '../../../../src/core/store/runParser';
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
  // The workers hashed the files too (fileState.test.ts: checkFile takes such a hash); it is the file's sha256.
  const { db } = await openDatabase(undefined);
  for (const f of files) assert.equal((await checkFile(db, f))!.state.hash, await sha256File(f));
});

test('the workers score each run on its splits exactly as the engine would, and skip a split it ranks no query of', async () => {
  const path = join(SHARED, 'runs/scifact/bm25okapi.knarfthekant.trec');
  const qrels = readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv'));
  const judgements = qrels.queryIds().flatMap((qid) => qrels.judgements(qid)!.docs.map((docid, i) => ({ qid, docid, grade: qrels.judgements(qid)!.grades[i] })));
  const options = { complete: true, relevanceLevel: 1, measures: ['ndcg_cut.10', 'hole.10', 'map', 'P.5'] };
  const got = new Map<string, ReturnType<typeof scoreRun>>();
  const scoring = [{ key: 'test', judgements, ...options }, { key: 'other', judgements: [{ qid: 'not-a-query', docid: 'd', grade: 1 }], ...options }];
  // Sent once the worker is parsing (the engine builds the splits meanwhile).
  const later = new Promise<(p: string) => typeof scoring>((resolve) => setTimeout(() => resolve((p) => (p === path ? scoring : [])), 50));
  await parseRunsInParallel(
    [path],
    ENTRY,
    new RunCache(),
    later,
    (p, stamp, key, scores) => {
      assert.equal(p, path);
      assert.match(stamp, /^\d+:\d/);
      got.set(key, scores);
    },
  );
  assert.deepEqual([...got.keys()], ['test']);
  const here = scoreRun(qrels, readRun(path), options);
  const there = got.get('test')!;
  assert.deepEqual(there.names, here.names);
  assert.deepEqual(there.queries, here.queries);
  assert.deepEqual(there.means, here.means);
  assert.deepEqual(there.columns.map((c) => [...c]), here.columns.map((c) => [...c]));
  assert.ok(here.means[here.names.indexOf('ndcg_cut_10')] > 0.5, 'a real figure, not an empty evaluation');
});
