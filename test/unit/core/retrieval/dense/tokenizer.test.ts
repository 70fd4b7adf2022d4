import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS, needsShared, SHARED } from '../../../support/paths';
import { after, describe, it } from 'node:test';
import { forEachCorpusDocSync } from '../../../../../src/core/formats/beir';
import { InputError } from '../../../../../src/core/formats/errors';
import { documentText } from '../../../../../src/core/retrieval/dense/dataset';
import { loadTokenizer, longestFirst, pad } from '../../../../../src/core/retrieval/dense/tokenizer';
import { TOKENIZER_DIR } from '../../../../helpers/modelFolders';
import { BERT_DATA } from '../../../../helpers/bertTokenizer';

// Real bert-base-uncased WordPiece files (those of all-MiniLM-L6-v2, test/data/bert-base-uncased, tokenizer.json
// generated from them: test/helpers/bertTokenizer.ts); reference encodings from their README.
const HELLO = [101, 7592, 2088, 102];
const DENSE = [101, 9742, 26384, 2007, 1038, 2213, 17788, 2128, 1011, 5464, 3475, 1005, 1056, 20610, 999, 102];
const DENSE_TEXT = "Dense retrieval with BM25 re-ranking isn't trivial!";

const tmp = mkdtempSync(join(tmpdir(), 'irw-tok-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function vocabOnlyFolder(config?: object): string {
  const dir = mkdtempSync(join(tmp, 'vocab-'));
  copyFileSync(join(TOKENIZER_DIR, 'vocab.txt'), join(dir, 'vocab.txt'));
  if (config) writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  return dir;
}

describe('tokenizer: real BERT WordPiece files', () => {
  const fromJson = loadTokenizer(TOKENIZER_DIR, 512);
  const fromVocab = loadTokenizer(vocabOnlyFolder(), 512);

  for (const [name, tk] of [
    ['tokenizer.json', fromJson],
    ['vocab.txt only', fromVocab],
  ] as const) {
    it(`${name}: reference encodings`, () => {
      assert.deepEqual(tk.encode('hello world').ids, HELLO);
      assert.deepEqual(tk.encode(DENSE_TEXT).ids, DENSE);
      assert.deepEqual(tk.encode(DENSE_TEXT).typeIds, new Array(DENSE.length).fill(0));
    });
    it(`${name}: lowercases and strips accents`, () => {
      assert.deepEqual(tk.encode('naïve café').ids, tk.encode('naive cafe').ids);
      assert.deepEqual(tk.encode('HELLO World').ids, HELLO);
    });
  }

  const REAL = join(SHARED, 'tokenizers', 'bert-base-uncased-wordpiece');
  it('the generated tokenizer.json is the real one; the committed files are the real ones', { skip: needsShared('tokenizers') }, () => {
    assert.deepEqual(JSON.parse(readFileSync(join(TOKENIZER_DIR, 'tokenizer.json'), 'utf8')), JSON.parse(readFileSync(join(REAL, 'tokenizer.json'), 'utf8')));
    for (const f of ['vocab.txt', 'tokenizer_config.json', 'special_tokens_map.json']) assert.ok(readFileSync(join(BERT_DATA, f)).equals(readFileSync(join(REAL, f))), f);
  });

  it('vocab.txt alone tokenizes 300 real SciFact documents exactly as tokenizer.json', { skip: needsShared('datasets/scifact') }, () => {
    let n = 0;
    forEachCorpusDocSync(join(DATASETS, 'scifact', 'corpus.jsonl'), (doc) => {
      if (n++ >= 300) return;
      const text = documentText(doc);
      assert.deepEqual(fromVocab.pieces(text), fromJson.pieces(text), doc.id);
    });
  });

  it('do_lower_case: false in tokenizer_config.json keeps case (then uppercase words are unknown here)', () => {
    const cased = loadTokenizer(vocabOnlyFolder({ do_lower_case: false }), 512);
    assert.deepEqual(cased.encode('HELLO').ids, [101, 100, 102]);
  });

  it('a pair is [CLS] a [SEP] b [SEP] with token_type_ids 0 up to the first [SEP], then 1', () => {
    const e = fromJson.encode('hello world', DENSE_TEXT);
    assert.deepEqual(e.ids, [...HELLO, ...DENSE.slice(1)]);
    assert.deepEqual(e.typeIds, [0, 0, 0, 0, ...new Array(DENSE.length - 1).fill(1)]);
  });

  it('truncates a single text to the max length, special tokens included', () => {
    const tk = loadTokenizer(TOKENIZER_DIR, 8);
    assert.deepEqual(tk.encode(DENSE_TEXT).ids, [...DENSE.slice(0, 7), 102]);
    assert.deepEqual(tk.encode('hello world').ids, HELLO);
  });

  it('truncates a pair longest-first: the longer text is cut, then both to half', () => {
    // 14 pieces for DENSE_TEXT, 2 for "hello world"; max 12 leaves 9 pieces after [CLS] [SEP] [SEP].
    const tk = loadTokenizer(TOKENIZER_DIR, 12);
    const e = tk.encode('hello world', DENSE_TEXT);
    assert.deepEqual(e.ids, [101, 7592, 2088, 102, ...DENSE.slice(1, 8), 102]);
    assert.deepEqual(e.typeIds, [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    const both = tk.encode(DENSE_TEXT, DENSE_TEXT);
    assert.deepEqual(both.ids, [101, ...DENSE.slice(1, 5), 102, ...DENSE.slice(1, 6), 102]);
  });

  it('longestFirst matches the Rust tokenizers rule (max 7)', () => {
    const cases: [number, number, number, number][] = [
      [0, 0, 0, 0], [0, 2, 0, 2], [0, 8, 0, 7], [2, 2, 2, 2], [2, 8, 2, 5], [4, 4, 3, 4],
      [4, 8, 3, 4], [8, 0, 7, 0], [8, 2, 5, 2], [8, 4, 4, 3], [8, 8, 3, 4], [20, 30, 3, 4],
    ];
    for (const [a, b, x, y] of cases) assert.deepEqual(longestFirst(a, b, 7), [x, y], `${a},${b}`);
  });

  it('pads a batch to its longest member with [PAD] = 0 and a prefix attention mask', () => {
    const b = fromJson.encodeBatch(['hello world', DENSE_TEXT]);
    assert.equal(b.batch, 2);
    assert.equal(b.seqLen, DENSE.length);
    assert.deepEqual(Array.from(b.lengths), [4, DENSE.length]);
    const row0 = Array.from(b.inputIds.subarray(0, b.seqLen), Number);
    assert.deepEqual(row0, [...HELLO, ...new Array(DENSE.length - 4).fill(0)]);
    const mask0 = Array.from(b.attentionMask.subarray(0, b.seqLen), Number);
    assert.deepEqual(mask0, [1, 1, 1, 1, ...new Array(DENSE.length - 4).fill(0)]);
    assert.deepEqual(Array.from(b.inputIds.subarray(b.seqLen), Number), DENSE);
  });

  it('pad() writes int64 tensors: ids, a non-zero pad id, masks and type ids', () => {
    const b = pad([{ ids: [7, 8, 9], typeIds: [0, 1, 1] }, { ids: [300000], typeIds: [0] }], 5);
    assert.deepEqual(Array.from(b.inputIds), [7n, 8n, 9n, 300000n, 5n, 5n]);
    assert.deepEqual(Array.from(b.attentionMask), [1n, 1n, 1n, 1n, 0n, 0n]);
    assert.deepEqual(Array.from(b.tokenTypeIds), [0n, 1n, 1n, 0n, 0n, 0n]);
    assert.deepEqual(Array.from(b.lengths), [3, 1]);
  });

  it('a folder without tokenizer files is an input error naming the folder', () => {
    const empty = mkdtempSync(join(tmp, 'empty-'));
    assert.throws(() => loadTokenizer(empty, 128), (e: unknown) => e instanceof InputError && e.file === empty && /tokenizer\.json/.test(e.message));
  });
});
