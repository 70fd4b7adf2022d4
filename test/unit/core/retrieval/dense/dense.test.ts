import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { InputError } from '../../../../../src/core/formats/errors';
import { readRun } from '../../../../../src/core/formats/run';
import { EmbeddingCacheReader, EmbeddingCacheWriter, embeddingFile } from '../../../../../src/core/retrieval/dense/cache';
import { DenseEncoder } from '../../../../../src/core/retrieval/dense/encoder';
import { readModelFolder, type Pooling } from '../../../../../src/core/retrieval/dense/modelFolder';
import { runDense, type DenseRunRequest } from '../../../../../src/core/retrieval/dense/run';
import { BlockSearch, TopK } from '../../../../../src/core/retrieval/dense/search';
import { loadTokenizer } from '../../../../../src/core/retrieval/dense/tokenizer';
import { TOKENIZER_DIR } from '../../../../helpers/modelFolders';
import { smallDataset, tinyBiEncoder, type Fixture } from '../../../../helpers/neuralFixtures';

const tmp = mkdtempSync(join(tmpdir(), 'irw-dense-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** What the generated lookup model + pooling must give, recomputed by hand from its embedding tables. */
function expected(f: Fixture, text: string, maxLength: number, pooling: Pooling, normalize: boolean): number[] {
  const { ids, typeIds } = loadTokenizer(TOKENIZER_DIR, maxLength).encode(text);
  const h = f.model.hidden;
  const token = (j: number) => Array.from({ length: h }, (_, k) => f.model.word[ids[j] * h + k] + f.model.type[typeIds[j] * h + k]);
  const all = ids.map((_, j) => token(j));
  const n = all.length;
  const weighted = (w: (j: number) => number, div: number) => Array.from({ length: h }, (_, k) => all.reduce((a, t, j) => a + w(j) * t[k], 0) / div);
  const out = {
    cls: () => all[0],
    lasttoken: () => all[n - 1],
    max: () => Array.from({ length: h }, (_, k) => Math.max(...all.map((t) => t[k]))),
    mean: () => weighted(() => 1, n),
    mean_sqrt_len: () => weighted(() => 1, Math.sqrt(n)),
    weightedmean: () => weighted((j) => j + 1, (n * (n + 1)) / 2),
  }[pooling]();
  const norm = Math.sqrt(out.reduce((a, x) => a + x * x, 0));
  return normalize ? out.map((x) => x / norm) : out;
}

function assertVector(actual: Float32Array, expectedV: number[], what: string): void {
  assert.equal(actual.length, expectedV.length);
  actual.forEach((x, k) => assert.ok(Math.abs(x - expectedV[k]) < 1e-4, `${what}[${k}]: ${x} vs ${expectedV[k]}`));
}

const TEXTS = ['hello world', "Dense retrieval with BM25 re-ranking isn't trivial!", 'a', 'Mean pooling must ignore the padding of shorter texts in a batch.'];

describe('dense: encoder on generated ONNX models', () => {
  const mean = tinyBiEncoder(tmp, 'mean', { pooling: 'mean', normalize: false, maxLength: 12 });
  const cls = tinyBiEncoder(tmp, 'cls', { pooling: 'cls', normalize: true, maxLength: 12 });

  it('mean pooling over unpadded tokens (padding positions carry noise the mask must exclude), truncation to maxLength', async () => {
    const enc = await DenseEncoder.open(mean.dir);
    try {
      const { dim, data } = await enc.encode(TEXTS, '', { batchSize: 3 });
      assert.equal(dim, 16);
      TEXTS.forEach((t, i) => assertVector(data.subarray(i * dim, (i + 1) * dim), expected(mean, t, 12, 'mean', false), t));
    } finally {
      await enc.release();
    }
  });

  it('cls pooling with L2 normalization; prefixes are prepended to the text', async () => {
    const enc = await DenseEncoder.open(cls.dir);
    try {
      const { dim, data } = await enc.encode(TEXTS, 'query: ', { batchSize: 2 });
      TEXTS.forEach((t, i) => assertVector(data.subarray(i * dim, (i + 1) * dim), expected(cls, `query: ${t}`, 12, 'cls', true), t));
    } finally {
      await enc.release();
    }
  });

  for (const pooling of ['max', 'lasttoken', 'mean_sqrt_len', 'weightedmean'] as const) {
    it(`${pooling} pooling over unpadded tokens, as sentence-transformers computes it (padding carries noise the mask must exclude)`, async () => {
      const f = tinyBiEncoder(tmp, `pool-${pooling}`, { pooling, normalize: false, maxLength: 12 });
      const enc = await DenseEncoder.open(f.dir);
      try {
        const { dim, data } = await enc.encode(TEXTS, '', { batchSize: 4 });
        TEXTS.forEach((t, i) => assertVector(data.subarray(i * dim, (i + 1) * dim), expected(f, t, 12, pooling, false), `${pooling} ${t}`));
      } finally {
        await enc.release();
      }
    });
  }

  it('results do not depend on the batch size (batches pad to different lengths)', async () => {
    const enc = await DenseEncoder.open(mean.dir);
    try {
      const a = await enc.encode(TEXTS, '', { batchSize: 1 });
      const b = await enc.encode(TEXTS, '', { batchSize: 4 });
      a.data.forEach((x, i) => assert.ok(Math.abs(x - b.data[i]) < 1e-5));
    } finally {
      await enc.release();
    }
  });

  it('a DistilBERT-style export without token_type_ids works', async () => {
    const f = tinyBiEncoder(tmp, 'distil', { maxLength: 16 }, { tokenTypes: false });
    const enc = await DenseEncoder.open(f.dir);
    try {
      const { data } = await enc.encode(['hello world'], '', { batchSize: 1 });
      // No type embeddings in the graph: the mean of the word rows alone.
      const ids = [101, 7592, 2088, 102];
      const want = Array.from({ length: 16 }, (_, k) => ids.reduce((a, id) => a + f.model.word[id * 16 + k], 0) / 4);
      assertVector(data, want, 'distil');
    } finally {
      await enc.release();
    }
  });

  it('cancellation stops between batches with an AbortError', async () => {
    const enc = await DenseEncoder.open(mean.dir);
    const ac = new AbortController();
    try {
      await assert.rejects(
        enc.encode(TEXTS, '', { batchSize: 1 }, { signal: ac.signal, onProgress: (done) => done === 2 && ac.abort() }),
        (e: Error) => e.name === 'AbortError',
      );
    } finally {
      await enc.release();
    }
  });
});

describe('dense: model folder and signature checks', () => {
  it('a model with the wrong input names is rejected naming what was expected and found', async () => {
    const f = tinyBiEncoder(tmp, 'badin', {}, { inputNames: ['ids', 'mask', 'types'] });
    await assert.rejects(DenseEncoder.open(f.dir), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /input input_ids is missing/);
      assert.match(e.message, /unexpected input ids/);
      assert.match(e.message, /expected: inputs input_ids, attention_mask\[, token_type_ids\]/);
      assert.match(e.message, /found: {4}inputs ids: int64 \[batch_size, sequence_length\]/);
      return true;
    });
  });

  it('a cross-encoder (logits) given as a bi-encoder is rejected', async () => {
    const f = tinyBiEncoder(tmp, 'badout', {}, { outputName: 'pooler_output' });
    await assert.rejects(DenseEncoder.open(f.dir), /no output named last_hidden_state or token_embeddings[\s\S]*found:.*outputs pooler_output: float32 \[batch_size, sequence_length, 16\]/);
  });

  it('a file that is not ONNX is an input error', async () => {
    const f = tinyBiEncoder(tmp, 'notonnx', {});
    writeFileSync(join(f.dir, 'model.onnx'), 'not a model');
    await assert.rejects(DenseEncoder.open(f.dir), (e: unknown) => e instanceof InputError && /onnxruntime could not load/.test(e.message));
  });

  it('a model folder that is missing is named', () => {
    assert.throws(() => readModelFolder(join(tmp, 'nowhere')), /model folder not found/);
  });
});

describe('dense: exact search', () => {
  it('dot product and cosine can retrieve different documents (a long vector wins under dot)', () => {
    // d0 points the query's way; d1 is 10x longer and 45 degrees off.
    const docs = Float32Array.from([1, 0, 10, 10]);
    const q = Float32Array.from([1, 0]);
    const search = (similarity: 'dot' | 'cosine', k: number) => {
      const s = new BlockSearch(q, 1, 2, similarity, k, 2);
      s.add(docs, 2);
      return s.results(0);
    };
    assert.deepEqual(Array.from(search('dot', 2).docs), [1, 0]);
    assert.deepEqual(Array.from(search('cosine', 2).docs), [0, 1]);
    assert.ok(Math.abs(search('cosine', 1).scores[0] - 1) < 1e-6);
  });

  it('TopK keeps the k best of any stream (against a full sort)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 200 }), fc.integer({ min: 1, max: 30 }), (vals, k) => {
        const t = new TopK(Math.min(k, vals.length));
        vals.forEach((v, i) => t.offer(i, v));
        const want = vals.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, k);
        assert.deepEqual(Array.from(t.sorted().scores), want.map((w) => w[0]));
      }),
    );
  });
});

describe('dense: embedding cache', () => {
  it('round-trips; a flipped byte or different document ids make it corrupt', () => {
    const dir = join(tmp, 'cache');
    const file = embeddingFile(dir, 'k'.repeat(64));
    const data = Float32Array.from({ length: 12 }, (_, i) => i / 7);
    const w = EmbeddingCacheWriter.create(file, 'k'.repeat(64), ['a', 'b', 'c'], 4);
    w.append(data.subarray(0, 4));
    w.append(data.subarray(4));
    w.commit();
    const load = (key: string, ids: string[]): Float32Array | string => {
      const r = EmbeddingCacheReader.open(file, key, ids, 4);
      if (typeof r === 'string') return r;
      const back = new Float32Array(12);
      r.read(1, back);
      r.read(2, back.subarray(4));
      const ok = r.verify();
      r.close();
      return ok ? back : 'corrupt';
    };
    assert.deepEqual(load('k'.repeat(64), ['a', 'b', 'c']), data);
    assert.equal(load('k'.repeat(64), ['a', 'b', 'd']), 'corrupt');
    assert.equal(load('x'.repeat(64), ['a', 'b', 'c']), 'corrupt');
    const bytes = readFileSync(file);
    bytes[bytes.length - 40] ^= 1;
    writeFileSync(file, bytes);
    assert.equal(load('k'.repeat(64), ['a', 'b', 'c']), 'corrupt');
    assert.equal(EmbeddingCacheReader.open(join(dir, 'none.emb'), 'k', [], 4), 'absent');
  });
});

describe('dense: runs over a BEIR folder (real SciFact text)', () => {
  const ds = smallDataset(tmp);
  const model = tinyBiEncoder(tmp, 'run-model', { pooling: 'mean', normalize: true, maxLength: 64, similarity: 'cosine' });
  const req = (over: Partial<DenseRunRequest>): DenseRunRequest => ({
    dataset: ds.dir,
    split: 'test',
    model: model.dir,
    similarity: null,
    topK: 10,
    batchSize: 8,
    threads: 1,
    removeQuery: true,
    cacheDir: join(tmp, 'emb-cache'),
    out: join(tmp, 'dense.trec'),
    ...over,
  });

  it('writes the top k per judged query; the second run reuses the cached corpus embeddings', async () => {
    const first = await runDense(req({}));
    assert.equal(first.embeddings, 'encoded');
    assert.equal(first.queries, 6);
    assert.equal(first.lines, 60);
    const run = readRun(first.out);
    assert.deepEqual(run.qids, ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    assert.equal(run.tag, 'dense-run-model-cosine');
    const second = await runDense(req({ out: join(tmp, 'dense2.trec') }));
    assert.equal(second.embeddings, 'cache');
    assert.equal(readFileSync(second.out, 'utf8'), readFileSync(first.out, 'utf8'));
    // Similarity is a search setting, not a document one: the same cache file serves dot and cosine.
    const dot = await runDense(req({ similarity: 'dot', out: join(tmp, 'dense3.trec') }));
    assert.equal(dot.embeddings, 'cache');
    assert.equal(readdirSync(join(tmp, 'emb-cache')).length, 1);
  });

  it('a query text identical to a document title finds that document first (mean pooling of the same tokens is close)', async () => {
    const r = await runDense(req({ out: join(tmp, 'dense4.trec'), cacheDir: null }));
    const run = readRun(r.out);
    // q1's text is the title of document 0: its embedding shares all title tokens with that document.
    assert.equal(run.ranking('q1')!.docs[0], ds.ids[0]);
  });

  it('cancel leaves no run file', async () => {
    const ac = new AbortController();
    const out = join(tmp, 'cancelled.trec');
    await assert.rejects(
      runDense(req({ out, cacheDir: null }), { signal: ac.signal, onProgress: (p) => p.phase === 'encode-corpus' && p.done > 0 && ac.abort() }),
      (e: Error) => e.name === 'AbortError',
    );
    assert.equal(existsSync(out), false);
    assert.deepEqual(readdirSync(tmp).filter((f) => f.includes('partial')), []);
  });
});
