// New run files parsed in worker threads, two at a time, land in the engine's run cache exactly as the engine
// would have read them itself; a file that does not parse is left to the index pass (which reports it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256File } from '../../../../src/core/fileHash';
import { readRun } from '../../../../src/core/formats/run';
import { RunCache } from '../../../../src/core/index/runCache';
import { RunParserThreads } from '../../../../src/core/index/runParser';
import { needsShared, SHARED } from '../../support/paths';

const ENTRY = join(__dirname, '../../../../src/core/index/runParser.ts');

test('runs parsed in worker threads are the runs readRun gives, and are cache hits', { skip: needsShared('runs') }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-parser-'));
  const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => {
    copyFileSync(join(SHARED, 'runs/scifact', f), join(dir, f));
    return join(dir, f);
  });
  const bad = join(dir, 'bad.trec');
  writeFileSync(bad, '1 Q0 d1 1 not-a-score t\n');
  const cache = new RunCache();
  // Two threads wait for a file before it comes; the other files get threads started then.
  const threads = new RunParserThreads(ENTRY);
  threads.startAhead();
  await threads.parse([...files, bad], cache);
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
  // The workers hash what they read, so indexing need not read the file again; a later write gets no hash.
  const stamp = (f: string) => `${statSync(f).size}:${statSync(f).mtimeMs}`;
  for (const f of files) assert.equal(cache.hashOf(f, stamp(f)), await sha256File(f));
  utimesSync(files[0], new Date(), new Date(Date.now() + 5000));
  assert.equal(cache.hashOf(files[0], stamp(files[0])), undefined);
});

test('threads waiting for a file keep no process alive', () => {
  const script = `const { RunParserThreads } = require(${JSON.stringify(ENTRY)}); new RunParserThreads(${JSON.stringify(ENTRY)}).startAhead();`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 20_000 });
  assert.equal(r.status, 0, `the process ends by itself: ${r.stderr}`);
});
