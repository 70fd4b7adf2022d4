// The engine's split states read documents through a cache keyed by the corpus file's stamp (size and mtime).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../../src/core/index/database';
import { indexWorkspace } from '../../../../src/core/engine/indexer';
import { evaluationOf } from '../../../../src/core/engine/settings';
import { SplitModels } from '../../../../src/core/engine/splits';

const doc = (id: string, title: string) => JSON.stringify({ _id: id, title, text: `text of ${id}` });

test('a document read again comes from memory while the corpus file keeps its stamp, and from the file once it changes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-splits-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const corpus = join(dir, 'corpus.jsonl');
  writeFileSync(corpus, `${doc('d1', 'Alpha')}\n${doc('d2', 'Gamma')}\n`);
  // A whole second, so that setting it again gives the very same stamp.
  const mtime = new Date('2026-01-01T00:00:00Z');
  utimesSync(corpus, mtime, mtime);
  writeFileSync(join(dir, 'queries.jsonl'), `${JSON.stringify({ _id: 'q1', text: 'alpha' })}\n`);
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: [] });
  await indexWorkspace(db, [dir], { ...evaluation, runsFolder: '.no-runs-here' });
  const state = new SplitModels(db, () => evaluation).state(dir, 'test')!;
  assert.equal((await state.corpus.read('d1'))?.title, 'Alpha');
  assert.equal(await state.corpus.read('nope'), null);

  // The same bytes' length and the same mtime: the stamp is unchanged, so the document read before is served.
  writeFileSync(corpus, readFileSync(corpus, 'utf8').replace('Alpha', 'Omega'));
  utimesSync(corpus, mtime, mtime);
  assert.equal((await state.corpus.read('d1'))?.title, 'Alpha');
  // Reads of the same document meanwhile share one.
  const [x, y] = [state.corpus.read('d2'), state.corpus.read('d2')];
  assert.deepEqual(await x, await y);

  // A new stamp: read from the file again (the text at the indexed offset).
  utimesSync(corpus, mtime, new Date(mtime.getTime() + 10_000));
  assert.equal((await state.corpus.read('d1'))?.title, 'Omega');
});
