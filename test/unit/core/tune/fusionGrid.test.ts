import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { runFuse } from '../../../../src/core/retrieval/fusion/run';
import { fusionLabel, fusionMatrix, fusionSettings } from '../../../../src/core/tune/fusionGrid';
import { perQueryRow } from '../../../../src/core/tune/scores';
import { DATASETS, needsShared, RUNS } from '../../support/paths';

const SCIFACT = join(DATASETS, 'scifact');
const MINILM = join(RUNS, 'scifact', 'minilm-faiss.knarfthekant.trec');

describe('fusion grid: the same per-query values as the fused run files', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  let dir: string;
  let bm25: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-fusiongrid-'));
    bm25 = join(dir, 'bm25.trec');
    // 300 deep, fused to 250: the union with MiniLM's 100 is cut to top-k as it is at 1000 (a third of the work).
    await runBm25({ dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 300, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: bm25 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists valid combinations once (rrf once per k and share, not per normalization), the default first when missing', () => {
    const { settings, defaultIndex } = fusionSettings({ norm: ['z-score', 'min-max'], method: ['geometric', 'rrf'], share: [0.3, 0.7], rrfK: [60] }, 2, { depth: null, topK: 1000 });
    assert.deepEqual(settings.map(fusionLabel), ['min-max arithmetic', 'min-max geometric w=0.7,0.3', 'min-max geometric w=0.3,0.7', 'rrf k=60 w=0.7,0.3', 'rrf k=60 w=0.3,0.7']);
    assert.equal(defaultIndex, 0);
    assert.throws(() => fusionSettings({ norm: ['min-max'], method: ['arithmetic'], share: [0.5], rrfK: [60] }, 3, { depth: null, topK: 1000 }), /two runs/);
  });

  it('BM25 + the shared MiniLM run: ndcg_cut.10 (shallow) and map (full) equal the fused files\', per query', async () => {
    const paths = [bm25, MINILM];
    const runs = paths.map((p) => readRun(p));
    const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
    const settings = [
      ...fusionSettings({ norm: ['z-score'], method: ['combmnz'], share: [0.25], rrfK: [60] }, 2, { depth: null, topK: 250 }).settings,
      ...fusionSettings({ norm: ['min-max'], method: ['rrf', 'geometric'], share: [0.6], rrfK: [60] }, 2, { depth: null, topK: 250 }).settings.slice(1),
    ];
    assert.deepEqual(settings.map(fusionLabel), ['min-max arithmetic', 'z-score combmnz w=0.75,0.25', 'rrf k=60 w=0.4,0.6', 'min-max geometric w=0.4,0.6']);
    for (const measure of ['ndcg_cut.10', 'map']) {
      const m = await fusionMatrix(runs, settings, qrels, { measure, relevanceLevel: 1 });
      for (let s = 0; s < settings.length; s++) {
        const out = join(dir, `f${s}.trec`);
        if (measure === 'ndcg_cut.10') await runFuse({ runs: paths, fusion: settings[s], tag: null, out });
        const file = perQueryRow(qrels, readRun(out), { measure, relevanceLevel: 1 });
        assert.deepEqual(Array.from(m.rows[s]), Array.from(file.values), `${measure} ${fusionLabel(settings[s])}`);
      }
    }
  });
});
