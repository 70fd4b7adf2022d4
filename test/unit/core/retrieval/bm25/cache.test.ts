import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnalyzer, type Analyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import { IndexBuilder, type Bm25Index } from '../../../../../src/core/retrieval/bm25/index';
import { sha256File } from '../../../../../src/core/fileHash';
import { cacheFile, cacheKey, loadIndex, saveIndex } from '../../../../../src/core/retrieval/bm25/cache';
import { runBm25, type Bm25RunRequest } from '../../../../../src/core/retrieval/bm25/run';

const DOCS: [string, string, string][] = [
  ['d1', 'Red apple', 'an apple a day keeps the doctor away'],
  ['d2', '', 'green pear and apple pie'],
  ['d3', 'Pears', 'pear pear pear'],
  ['d4', 'nothing', ''],
];

function build(an: Analyzer, mode: 'flat' | 'multifield' = 'flat'): Bm25Index {
  const b = new IndexBuilder(an, mode);
  for (const [id, title, text] of DOCS) b.add(id, title, text);
  return b.finish();
}

describe('index cache: read in chunks, never whole (files over 2 GiB load)', () => {
  let dir: string;
  let an: Analyzer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-chunks-'));
    an = await createAnalyzer();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('any chunk size loads the same index; a flipped byte is caught whatever the chunk size', () => {
    const index = build(an, 'multifield');
    const key = cacheKey('0'.repeat(64), an.id, 'multifield');
    const file = cacheFile(dir, key);
    saveIndex(file, key, index);
    for (const chunk of [1, 3, 64, 1 << 26]) assert.deepEqual(loadIndex(file, key, chunk), index, `chunk ${chunk}`);
    const bytes = readFileSync(file);
    for (const at of [20, bytes.length >> 1, bytes.length - 33]) {
      const copy = Buffer.from(bytes);
      copy[at] ^= 0x10;
      writeFileSync(file, copy);
      for (const chunk of [1, 5, 1 << 26]) assert.equal(loadIndex(file, key, chunk), 'corrupt', `byte ${at}, chunk ${chunk}`);
    }
  });
});

describe('index cache: a file that checks out but does not make sense is rebuilt', () => {
  let dir: string;
  let an: Analyzer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-tamper-'));
    an = await createAnalyzer();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Each tampering is written by saveIndex, so the file carries a valid checksum: only the content is wrong.
  const tamperings: [string, (ix: Bm25Index) => void][] = [
    ['a document number past the last document', (ix) => (ix.fieldIndexes[0].docs[0] = 4)],
    ['a huge document number', (ix) => (ix.fieldIndexes[0].docs[1] = 0xffffffff)],
    ['postings out of order', (ix) => {
      const f = ix.fieldIndexes[1]; // text: "appl" is in d1 and d2
      const p = f.offsets[f.termIds.get('appl')!];
      assert.ok(f.offsets[f.termIds.get('appl')! + 1] - p >= 2);
      [f.docs[p], f.docs[p + 1]] = [f.docs[p + 1], f.docs[p]];
    }],
    ['a length norm that disagrees with the postings', (ix) => (ix.fieldIndexes[0].norms[2] = 200)],
    ['a frequency of zero', (ix) => (ix.fieldIndexes[0].tfs[0] = 0)],
    ['a total term count that disagrees', (ix) => (ix.fieldIndexes[0].sumTotalTermFreq += 1)],
    ['a document count that disagrees', (ix) => (ix.fieldIndexes[0].docCount = 2)],
    ['offsets that do not tile the postings', (ix) => (ix.fieldIndexes[0].offsets[1] = ix.fieldIndexes[0].docs.length + 5)],
    ['an id rank out of range', (ix) => (ix.idRank[0] = 7)],
    ['id ranks that do not sort the ids', (ix) => ([ix.idRank[0], ix.idRank[1]] = [ix.idRank[1], ix.idRank[0]])],
    ['a second field with a bad document number', (ix) => (ix.fieldIndexes[1].docs[0] = 9)],
  ];

  for (const [what, tamper] of tamperings) {
    it(`refuses ${what}`, () => {
      const index = build(an, 'multifield');
      const key = cacheKey('0'.repeat(64), an.id, 'multifield');
      const file = cacheFile(join(dir, what.replace(/\W+/g, '-')), key);
      saveIndex(file, key, index);
      assert.notEqual(typeof loadIndex(file, key), 'string', 'the untampered file loads');
      tamper(index);
      saveIndex(file, key, index);
      assert.equal(loadIndex(file, key), 'corrupt');
    });
  }

  it('a run over a tampered cache rebuilds it and writes the same run as without a cache', async () => {
    const ds = join(dir, 'ds');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), DOCS.map(([id, title, text]) => JSON.stringify({ _id: id, title, text })).join('\n') + '\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "apple pear"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    const req = (out: string, cacheDir: string | null): Bm25RunRequest => ({
      dataset: ds, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir, out: join(dir, out),
    });
    await runBm25(req('plain.trec', null));
    const cache = join(dir, 'run-cache');
    const r1 = await runBm25(req('r1.trec', cache));
    assert.equal(r1.index, 'built');
    // Rewrite the cached index with a document number past the end, under a valid checksum.
    const key = cacheKey(await sha256File(join(ds, 'corpus.jsonl')), an.id, 'flat');
    assert.equal(cacheFile(cache, key), r1.cacheFile);
    const index = build(an);
    index.fieldIndexes[0].docs[index.fieldIndexes[0].docs.length - 1] = 99;
    saveIndex(r1.cacheFile!, key, index);
    const r2 = await runBm25(req('r2.trec', cache));
    assert.equal(r2.index, 'built');
    assert.equal(r2.cacheRebuilt, 'corrupt');
    assert.equal(readFileSync(join(dir, 'r2.trec'), 'utf8'), readFileSync(join(dir, 'plain.trec'), 'utf8'));
    const r3 = await runBm25(req('r3.trec', cache));
    assert.equal(r3.index, 'cache', 'the rebuilt index was cached again');
  });
});

describe('index cache: a cache folder that cannot be written costs the cache, not the run', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-bm25-unwritable-'));
    const ds = join(dir, 'ds');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), DOCS.map(([id, title, text]) => JSON.stringify({ _id: id, title, text })).join('\n') + '\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "apple pear"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
  });
  after(() => {
    try {
      chmodSync(join(dir, 'readonly'), 0o755);
    } catch {
      // not created
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const req = (out: string, cacheDir: string | null): Bm25RunRequest => ({
    dataset: join(dir, 'ds'), split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir, out: join(dir, out),
  });

  it('a file where the cache folder should be', async () => {
    await runBm25(req('plain.trec', null));
    writeFileSync(join(dir, 'not-a-folder'), 'x');
    const r = await runBm25(req('file.trec', join(dir, 'not-a-folder')));
    assert.equal(r.index, 'built');
    assert.equal(r.cacheFile, null);
    assert.match(r.cacheWarning ?? '', /could not be cached in .*not-a-folder.*the run is written/);
    assert.equal(readFileSync(join(dir, 'file.trec'), 'utf8'), readFileSync(join(dir, 'plain.trec'), 'utf8'));
  });

  it('a read-only cache folder', async (t) => {
    if (process.getuid?.() === 0) {
      // root writes through permissions: simulate the failure with a folder under a file instead.
      const r = await runBm25(req('ro.trec', join(dir, 'plain.trec', 'cache')));
      assert.match(r.cacheWarning ?? '', /could not be cached/);
      assert.ok(existsSync(join(dir, 'ro.trec')));
      t.diagnostic('running as root: read-only permissions do not apply, tested a path under a file');
      return;
    }
    const ro = join(dir, 'readonly');
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    const r = await runBm25(req('ro.trec', ro));
    assert.match(r.cacheWarning ?? '', /could not be cached/);
    assert.ok(existsSync(join(dir, 'ro.trec')));
    assert.deepEqual(readdirSync(ro), [], 'no partial cache file left');
  });

  it('a writable cache gives no warning', async () => {
    const r = await runBm25(req('ok.trec', join(dir, 'ok-cache')));
    assert.equal(r.cacheWarning, null);
    assert.ok(r.cacheFile && existsSync(r.cacheFile));
  });
});
