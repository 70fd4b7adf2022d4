import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CorpusIndex } from '../../../../src/core/analysis/corpusIndex';
import { loadSession } from '../../../../src/core/analysis/load';

// The analysis views follow the program's one rule for bad corpus/queries lines: skip and go on (the store
// lists each skipped line in the Problems panel), instead of refusing the whole split at the first one.
describe('loadSession: bad corpus and queries lines are skipped, not fatal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-load-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'qrels'));
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    ['{"_id": "d1", "title": "", "text": "alpha"}', '{"_id": "d2", "text": broken', '{"_id": "d3", "title": "t", "text": "gamma"}', '{"text": "no id"}', ''].join('\n'),
  );
  writeFileSync(join(dir, 'queries.jsonl'), ['{"_id": "q1", "text": "alpha"}', 'not json', '{"_id": "q2", "text": "gamma"}', ''].join('\n'));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\n');

  it('the corpus index keeps the good documents and counts the skipped lines', async () => {
    for (const c of [CorpusIndex.build(join(dir, 'corpus.jsonl')), await CorpusIndex.buildAsync(join(dir, 'corpus.jsonl'))]) {
      assert.equal(c.size, 2);
      assert.ok(c.has('d1') && c.has('d3') && !c.has('d2'));
      assert.equal(c.skipped, 2);
    }
  });

  it('a split whose files hold bad lines opens, with the good queries', () => {
    const s = loadSession({ datasetDir: dir, split: 'test' });
    assert.deepEqual([...s.queries.keys()], ['q1', 'q2']);
    assert.ok(s.corpus.read('d1') && s.corpus.read('d3') && !s.corpus.read('d2'));
    assert.equal(s.grade('q2', 'd3'), 1);
  });
});
