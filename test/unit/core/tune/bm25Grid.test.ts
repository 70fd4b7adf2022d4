import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { openBm25, runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { bm25GridSettings, bm25Label, bm25Matrix } from '../../../../src/core/tune/bm25Grid';
import { perQueryRow } from '../../../../src/core/tune/scores';
import { DATASETS, needsShared } from '../../support/paths';

const SCIFACT = join(DATASETS, 'scifact');

test('BM25 grid: lists the grid with the default first when the grid lacks it', () => {
  const { settings, defaultIndex } = bm25GridSettings({ k1: [1.2], b: [0.75], rm3: null });
  assert.deepEqual(settings.map(bm25Label), ['k1=0.9 b=0.4', 'k1=1.2 b=0.75']);
  assert.equal(defaultIndex, 0);
  const rm3 = bm25GridSettings({ k1: [0.9], b: [0.4], rm3: { fbTerms: [10, 20], fbDocs: [10], originalQueryWeight: [0.5] } });
  assert.deepEqual(rm3.settings.map(bm25Label), ['k1=0.9 b=0.4 rm3=10,10,0.5', 'k1=0.9 b=0.4 rm3=20,10,0.5']);
  assert.equal(rm3.defaultIndex, 0);
});

describe('BM25 grid: one index for every setting, the same per-query values as the runs written', { skip: needsShared('datasets/scifact') }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25grid-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Rankings 300 deep: as at 1,000 (the default), a full ranking is longer than the shallow one, at a third of the work.
  it('ndcg_cut.10 (from shallow rankings), map and recall.300 (from full ones), RM3 too: exactly the values of each setting\'s run file', async () => {
    const base = { dataset: SCIFACT, split: 'test', fields: 'flat' as const, topK: 300, removeQuery: true, queryWeights: null, cacheDir: join(dir, 'cache') };
    const opened = await openBm25({ ...base, k1: 0, b: 0, rm3: null });
    const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
    const settings = [
      { k1: 0.9, b: 0.4, rm3: null },
      { k1: 1.4, b: 0.9, rm3: null },
      { k1: 0.6, b: 0.2, rm3: { fbTerms: 5, fbDocs: 3, originalQueryWeight: 0.3 } },
    ];
    const input = { index: opened.index, qids: opened.qids, queries: opened.queries, topK: 300, removeQuery: true };
    for (const measure of ['ndcg_cut.10', 'map', 'recall.300', 'P.5']) {
      const m = await bm25Matrix(input, settings, qrels, { measure, relevanceLevel: 1 });
      for (let s = 0; s < settings.length; s++) {
        const out = join(dir, `s${s}.trec`);
        if (measure === 'ndcg_cut.10') await runBm25({ ...base, ...settings[s], out });
        const file = perQueryRow(qrels, readRun(out), { measure, relevanceLevel: 1 });
        assert.deepEqual(m.queries, file.queries);
        assert.deepEqual(Array.from(m.rows[s]), Array.from(file.values), `${measure} ${bm25Label(settings[s])}`);
      }
    }
  });
});
