import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { discover, looksLikeRun } from '../../src/core/store/discovery';
import { SHARED } from './storeFixtures';

const root = mkdtempSync(join(tmpdir(), 'irw-discovery-'));
after(() => rmSync(root, { recursive: true, force: true }));

function put(path: string, text = ''): string {
  const p = join(root, path);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
}

const RUN_LINE = '1 Q0 d1 1 12.5 tag\n';

describe('discovery', () => {
  it('finds the shared BEIR datasets, their splits (test first) and the runs under runs/<dataset>/', () => {
    const found = discover([SHARED], { runsFolder: 'runs' });
    assert.deepEqual(
      found.datasets.map((d) => [d.name, d.splits.map((s) => s.split)]),
      [
        ['nfcorpus', ['test', 'dev', 'train']],
        ['scifact', ['test', 'train']],
      ],
    );
    // runs/scifact/README.md is not a run; the four run files are, whatever their extension.
    assert.deepEqual(
      found.runs.map((r) => [r.path.split('/').pop(), r.datasetDir?.split('/').pop()]),
      [
        ['bm25okapi.knarfthekant.trec', 'scifact'],
        ['minilm-faiss.knarfthekant.trec', 'scifact'],
        ['neural-rerank.kirloxious.tsv', 'scifact'],
        ['vsm-tfidf.titles_fulltext.omar-khattab.trec', 'scifact'],
      ],
    );
  });

  it('ties runs to datasets by location, honours the runs folder setting, and skips tool folders', () => {
    put('a/corpus.jsonl');
    put('a/queries.jsonl');
    put('a/qrels/test.tsv');
    put('a/qrels/dev.annotations.tsv'); // a split that only has the user's judgements
    const inside = put('a/experiments/x.run', RUN_LINE);
    const loose = put('experiments/loose.trec', RUN_LINE);
    const named = put('experiments/a/named.txt', RUN_LINE);
    put('experiments/notes.txt', 'what I tried\n');
    put('node_modules/pkg/corpus.jsonl');
    const found = discover([root], { runsFolder: 'experiments' });
    assert.deepEqual(found.datasets.map((d) => d.name), ['a']);
    assert.deepEqual(
      found.datasets[0].splits.map((s) => [s.split, s.qrels !== undefined]),
      [
        ['test', true],
        ['dev', false],
      ],
    );
    const byPath = new Map(found.runs.map((r) => [r.path, r.datasetDir]));
    assert.deepEqual([...byPath.keys()].sort(), [inside, loose, named].sort());
    assert.equal(byPath.get(inside), join(root, 'a'));
    assert.equal(byPath.get(named), join(root, 'a'));
    assert.equal(byPath.get(loose), undefined, 'left to the indexer, which matches query ids');
    assert.deepEqual(discover([root], { runsFolder: 'runs' }).runs, []);
  });

  it('tells run files from other text by their first line', () => {
    assert.equal(looksLikeRun(put('r1', RUN_LINE)), true);
    assert.equal(looksLikeRun(put('r2', '\n\n1\tQ0\td1\t1\t-1.5e-3\tt\n')), true);
    assert.equal(looksLikeRun(put('r3', 'query-id\tcorpus-id\tscore\n')), false);
    assert.equal(looksLikeRun(put('r4', '1 0 d1 1\n')), false);
    assert.equal(looksLikeRun(put('r5', '')), false);
  });
});
