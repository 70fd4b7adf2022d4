import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate } from '../../../../../src/core/eval';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';
import { runBm25 } from '../../../../../src/core/retrieval/bm25/run';

import { DATASETS, needsShared } from '../../../support/paths';

// Anserini's BEIR regressions (castorini/anserini at 81e3414, beir-v1.0.0-*.yaml; see shared/datasets/README.md),
// trec_eval -c on the test split.
const ANSERINI = [
  { dataset: 'scifact', fields: 'flat', ndcg10: 0.6789, r100: 0.9253 },
  { dataset: 'scifact', fields: 'multifield', ndcg10: 0.6647, r100: 0.9076 },
  { dataset: 'nfcorpus', fields: 'flat', ndcg10: 0.3218, r100: 0.2457 },
  { dataset: 'nfcorpus', fields: 'multifield', ndcg10: 0.3254, r100: 0.25 },
] as const;

describe("BM25 effectiveness against Anserini's BEIR regressions", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-eff-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const ref of ANSERINI) {
    it(`${ref.dataset} ${ref.fields}: nDCG@10 within 0.005 and R@100 within 0.01 of ${ref.ndcg10} / ${ref.r100}`, { skip: needsShared(`datasets/${ref.dataset}`) }, async () => {
      const out = join(dir, `${ref.dataset}-${ref.fields}.trec`);
      const dataset = join(DATASETS, ref.dataset);
      await runBm25({
        dataset,
        split: 'test',
        k1: 0.9,
        b: 0.4,
        fields: ref.fields,
        topK: 1000,
        removeQuery: true,
        rm3: null,
        queryWeights: null,
        cacheDir: null,
        out,
      });
      const result = evaluate(readQrels(join(dataset, 'qrels', 'test.tsv')), readRun(out), {
        measures: ['ndcg_cut.10', 'recall.100'],
        complete: true,
      });
      const ndcg = result.mean.get('ndcg_cut_10')!;
      const r100 = result.mean.get('recall_100')!;
      assert.ok(Math.abs(ndcg - ref.ndcg10) <= 0.005, `nDCG@10 ${ndcg.toFixed(4)} vs Anserini ${ref.ndcg10}`);
      assert.ok(Math.abs(r100 - ref.r100) <= 0.01, `R@100 ${r100.toFixed(4)} vs Anserini ${ref.r100}`);
    });
  }
});
