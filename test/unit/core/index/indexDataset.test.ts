import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Database } from 'sql.js';
import { AnnotationWriter, annotationPaths } from '../../../../src/core/judgements/annotations';
import { openDatabase } from '../../../../src/core/index/database';
import { discover } from '../../../../src/core/index/discovery';
import { indexWorkspace } from '../../../../src/core/engine/indexer';
import { datasetTree, readDocument, storedProblems } from '../../../../src/core/index/queries';
import { GZ_BEIR_DOCS, MSMARCO_DOCS, TREC_DOC_COUNT, trecDoc, writeGzBeir, writeMsmarcoStyle, writeTrecStyle, writeTrecStyleCopy } from '../../../helpers/trecStyleDatasets';
import { goldenValues, needsShared, SCIFACT, SCIFACT_RUNS, SHARED } from '../../../helpers/storeFixtures';

const MEASURES = ['ndcg_cut.10'];

/** The store on MS MARCO- and TREC-style folders and a gzipped BEIR one: what `irw run --dataset` reads, the editor indexes. */
describe('store: datasets that are not plain BEIR folders', () => {
  let root: string;
  let msmarco: string;
  let trec: string;
  let gz: string;
  let db: Database;
  const index = () => indexWorkspace(db, [root], { runsFolder: 'runs', measures: MEASURES });
  const node = (dir: string) => datasetTree(db).find((d) => d.dir === dir)!;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'irw-store-trec-'));
    msmarco = join(root, 'msmarco-passage');
    trec = join(root, 'trec', 'robust-like');
    gz = join(root, 'beir-gz');
    writeMsmarcoStyle(msmarco);
    writeTrecStyle(trec);
    writeGzBeir(gz);
    mkdirSync(join(msmarco, 'runs'));
    writeFileSync(join(msmarco, 'runs', 'bm25.trec'), ['100 Q0 1 1 3.0 bm25', '100 Q0 0 2 2.0 bm25', '101 Q0 4 1 5.0 bm25', '102 Q0 4 1 1.0 bm25', '102 Q0 3 2 0.5 bm25', ''].join('\n'));
    mkdirSync(join(root, 'notes'));
    writeFileSync(join(root, 'notes', 'docs.tsv'), 'a\tb\n'); // a TSV with no split beside it is no dataset
    db = (await openDatabase(undefined)).db;
    await index();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('discovers each folder with the splits `irw` finds (queries and qrels both present), queries files without repeats', () => {
    const found = discover([root], { runsFolder: 'runs' }).datasets;
    assert.deepEqual(
      found.map((d) => [d.name, d.corpus.slice(d.dir.length + 1), d.queries.map((q) => q.slice(d.dir.length + 1)), d.splits.map((s) => [s.split, s.qrels?.slice(d.dir.length + 1)])]),
      [
        ['beir-gz', 'corpus.jsonl.gz', ['queries.jsonl.gz'], [['test', 'qrels/test.tsv']]],
        ['msmarco-passage', 'collection.tsv', ['queries.dev.tsv', 'queries.dev.small.tsv'], [['dev', 'qrels.dev.tsv'], ['dev.small', 'qrels.dev.small.tsv']]],
        ['robust-like', 'docs.tsv.gz', ['topics.dl19.txt', 'topics.dl20.xml'], [['dl19', 'qrels.dl19.txt'], ['dl20', 'qrels/dl20.txt']]],
      ],
    );
    // The user's judgements of any layout go to qrels/<split>.annotations.tsv.
    assert.equal(found[1].splits[0].annotations, join(msmarco, 'qrels', 'dev.annotations.tsv'));
  });

  it('indexes them into the tree: documents, queries (one per id across splits), TREC qrels and the runs evaluated', () => {
    assert.deepEqual(storedProblems(db), []);
    const summary = datasetTree(db).map((d) => [d.name, d.docCount, d.queryCount, d.splits.map((s) => [s.split, s.qrelsQueries, s.qrelsCount])]);
    assert.deepEqual(summary, [
      ['beir-gz', 3, 2, [['test', 2, 2]]],
      ['msmarco-passage', 6, 3, [['dev', 3, 4], ['dev.small', 2, 2]]],
      ['robust-like', TREC_DOC_COUNT, 3, [['dl19', 2, 5], ['dl20', 1, 1]]],
    ]);
    // nDCG@10 by hand: q100 ranks 1 (rel) then 0 (not) of {1, 2}: 1 / (1 + 1/log2 3); q101 1; q102 finds 3 at rank 2: 1/log2 3.
    const dev = node(msmarco).splits.find((s) => s.split === 'dev')!;
    const small = node(msmarco).splits.find((s) => s.split === 'dev.small')!;
    const expected = (1 / (1 + 1 / Math.log2(3)) + 1 + 1 / Math.log2(3)) / 3;
    assert.ok(Math.abs(dev.runs[0].means.ndcg_cut_10 - expected) < 1e-9, String(dev.runs[0].means.ndcg_cut_10));
    assert.equal(small.runs[0].means.ndcg_cut_10, 1);
  });

  it('reads a document back by offset from a TSV collection, a gzipped TSV collection and gzipped JSONL', async () => {
    for (const [id, text] of [MSMARCO_DOCS[0], MSMARCO_DOCS[5]]) assert.deepEqual(await readDocument(db, msmarco, id), { id, title: '', text });
    // D2999 is the last line, well past the first chunk gunzip hands out.
    for (const i of [0, 1234, TREC_DOC_COUNT - 1]) {
      const [id, , title, text] = trecDoc(i);
      assert.deepEqual(await readDocument(db, trec, id), { id, title, text });
    }
    for (const d of GZ_BEIR_DOCS) assert.deepEqual(await readDocument(db, gz, d._id), { id: d._id, title: d.title, text: d.text });
    assert.equal(await readDocument(db, msmarco, 'no-such-doc'), null);
  });

  it('re-reads nothing when nothing changed', async () => {
    assert.deepEqual((await index()).reindexed, []);
  });

  it("keeps the user's judgements of such a split in qrels/<split>.annotations.tsv, not taken for a split of its own", async () => {
    const { writer } = AnnotationWriter.open(msmarco, 'dev');
    assert.equal(writer.path, annotationPaths(msmarco, 'dev').tsv);
    writer.judge({ queryId: '102', docId: '5', grade: 1 });
    writer.close();
    const summary = await index();
    assert.deepEqual(summary.reindexed, [annotationPaths(msmarco, 'dev').tsv]);
    assert.deepEqual(node(msmarco).splits.map((s) => [s.split, s.judgementCount]), [['dev', 1], ['dev.small', 0]]);
  });

  it('a changed collection is re-read; a document read against a stale index says to re-index', async () => {
    writeFileSync(join(msmarco, 'collection.tsv'), `x\t${'padding '.repeat(20)}\n${MSMARCO_DOCS.map(([id, text]) => `${id}\t${text}\n`).join('')}`);
    await assert.rejects(readDocument(db, msmarco, '3'), /collection\.tsv changed since it was indexed: re-index the workspace/);
    await index();
    assert.equal(node(msmarco).docCount, 7);
    assert.deepEqual(await readDocument(db, msmarco, '3'), { id: '3', title: '', text: MSMARCO_DOCS[3][1] });
  });

  it('a split whose queries file goes is dropped and the queries re-read; a query id with two texts is reported', async () => {
    rmSync(join(msmarco, 'queries.dev.small.tsv'));
    const summary = await index();
    assert.deepEqual(node(msmarco).splits.map((s) => s.split), ['dev']);
    assert.ok(summary.reindexed.includes(join(msmarco, 'queries.dev.tsv')), 'the queries are read again without the gone file');
    writeFileSync(join(msmarco, 'queries.train.tsv'), '100\tanother text for 100\n');
    writeFileSync(join(msmarco, 'qrels.train.tsv'), '100\t0\t1\t1\n');
    await index();
    assert.deepEqual(node(msmarco).splits.map((s) => s.split), ['dev', 'train']);
    assert.equal(node(msmarco).queryCount, 3);
    const warned = storedProblems(db).filter((p) => p.file === join(msmarco, 'queries.train.tsv'));
    assert.equal(warned.length, 1);
    assert.match(warned[0].message, /query 100 is also in .*queries\.dev\.tsv with another text/);
    assert.ok(existsSync(join(msmarco, 'qrels', 'dev.annotations.tsv')));
  });
});

describe('store: SciFact (../shared) as an MS MARCO/TREC-style folder with a gzipped collection', { skip: needsShared('datasets/scifact', 'runs', 'golden') }, () => {
  let root: string;
  let dir: string;
  let db: Database;
  const RUN = 'bm25okapi.knarfthekant.trec';
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'irw-store-scifact-tsv-'));
    dir = join(root, 'scifact-tsv');
    writeTrecStyleCopy(SCIFACT, dir);
    writeFileSync(join(dir, 'collection.tsv.gz'), gzipSync(readFileSync(join(dir, 'collection.tsv'))));
    rmSync(join(dir, 'collection.tsv'));
    mkdirSync(join(dir, 'runs'));
    cpSync(join(SCIFACT_RUNS, RUN), join(dir, 'runs', RUN));
    db = (await openDatabase(undefined)).db;
    await indexWorkspace(db, [root], { runsFolder: 'runs', measures: ['ndcg_cut.10', 'recall.100'] });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("gives the run trec_eval's figures on both splits (TSV queries and SGML topics) and reads documents from the .gz", async () => {
    assert.deepEqual(storedProblems(db), []);
    const [d] = datasetTree(db);
    assert.deepEqual([d.name, d.docCount, d.queryCount], ['scifact-tsv', 5183, 300]);
    const golden = goldenValues(readFileSync(join(SHARED, 'golden', 'scifact', RUN.replace(/\.trec$/, '.c.q.txt')), 'utf8'));
    assert.deepEqual(d.splits.map((s) => s.split), ['test', 'test-topics']);
    for (const s of d.splits) {
      assert.equal(s.runs.length, 1);
      assert.ok(Math.abs(s.runs[0].means.ndcg_cut_10 - golden.get('ndcg_cut_10\tall')!) < 5e-5, `${s.split}: ${s.runs[0].means.ndcg_cut_10}`);
      assert.ok(Math.abs(s.runs[0].means.recall_100 - golden.get('recall_100\tall')!) < 5e-5);
    }
    const lines = readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8').split('\n');
    const flat = (t: string) => t.replace(/[\t\r\n]+/g, ' ');
    for (const i of [0, 2600, 5182]) {
      const e = JSON.parse(lines[i]) as { _id: string; title: string; text: string };
      assert.deepEqual(await readDocument(db, dir, e._id), { id: e._id, title: flat(e.title), text: flat(e.text) });
    }
  });
});
