import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DenseEncoder } from '../../../../../src/core/retrieval/dense/encoder';
import { readModelFolder } from '../../../../../src/core/retrieval/dense/modelFolder';
import { CrossEncoder } from '../../../../../src/core/retrieval/rerank/crossEncoder';
import { tinyBiEncoder, tinyCrossEncoder } from '../../../../helpers/neuralFixtures';
import { inputError } from '../../../support/inputError';

const tmp = mkdtempSync(join(tmpdir(), 'irw-model-folder-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const json = (path: string, value: unknown) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
};

/** A folder laid out as sentence-transformers saves all-MiniLM-L6-v2 (modules, pooling, length, config). */
function stFolder(name: string, pooling: Record<string, unknown> = { pooling_mode_mean_tokens: true }, modules?: unknown[]): string {
  const { dir } = tinyBiEncoder(tmp, name, {});
  unlinkSync(join(dir, 'irw-model.json'));
  json(join(dir, 'modules.json'), modules ?? [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ]);
  json(join(dir, '1_Pooling', 'config.json'), { word_embedding_dimension: 16, pooling_mode_cls_token: false, pooling_mode_mean_tokens: false, ...pooling });
  json(join(dir, 'sentence_bert_config.json'), { max_seq_length: 256, do_lower_case: false });
  json(join(dir, 'config.json'), { model_type: 'bert', max_position_embeddings: 512 });
  return dir;
}

describe('model folders: what sentence-transformers declares is used, or refused naming the file and key', () => {
  it("all-MiniLM-L6-v2's layout: mean pooling, normalized, 256 tokens, cosine (sentence-transformers' default), each with its source", () => {
    const f = readModelFolder(stFolder('minilm'));
    assert.deepEqual(f.config, { pooling: 'mean', normalize: true, maxLength: 256, queryPrefix: '', documentPrefix: '', similarity: 'cosine' });
    assert.equal(f.sources.maxLength, 'sentence_bert_config.json max_seq_length');
    assert.equal(f.sources.pooling, '1_Pooling/config.json pooling_mode_mean_tokens');
    assert.equal(f.sources.normalize, 'modules.json (Normalize module)');
    assert.match(f.sources.similarity, /default/);
    assert.equal(f.positions, 512);
  });

  it('max, last-token, mean_sqrt_len and weighted-mean pooling are read as declared, not turned into mean', () => {
    for (const [key, mode] of [
      ['pooling_mode_max_tokens', 'max'],
      ['pooling_mode_lasttoken', 'lasttoken'],
      ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len'],
      ['pooling_mode_weightedmean_tokens', 'weightedmean'],
      ['pooling_mode_cls_token', 'cls'],
    ]) {
      assert.equal(readModelFolder(stFolder(`p-${mode}`, { [key]: true })).config.pooling, mode, key);
    }
  });

  it('two pooling modes at once (a concatenation) are refused naming the file and the keys', () => {
    const dir = stFolder('concat', { pooling_mode_mean_tokens: true, pooling_mode_max_tokens: true });
    const e = inputError(() => readModelFolder(dir));
    assert.equal(e.file, join(dir, '1_Pooling', 'config.json'));
    assert.match(e.message, /pooling_mode_mean_tokens and pooling_mode_max_tokens/);
  });

  it('a Dense module is refused naming modules.json and the module (it would change the vectors and their size)', () => {
    const dir = stFolder('dense', undefined, [
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Dense', type: 'sentence_transformers.models.Dense' },
    ]);
    const e = inputError(() => readModelFolder(dir));
    assert.equal(e.file, join(dir, 'modules.json'));
    assert.match(e.message, /module 2 "type": "sentence_transformers.models.Dense" is not supported.*Dense layer/);
  });

  it('a Xenova-style export (onnx/model.onnx, tokenizer, config.json; no sentence-transformers files) is refused, not run with guesses', () => {
    const { dir } = tinyBiEncoder(tmp, 'xenova', {});
    unlinkSync(join(dir, 'irw-model.json'));
    mkdirSync(join(dir, 'onnx'));
    renameSync(join(dir, 'model.onnx'), join(dir, 'onnx', 'model.onnx'));
    json(join(dir, 'config.json'), { model_type: 'bert', max_position_embeddings: 512 });
    const e = inputError(() => readModelFolder(dir));
    assert.equal(e.file, dir);
    assert.match(e.message, /does not declare pooling, normalize, similarity/);
    assert.match(e.hint!, /all-MiniLM-L6-v2 \{"pooling": "mean", "normalize": true, "maxLength": 256, "similarity": "cosine"\}/);
    // With irw-model.json saying what the model is, it runs; the length comes from the tokenizer, as sentence-transformers takes it.
    json(join(dir, 'irw-model.json'), { pooling: 'mean', normalize: true, similarity: 'cosine' });
    const f = readModelFolder(dir);
    assert.equal(f.config.maxLength, 512);
    assert.equal(f.sources.maxLength, 'tokenizer_config.json model_max_length');
  });

  it("config_sentence_transformers.json: the query and document prompts (e5's query/passage, bge's query only), the default prompt, similarity_fn_name", () => {
    const e5 = stFolder('e5');
    json(join(e5, 'config_sentence_transformers.json'), { prompts: { query: 'query: ', passage: 'passage: ' }, default_prompt_name: null, similarity_fn_name: 'cosine' });
    const c = readModelFolder(e5);
    assert.equal(c.config.queryPrefix, 'query: ');
    assert.equal(c.config.documentPrefix, 'passage: ');
    assert.equal(c.sources.documentPrefix, 'config_sentence_transformers.json prompts.passage');
    const bge = stFolder('bge');
    json(join(bge, 'config_sentence_transformers.json'), { prompts: { query: 'Represent this sentence for searching relevant passages: ' }, similarity_fn_name: 'dot_product' });
    const b = readModelFolder(bge);
    assert.equal(b.config.queryPrefix, 'Represent this sentence for searching relevant passages: ');
    assert.equal(b.config.documentPrefix, '');
    assert.equal(b.config.similarity, 'dot');
    const dflt = stFolder('default-prompt');
    json(join(dflt, 'config_sentence_transformers.json'), { prompts: { retrieval: 'search: ' }, default_prompt_name: 'retrieval' });
    assert.equal(readModelFolder(dflt).config.documentPrefix, 'search: ');
    const euclid = stFolder('euclid');
    json(join(euclid, 'config_sentence_transformers.json'), { similarity_fn_name: 'euclidean' });
    const e = inputError(() => readModelFolder(euclid));
    assert.equal(e.file, join(euclid, 'config_sentence_transformers.json'));
    assert.match(e.message, /"similarity_fn_name": "euclidean"/);
  });

  it('irw-model.json overrides what the folder declares; lower-casing (do_lower_case) is refused naming its key', () => {
    const dir = stFolder('override');
    json(join(dir, 'irw-model.json'), { maxLength: 128, similarity: 'dot' });
    const f = readModelFolder(dir);
    assert.equal(f.config.maxLength, 128);
    assert.equal(f.sources.maxLength, 'irw-model.json maxLength');
    assert.equal(f.config.similarity, 'dot');
    json(join(dir, 'sentence_bert_config.json'), { max_seq_length: 256, do_lower_case: true });
    assert.match(inputError(() => readModelFolder(dir)).message, /"do_lower_case": true/);
    json(join(dir, 'irw-model.json'), { pooling: 'sum' });
    assert.match(inputError(() => readModelFolder(dir)).message, /bad value for "pooling"/);
  });
});

describe('model folders: maxLength is checked before any text is encoded (was "internal error", exit 4)', () => {
  it("above the model's positions (config.json max_position_embeddings; RoBERTa-style models lose 2)", () => {
    const dir = stFolder('long');
    json(join(dir, 'irw-model.json'), { maxLength: 1024 });
    const e = inputError(() => readModelFolder(dir));
    assert.match(e.message, /maxLength 1024 \(irw-model.json maxLength\) is more than the model's 512 positions/);
    json(join(dir, 'config.json'), { model_type: 'xlm-roberta', max_position_embeddings: 514 });
    json(join(dir, 'irw-model.json'), { maxLength: 513 });
    assert.match(inputError(() => readModelFolder(dir)).message, /model's 512 positions/);
  });

  it('too short for the special tokens: 2 for one text (a bi-encoder), 3 for a pair (a cross-encoder), naming where it was set', async () => {
    const bi = tinyBiEncoder(tmp, 'short-bi', { maxLength: 2 });
    await assert.rejects(DenseEncoder.open(bi.dir), (e: unknown) => {
      assert.match((e as Error).message, /maxLength 2 \(irw-model.json maxLength\) leaves no room for text: the tokenizer adds 2 special tokens to each text/);
      return (e as { code?: string }).code === 'malformed';
    });
    const ok = await DenseEncoder.open(tinyBiEncoder(tmp, 'three-bi', { maxLength: 3 }).dir);
    const { data } = await ok.encode(['hello world'], '', { batchSize: 1 });
    assert.equal(data.length, 16, 'maxLength 3 leaves one token of text for a bi-encoder');
    await ok.release();
    const ce = tinyCrossEncoder(tmp, 'short-ce', { maxLength: 3 });
    await assert.rejects(CrossEncoder.open(ce.dir), /maxLength 3 \(irw-model.json maxLength\) leaves no room for text: the tokenizer adds 3 special tokens to a query-document pair/);
  });

  it("a sequence longer than the model's position table fails as bad input naming the model, not as an internal error", async () => {
    // No config.json to check against: the model itself refuses, inside onnxruntime.
    const f = tinyBiEncoder(tmp, 'positions', { maxLength: 64 }, { positions: 8 });
    const enc = await DenseEncoder.open(f.dir);
    try {
      const short = await enc.encode(['hi'], '', { batchSize: 1 });
      assert.equal(short.data.length, 16);
      await assert.rejects(enc.encode(['a sentence that is certainly longer than eight word pieces in all'], '', { batchSize: 1 }), (e: unknown) => {
        assert.equal((e as { file?: string }).file, join(f.dir, 'model.onnx'));
        assert.match((e as Error).message, /onnxruntime could not run the model on 1 texts of \d+ tokens/);
        assert.match((e as { hint?: string }).hint!, /max_position_embeddings/);
        return (e as { code?: string }).code === 'malformed';
      });
    } finally {
      await enc.release();
    }
  });
});
