import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readQueries } from '../../../../../src/core/formats/beir';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { createAnalyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import type { Bm25Index, FieldsMode } from '../../../../../src/core/retrieval/bm25/index';
import { SearchPool } from '../../../../../src/core/retrieval/bm25/parallelSearch';
import { buildIndex, runBm25, searchWorkerEntry, type Bm25RunRequest } from '../../../../../src/core/retrieval/bm25/run';
import { Searcher, bagOfWords, resolveQuery, type Hits, type ResolvedQuery } from '../../../../../src/core/retrieval/bm25/search';
import { DATASETS, needsShared } from '../../../support/paths';

const ENTRY = searchWorkerEntry()!;
const tmp = mkdtempSync(join(tmpdir(), 'irw-psearch-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function setup(name: string, mode: FieldsMode): Promise<{ index: Bm25Index; queries: ResolvedQuery[] }> {
  const analyzer = await createAnalyzer();
  const dir = join(DATASETS, name);
  const index = await buildIndex(join(dir, 'corpus.jsonl'), analyzer, mode, {}, null);
  const texts = readQueries(join(dir, 'queries.jsonl'));
  const queries = readQrels(join(dir, 'qrels', 'test.tsv'))
    .queryIds()
    .map((q) => resolveQuery(index, bagOfWords(analyzer.analyze(texts.get(q)!.text))));
  return { index, queries };
}

/** Every query's hits from a pool of `threads`, in the order the pool hands them on. */
async function pooled(threads: number, index: Bm25Index, queries: ResolvedQuery[], k: number, entry = ENTRY): Promise<{ hits: Hits[]; pool: SearchPool }> {
  const pool = new SearchPool(threads, entry, true);
  try {
    await pool.ready;
    const hits: Hits[] = [];
    await pool.search(index, { k1: 0.9, b: 0.4 }, queries, k, (q, h) => {
      assert.equal(q, hits.length, 'hits come in query order');
      hits.push({ docs: h.docs.slice(), scores: h.scores.slice() });
    });
    return { hits, pool };
  } finally {
    pool.close();
  }
}

describe('search on several threads (shared index)', () => {
  it('the worker entry is found (the source under tsx)', () => {
    assert.ok(ENTRY.endsWith('searchWorker.ts'), ENTRY);
  });

  for (const [name, mode] of [['scifact', 'flat'], ['nfcorpus', 'flat'], ['nfcorpus', 'multifield']] as const) {
    it(`${name} ${mode}: 2 and 3 threads give every query the hits of one thread, top-10 and top-1000`, { skip: needsShared(`datasets/${name}`) }, async () => {
      const { index, queries } = await setup(name, mode);
      const one = new Searcher(index, { k1: 0.9, b: 0.4 });
      for (const k of [10, 1000]) {
        const expected = queries.map((q) => one.search(q, k));
        for (const threads of [2, 3]) {
          const { hits, pool } = await pooled(threads, index, queries, k);
          assert.equal(hits.length, queries.length);
          for (let q = 0; q < queries.length; q++) {
            assert.deepEqual(hits[q].docs, expected[q].docs.slice(), `query ${q}, k ${k}, ${threads} threads`);
            assert.deepEqual(hits[q].scores, expected[q].scores.slice(), `query ${q}, k ${k}, ${threads} threads`);
          }
          assert.equal(pool.searched.here + pool.searched.workers, queries.length, JSON.stringify(pool.searched));
          assert.ok(pool.searched.workers > 0, `the workers searched: ${JSON.stringify(pool.searched)}`);
        }
      }
    });
  }

  it('a worker that fails: this thread searches what it took, and the hits are the same', { skip: needsShared('datasets/scifact') }, async () => {
    const { index, queries } = await setup('scifact', 'flat');
    const broken = join(tmp, 'broken.js');
    writeFileSync(broken, "throw new Error('no search here');\n");
    const expected = await pooled(2, index, queries.slice(0, 40), 100);
    const { hits, pool } = await pooled(2, index, queries.slice(0, 40), 100, broken);
    assert.deepEqual(hits, expected.hits);
    assert.equal(pool.searched.workers, 0);
  });

  it('irw run writes the same run file with 1, 2 and 3 threads (SciFact, NFCorpus multifield)', { skip: needsShared('datasets/scifact', 'datasets/nfcorpus') }, async () => {
    for (const [name, fields] of [['scifact', 'flat'], ['nfcorpus', 'multifield']] as const) {
      const files = [1, 2, 3].map((threads) => join(tmp, `${name}-${threads}.trec`));
      for (let t = 0; t < 3; t++) {
        const req: Bm25RunRequest = {
          dataset: join(DATASETS, name),
          split: 'test',
          k1: 0.9,
          b: 0.4,
          fields,
          topK: 1000,
          removeQuery: true,
          rm3: null,
          queryWeights: null,
          cacheDir: null,
          out: files[t],
          threads: t + 1,
        };
        await runBm25(req);
      }
      const one = readFileSync(files[0]);
      assert.ok(one.length > 1e6, `${name}: ${one.length} bytes`);
      assert.ok(one.equals(readFileSync(files[1])), `${name}: 2 threads`);
      assert.ok(one.equals(readFileSync(files[2])), `${name}: 3 threads`);
    }
  });
});
