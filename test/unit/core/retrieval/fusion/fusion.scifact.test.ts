import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS, needsShared, RUNS } from '../../../support/paths';
import { after, before, describe, it } from 'node:test';
import { evaluate } from '../../../../../src/core/eval';
import { readQrels, type Qrels } from '../../../../../src/core/formats/qrels';
import { readRun, type Run } from '../../../../../src/core/formats/run';
import { runBm25 } from '../../../../../src/core/retrieval/bm25/run';
import { fuse } from '../../../../../src/core/retrieval/fusion/fuse';

/**
 * The real check: our BM25 run (Anserini defaults, in-process) fused with a real dense run
 * (all-MiniLM-L6-v2 + FAISS, produced elsewhere) beats both inputs on SciFact nDCG@10 (trec_eval -c).
 */
const SCIFACT = join(DATASETS, 'scifact');
const DENSE = join(RUNS, 'scifact', 'minilm-faiss.knarfthekant.trec');

describe('fusion on real SciFact runs', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-fusion-scifact-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  let qrels: Qrels;
  let bm25: Run;
  let dense: Run;
  const ndcg10 = (run: Run) => evaluate(qrels, run, { measures: ['ndcg_cut.10'], complete: true }).mean.get('ndcg_cut_10')!;

  before(async () => {
    qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
    const out = join(tmp, 'bm25.trec');
    await runBm25({ dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 1000, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out });
    bm25 = readRun(out);
    dense = readRun(DENSE);
  });

  it('the inputs score as expected (dense: 0.6451 per the run README)', () => {
    assert.ok(Math.abs(ndcg10(dense) - 0.6451) < 5e-5);
    assert.ok(ndcg10(bm25) > 0.6, `BM25 ${ndcg10(bm25)}`);
  });

  for (const [name, method, norm] of [
    ['min-max + arithmetic mean', 'arithmetic', 'min-max'],
    ['RRF (k = 60)', 'rrf', 'none'],
  ] as const) {
    it(`${name} beats both inputs on nDCG@10`, () => {
      const fused = ndcg10(fuse([bm25, dense], { method, norm, k: 1000, tag: 'f' }));
      const best = Math.max(ndcg10(bm25), ndcg10(dense));
      assert.ok(fused > best + 0.01, `fused ${fused.toFixed(4)} vs best input ${best.toFixed(4)}`);
    });
  }
});
