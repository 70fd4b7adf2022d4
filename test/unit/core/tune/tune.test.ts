import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { readSidecar } from '../../../../src/core/provenance/record';
import { runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { perQueryRow } from '../../../../src/core/tune/scores';
import { TUNE_DEFAULTS, tuneBm25, tuneFusion } from '../../../../src/core/tune/tune';
import { DATASETS, RUNS } from '../../support/paths';

describe('irw tune: the tuned run is the setting chosen on all queries, and its sidecar says how and on what', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-tune-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('BM25 on SciFact test: report, tuned run, and a sidecar saying it was tuned on the test split', async () => {
    const out = join(dir, 'tuned.trec');
    const dataset = join(DATASETS, 'scifact');
    const r = await tuneBm25({
      ...TUNE_DEFAULTS,
      resamples: 1000,
      dataset,
      split: 'test',
      fields: 'flat',
      topK: 1000,
      removeQuery: true,
      cacheDir: join(dir, 'cache'),
      grid: { k1: [0.9, 1.5], b: [0.4, 0.8], rm3: null },
      out,
      command: 'irw tune --test',
    });
    assert.deepEqual(r.settings, ['k1=0.9 b=0.4', 'k1=0.9 b=0.8', 'k1=1.5 b=0.4', 'k1=1.5 b=0.8']);
    assert.equal(r.defaultIndex, 0);
    assert.equal(r.measure, 'ndcg_cut_10');
    assert.equal(r.cv.folds.length, 5);
    assert.equal(r.cv.queries, 300);
    assert.equal(r.onTestSplit, true);
    assert.equal(r.tuned!.setting, r.settings[r.cv.chosenOnAll]);
    // The run written is that setting's: its mean is the report's, and its sidecar has its settings.
    const row = perQueryRow(readQrels(join(dataset, 'qrels', 'test.tsv')), readRun(out), { measure: 'ndcg_cut.10', relevanceLevel: 1 });
    assert.ok(Math.abs(row.values.reduce((a, b) => a + b, 0) / 300 - r.cv.allScore) < 1e-12);
    const sidecar = readSidecar(out)!;
    assert.equal(`k1=${sidecar.settings.k1} b=${sidecar.settings.b}`, r.tuned!.setting);
    const tuning = sidecar.provenance!.tuning as Record<string, unknown>;
    assert.equal(tuning.onTestSplit, true);
    assert.match(String(tuning.warning), /tuned on the test split/);
    assert.equal(tuning.chosen, r.tuned!.setting);
    assert.equal((tuning.qrels as { judgements: number }).judgements, 339);
    assert.equal(sidecar.provenance!.command, 'irw tune --test');
  });

  it('on another split (NFCorpus dev) the sidecar does not claim the test split', async () => {
    const r = await tuneBm25({
      ...TUNE_DEFAULTS,
      resamples: 200,
      dataset: join(DATASETS, 'nfcorpus'),
      split: 'dev',
      fields: 'flat',
      topK: 100,
      removeQuery: true,
      cacheDir: join(dir, 'cache'),
      grid: { k1: [0.9, 1.2], b: [0.4], rm3: null },
      out: join(dir, 'dev.trec'),
    });
    assert.equal(r.onTestSplit, false);
    assert.equal((readSidecar(join(dir, 'dev.trec'))!.provenance!.tuning as { onTestSplit: boolean }).onTestSplit, false);
  });

  it('fusion of BM25 and the shared MiniLM run: the tuned fused run records its tuning', async () => {
    const bm25 = join(dir, 'bm25.trec');
    await runBm25({ dataset: join(DATASETS, 'scifact'), split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 1000, removeQuery: true, rm3: null, queryWeights: null, cacheDir: join(dir, 'cache'), out: bm25 });
    const out = join(dir, 'fused.trec');
    const r = await tuneFusion({
      ...TUNE_DEFAULTS,
      resamples: 200,
      runs: [bm25, join(RUNS, 'scifact', 'minilm-faiss.knarfthekant.trec')],
      qrels: join(DATASETS, 'scifact', 'qrels', 'test.tsv'),
      grid: { norm: ['min-max'], method: ['arithmetic', 'rrf'], share: [0.3, 0.5, 0.7], rrfK: [60] },
      depth: null,
      topK: 1000,
      out,
    });
    assert.equal(r.kind, 'fusion');
    assert.equal(r.split, 'test');
    assert.equal(r.onTestSplit, true);
    const sidecar = readSidecar(out)!;
    assert.equal(sidecar.settings.retriever, 'fuse');
    assert.equal((sidecar.provenance!.tuning as { chosen: string }).chosen, r.tuned!.setting);
    assert.equal(sidecar.provenance!.inputs.runs!.length, 2);
  });
});
