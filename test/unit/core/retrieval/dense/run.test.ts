import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../../../../src/core/formats/errors';
import { readRun, type Run } from '../../../../../src/core/formats/run';
import { readCorpusTexts } from '../../../../../src/core/retrieval/dense/dataset';
import { DenseEncoder } from '../../../../../src/core/retrieval/dense/encoder';
import { runDense, type DenseRunRequest } from '../../../../../src/core/retrieval/dense/run';
import { readSidecar } from '../../../../../src/core/provenance/record';
import { smallDataset, tinyBiEncoder } from '../../../../helpers/neuralFixtures';
import { writeNpy } from '../../../../helpers/npy';

const tmp = mkdtempSync(join(tmpdir(), 'irw-dense-run-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const ds = smallDataset(tmp);
const model = tinyBiEncoder(tmp, 'model', { pooling: 'mean', normalize: false, maxLength: 64, similarity: 'cosine' });
let n = 0;
const req = (over: Partial<DenseRunRequest>): DenseRunRequest => ({
  dataset: ds.dir,
  split: 'test',
  model: model.dir,
  similarity: null,
  topK: 10,
  batchSize: 8,
  threads: 1,
  removeQuery: true,
  cacheDir: null,
  out: join(tmp, `run${n++}.trec`),
  ...over,
});

function sameRanking(a: Run, b: Run): void {
  assert.deepEqual(a.qids, b.qids);
  for (const q of a.qids) {
    assert.deepEqual(a.ranking(q)!.docs, b.ranking(q)!.docs, q);
    assert.deepEqual(Array.from(a.ranking(q)!.scores), Array.from(b.ranking(q)!.scores), q);
  }
}

describe('dense: imported embeddings (.npy + ids)', () => {
  const QIDS = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];
  const files = {
    docs: { matrix: join(tmp, 'corpus.npy'), ids: join(tmp, 'corpus-ids.tsv') },
    queries: { matrix: join(tmp, 'queries.npy'), ids: join(tmp, 'query-ids.jsonl') },
  };
  let dim = 0;
  let docData: Float32Array = new Float32Array(0);
  let queryData: Float32Array = new Float32Array(0);

  before(async () => {
    // What a sentence-transformers user would save: the same model's embeddings, queries in another order.
    const enc = await DenseEncoder.open(model.dir);
    try {
      const corpus = await readCorpusTexts(ds.dir);
      const docs = await enc.encode(corpus.texts, '', { batchSize: 8 });
      const texts = QIDS.map((q) => (JSON.parse(readFileSync(join(ds.dir, 'queries.jsonl'), 'utf8').split('\n')[Number(q.slice(1)) - 1]) as { text: string }).text);
      const queries = await enc.encode(texts.reverse(), '', { batchSize: 8 });
      dim = docs.dim;
      docData = docs.data;
      queryData = queries.data;
    } finally {
      await enc.release();
    }
    writeNpy(files.docs.matrix, docData, [ds.ids.length, dim]);
    writeFileSync(files.docs.ids, ds.ids.map((id) => `${id}\n`).join(''));
    writeNpy(files.queries.matrix, queryData, [QIDS.length, dim], { version: 2 });
    writeFileSync(files.queries.ids, [...QIDS].reverse().map((q) => `${JSON.stringify({ _id: q })}\n`).join(''));
  });

  it('corpus and queries imported (no model) give the run the model gives', async () => {
    const encoded = await runDense(req({}));
    const imported = await runDense(req({ model: null, similarity: 'cosine', docEmbeddings: files.docs, queryEmbeddings: files.queries }));
    assert.equal(imported.embeddings, 'imported');
    assert.equal(imported.tag, 'dense-corpus-cosine');
    sameRanking(readRun(imported.out), readRun(encoded.out));
  });

  it('either side alone can be imported, the other encoded', async () => {
    const encoded = readRun((await runDense(req({ similarity: 'dot' }))).out);
    sameRanking(readRun((await runDense(req({ similarity: 'dot', docEmbeddings: files.docs }))).out), encoded);
    sameRanking(readRun((await runDense(req({ similarity: 'dot', queryEmbeddings: files.queries }))).out), encoded);
  });

  it('refuses embeddings that are not tied to this corpus, saying what differs', async () => {
    const refuse = async (over: Partial<DenseRunRequest>, message: RegExp) => {
      const out = join(tmp, `refused${n++}.trec`);
      await assert.rejects(runDense(req({ ...over, out })), (e: unknown) => e instanceof InputError && message.test(e.format()));
      assert.equal(existsSync(out), false);
    };
    const swapped = join(tmp, 'swapped-ids.tsv');
    writeFileSync(swapped, [ds.ids[1], ds.ids[0], ...ds.ids.slice(2)].map((id) => `${id}\textra\n`).join(''));
    await refuse({ docEmbeddings: { ...files.docs, ids: swapped } }, new RegExp(`swapped-ids\\.tsv:1: row 0 is document "${ds.ids[1]}", but document 1 of .*corpus\\.jsonl is "${ds.ids[0]}"[\\s\\S]*another corpus`));

    const fewer = join(tmp, 'fewer.npy');
    const fewerIds = join(tmp, 'fewer-ids.txt');
    writeNpy(fewer, docData.subarray(0, 39 * dim), [39, dim]);
    writeFileSync(fewerIds, ds.ids.slice(0, 39).join('\n') + '\n');
    await refuse({ docEmbeddings: { matrix: fewer, ids: fewerIds } }, /39 document embeddings for the 40 documents of/);
    await refuse({ docEmbeddings: { matrix: fewer, ids: files.docs.ids } }, /fewer\.npy: the matrix has 39 rows but .*corpus-ids\.tsv has 40 ids/);

    const someQueries = join(tmp, 'some-queries.txt');
    writeFileSync(someQueries, 'q6\nq5\nq4\nq3\nq2\nq9\n');
    await refuse({ queryEmbeddings: { ...files.queries, ids: someQueries } }, /1 of the 6 judged queries have no embedding \(first: "q1"\)/);

    const narrow = join(tmp, 'narrow.npy');
    writeNpy(narrow, queryData.subarray(0, 6 * 8), [6, 8]);
    await refuse({ queryEmbeddings: { ...files.queries, matrix: narrow } }, /document embeddings have 16 dimensions but query embeddings have 8/);

    const blank = join(tmp, 'blank-ids.txt');
    writeFileSync(blank, `${ds.ids[0]}\n\n${ds.ids.slice(1).join('\n')}\n`);
    await refuse({ docEmbeddings: { ...files.docs, ids: blank } }, /blank-ids\.txt:2: not an id/);
  });
});

/** A cache file as the format defines it, with a correct checksum: what a tampered or buggy writer can leave. */
function writeCache(path: string, header: object, data: Float32Array): void {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(json.length);
  const pad = Buffer.alloc((4 - ((8 + 4 + json.length) % 4)) % 4);
  const body = Buffer.concat([Buffer.from('IRWEMB1\n', 'latin1'), len, json, pad, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  writeFileSync(path, Buffer.concat([body, createHash('sha256').update(body).digest()]));
}

describe('dense: embedding cache faults', () => {
  it('a cache that passes its checksum but does not fit (other dimension, fewer rows) is rebuilt, never searched', async () => {
    const cacheDir = join(tmp, 'tamper-cache');
    const fresh = await runDense(req({ cacheDir }));
    assert.equal(fresh.embeddings, 'encoded');
    const [name] = readdirSync(cacheDir);
    const file = join(cacheDir, name);
    const original = readFileSync(file);
    const headerLen = original.readUInt32LE(8);
    const header = JSON.parse(original.toString('utf8', 12, 12 + headerLen)) as { dim: number; count: number };
    assert.equal(header.dim, 16);
    const tampered: [string, object, Float32Array][] = [
      // Half the dimensions with as many values: the old reader searched 16-dimensional queries against it.
      ['dimension', { ...header, dim: 8 }, new Float32Array(40 * 8).fill(0.5)],
      ['no dimensions', { ...header, dim: 0 }, new Float32Array(0)],
      ['missing rows', header, new Float32Array(39 * 16).fill(0.5)],
    ];
    for (const [what, h, data] of tampered) {
      writeCache(file, h, data);
      const r = await runDense(req({ cacheDir }));
      assert.equal(r.embeddings, 'encoded', what);
      assert.equal(readFileSync(r.out, 'utf8'), readFileSync(fresh.out, 'utf8'), what);
      assert.deepEqual(readFileSync(file), original, `${what}: the cache is rewritten whole`);
    }
    assert.equal((await runDense(req({ cacheDir }))).embeddings, 'cache');
  });

  it('a cache folder that cannot be written costs the cache, not the run: the run is written with a warning', async () => {
    const notAFolder = join(tmp, 'cache-is-a-file');
    writeFileSync(notAFolder, 'x');
    const r = await runDense(req({ cacheDir: notAFolder }));
    assert.equal(r.lines, 60);
    assert.equal(r.embeddings, 'encoded');
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /corpus embeddings not cached \(.*(EEXIST|ENOTDIR).*\); the run is not affected/);
    assert.equal(readFileSync(r.out, 'utf8'), readFileSync((await runDense(req({}))).out, 'utf8'));
  });
});

describe('dense: the sidecar records every setting used (issue 25 item 14)', () => {
  it('pooling, normalization, max length, prompts and similarity with their sources, and the model and tokenizer hashes', async () => {
    const st = tinyBiEncoder(tmp, 'prompted', { pooling: 'max', normalize: true, maxLength: 32, queryPrefix: 'query: ', documentPrefix: 'passage: ', similarity: 'cosine' });
    const out = join(tmp, 'recorded.trec');
    await runDense(req({ model: st.dir, out, command: 'irw run --retriever dense' }));
    const sidecar = readSidecar(out)!;
    assert.equal(sidecar.settings.similarity, 'cosine', 'the similarity used, not the request\'s null');
    const m = sidecar.provenance!.inputs.model!;
    assert.deepEqual(m.settings, { pooling: 'max', normalize: true, maxLength: 32, queryPrefix: 'query: ', documentPrefix: 'passage: ', similarity: 'cosine' });
    assert.equal(m.sources.pooling, 'irw-model.json pooling');
    assert.equal(m.model.sha256, createHash('sha256').update(readFileSync(join(st.dir, 'model.onnx'))).digest('hex'));
    assert.deepEqual(m.tokenizer.map((t) => t.path.split('/').pop()), ['tokenizer.json', 'vocab.txt', 'tokenizer_config.json']);
    assert.equal(sidecar.provenance!.command, 'irw run --retriever dense');
    assert.equal(sidecar.provenance!.inputs.corpus!.sha256, createHash('sha256').update(readFileSync(join(ds.dir, 'corpus.jsonl'))).digest('hex'));
    const ir = JSON.parse(readFileSync(`${out}.json`, 'utf8')).ir_metadata;
    assert.equal(ir.method.retrieval[0].pooling, 'max');
    assert.match(ir.platform.software.libraries.javascript.join(' '), /onnxruntime-node==/);
  });
});
