import assert from 'node:assert/strict';
import fs, { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { discover, looksLikeRun, runLabels } from '../../../../src/core/index/discovery';
import { needsShared, SHARED } from '../../../helpers/storeFixtures';

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
  it('finds the shared BEIR datasets, their splits (test first) and the runs under runs/<dataset>/', { skip: needsShared('datasets/scifact', 'datasets/nfcorpus', 'runs') }, () => {
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

  it('a TSV collection without a split is no dataset and does not hide the datasets below it; runs/<name>/ names an MS MARCO-style one', () => {
    const ws = join(root, 'tsv');
    put('tsv/project/docs.tsv', 'a\tb\n');
    put('tsv/project/data/msmarco/collection.tsv', '0\tsome passage\n');
    put('tsv/project/data/msmarco/queries.dev.tsv', '1\tquery\n');
    put('tsv/project/data/msmarco/qrels.dev.tsv', '1 0 0 1\n');
    put('tsv/project/data/msmarco/qrels.eval.tsv', '1 0 0 1\n'); // qrels without queries: no split
    const run = put('tsv/runs/msmarco/bm25.trec', RUN_LINE);
    const found = discover([ws], { runsFolder: 'runs' });
    assert.deepEqual(found.datasets.map((d) => [d.dir, d.splits.map((s) => s.split)]), [[join(ws, 'project', 'data', 'msmarco'), ['dev']]]);
    assert.deepEqual(found.runs, [{ path: run, datasetDir: join(ws, 'project', 'data', 'msmarco') }]);
  });

  it('tells run files from other text by their first line', () => {
    assert.equal(looksLikeRun(put('r1', RUN_LINE)), true);
    assert.equal(looksLikeRun(put('r2', '\n\n1\tQ0\td1\t1\t-1.5e-3\tt\n')), true);
    assert.equal(looksLikeRun(put('r3', 'query-id\tcorpus-id\tscore\n')), false);
    assert.equal(looksLikeRun(put('r4', '1 0 d1 1\n')), false);
    assert.equal(looksLikeRun(put('r5', '')), false);
  });

  it('follows a link to a run, and skips a dangling link, a link loop or an unreadable file with a problem', () => {
    const ws = join(root, 'links');
    put('links/ds/corpus.jsonl', '{"_id":"d1","text":"x"}\n');
    put('links/ds/qrels/test.tsv', 'query-id\tcorpus-id\tscore\n1\td1\t1\n');
    const real = put('links/elsewhere/bm25.trec', RUN_LINE);
    const runs = join(ws, 'ds', 'runs');
    mkdirSync(runs, { recursive: true });
    symlinkSync(real, join(runs, 'linked.trec'));
    symlinkSync(join(ws, 'nowhere.trec'), join(runs, 'dangling.trec'));
    symlinkSync(join(runs, 'loop-b.trec'), join(runs, 'loop-a.trec'));
    symlinkSync(join(runs, 'loop-a.trec'), join(runs, 'loop-b.trec'));
    const unreadable = put('links/ds/runs/locked.trec', RUN_LINE);
    const realOpen = fs.openSync;
    (fs as { openSync: unknown }).openSync = (p: fs.PathLike, ...rest: unknown[]) => {
      if (p === unreadable) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return (realOpen as (...a: unknown[]) => number)(p, ...rest);
    };
    syncBuiltinESMExports();
    let found;
    try {
      found = discover([ws], { runsFolder: 'runs' });
    } finally {
      (fs as { openSync: unknown }).openSync = realOpen;
      syncBuiltinESMExports();
    }
    assert.deepEqual(found.runs.map((r) => basename(r.path)), ['linked.trec']);
    assert.deepEqual(
      found.problems.map((p) => [basename(p.file), p.message.replace(/^.*?: /, '')]).sort(),
      [
        ['dangling.trec', 'the link points to nothing. Fix or remove the link.'],
        ['locked.trec', 'the file cannot be read (EACCES). Check its permissions.'],
        ['loop-a.trec', 'the link is a loop. Fix or remove the link.'],
        ['loop-b.trec', 'the link is a loop. Fix or remove the link.'],
      ],
    );
  });

  it('labels each run by its stem, with the folder only where two runs share it', () => {
    const labels = runLabels(['/w/runs/bm25.trec', '/w/runs/dense.e5.run', '/w/ds/runs/bm25.trec', '/w/runs/scifact/notes.res', '/w/runs/plain', '/w/x/plain']);
    assert.deepEqual([...labels.values()], ['w/runs/bm25', 'dense.e5', 'ds/runs/bm25', 'notes', 'runs/plain', 'x/plain']);
  });
});
