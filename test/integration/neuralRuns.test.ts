// Dense, hybrid and re-rank runs from "Run BEIR Eval" in the extension host, with generated ONNX models that
// have sentence-transformers' signatures and the real BERT WordPiece vocabulary (test/data/bert-base-uncased).
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { biEncoder, crossEncoder } from '../helpers/onnxModels';
import { activateExtension, datasetUri } from './helpers';

interface Figures {
  runFile: string;
  runId: string;
  numQ: number;
  mean: Record<string, number>;
}

const TINY = { vocab: 30522, hidden: 32 };
const TOKENIZER_FILES = ['vocab.txt', 'tokenizer_config.json'];

function modelFolder(dir: string, bytes: Uint8Array, config: object, tokenizerDir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.onnx'), bytes);
  for (const f of TOKENIZER_FILES) copyFileSync(join(tokenizerDir, f), join(dir, f));
  writeFileSync(join(dir, 'irw-model.json'), JSON.stringify(config));
  return dir;
}

async function runBeirEval(args: object): Promise<Figures> {
  const figures = await vscode.commands.executeCommand<Figures | undefined>('irWorkbench.runBeirEval', args);
  assert.ok(figures, 'Run BEIR Eval returned no figures');
  return figures;
}

suite('Run BEIR Eval: neural and hybrid retrievers', () => {
  let biDir: string;
  let crossDir: string;
  let scifact: string;

  suiteSetup(async () => {
    const ext = await activateExtension();
    // The extension under development is the checkout, which holds the vocabulary.
    const tokenizerDir = join(ext.extensionPath, 'test', 'data', 'bert-base-uncased');
    scifact = datasetUri('scifact').fsPath;
    const models = join(scifact, '..', 'models');
    biDir = modelFolder(join(models, 'bi'), biEncoder({ ...TINY, seed: 1 }).bytes, { pooling: 'mean', normalize: true, maxLength: 64, similarity: 'cosine' }, tokenizerDir);
    crossDir = modelFolder(join(models, 'cross'), crossEncoder({ ...TINY, seed: 2 }).bytes, { maxLength: 128 }, tokenizerDir);
  });

  test('dense retrieval writes and evaluates a run over all test queries', async function () {
    this.timeout(240_000);
    const f = await runBeirEval({ dataset: scifact, split: 'test', retriever: 'dense', model: biDir });
    assert.equal(f.numQ, 300);
    assert.match(f.runFile, /dense\.test\..*\.trec$/);
    assert.ok(f.mean.ndcg_cut_10 >= 0 && f.mean.ndcg_cut_10 <= 1);
  });

  test('hybrid with RRF fuses BM25 and dense: with a random dense model it stays near BM25, above dense', async function () {
    this.timeout(240_000);
    const dense = await runBeirEval({ dataset: scifact, split: 'test', retriever: 'dense', model: biDir });
    const hybrid = await runBeirEval({ dataset: scifact, split: 'test', retriever: 'hybrid', model: biDir, fusion: { norm: 'none', method: 'rrf' } });
    assert.equal(hybrid.numQ, 300);
    assert.ok(hybrid.mean.ndcg_cut_10 > dense.mean.ndcg_cut_10, `hybrid ${hybrid.mean.ndcg_cut_10} vs dense ${dense.mean.ndcg_cut_10}`);
    assert.ok(hybrid.mean.ndcg_cut_10 > 0.3, `hybrid nDCG@10 ${hybrid.mean.ndcg_cut_10}`);
  });

  test('re-ranking keeps the first stage documents (recall@100 unchanged)', async function () {
    this.timeout(240_000);
    const bm25 = await runBeirEval({ dataset: scifact, split: 'test', retriever: 'bm25' });
    const reranked = await runBeirEval({ dataset: scifact, split: 'test', retriever: 'rerank', crossEncoder: crossDir, firstStage: bm25.runFile });
    assert.equal(reranked.numQ, 300);
    assert.equal(reranked.mean.recall_100, bm25.mean.recall_100);
  });
});
