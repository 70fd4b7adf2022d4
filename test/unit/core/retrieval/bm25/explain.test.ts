import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRun } from '../../../../../src/core/formats/run';
import { readSidecar } from '../../../../../src/core/provenance/record';
import { explainBm25, explainDocs } from '../../../../../src/core/retrieval/bm25/explain';
import { IndexBuilder } from '../../../../../src/core/retrieval/bm25/index';
import { Bm25Ranker } from '../../../../../src/core/retrieval/bm25/ranker';
import { runBm25, type Bm25RunRequest } from '../../../../../src/core/retrieval/bm25/run';
import { bm25Settings, LoadedIndexes, openBm25Run } from '../../../../../src/core/retrieval/bm25/runContext';
import { createAnalyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import { docNumbers } from '../../../../../src/core/retrieval/bm25/explain';
import { DATASETS, needsShared } from '../../../support/paths';

const f = Math.fround;

describe('BM25 explanations sum to the run file, to the printed digits', { skip: needsShared('datasets/scifact', 'datasets/nfcorpus') }, () => {
  let dir: string;
  const indexes = new LoadedIndexes(2);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-explain-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // threads 2: a run searched on two threads is explained by the one ranking path as well. `depth`: the documents
  // explained per query (all 1,000 took ~45 s more of the suite for the three cases, and ~7 s for SciFact on two
  // threads; every rank of a run is checked by NFCorpus's plain case).
  const CASES: { dataset: string; fields: Bm25RunRequest['fields']; rm3: Bm25RunRequest['rm3']; threads?: number; depth?: number }[] = [
    { dataset: 'scifact', fields: 'flat', rm3: null, threads: 2, depth: 300 },
    { dataset: 'scifact', fields: 'flat', rm3: { fbTerms: 10, fbDocs: 10, originalQueryWeight: 0.5 }, depth: 100 },
    { dataset: 'scifact', fields: 'multifield', rm3: null, depth: 100 },
    { dataset: 'nfcorpus', fields: 'flat', rm3: null },
    { dataset: 'nfcorpus', fields: 'flat', rm3: { fbTerms: 10, fbDocs: 10, originalQueryWeight: 0.5 }, depth: 100 },
  ];
  for (const c of CASES) {
    it(`${c.dataset} ${c.fields}${c.rm3 ? ' RM3' : ''}${c.threads ? `, ${c.threads} threads` : ''}: ${c.depth ? `the top ${c.depth}` : 'every document'} of every query`, async () => {
      const out = join(dir, `${c.dataset}-${c.fields}-${c.rm3 ? 'rm3' : 'plain'}.trec`);
      await runBm25({ dataset: join(DATASETS, c.dataset), split: 'test', k1: 0.9, b: 0.4, fields: c.fields, topK: 1000, removeQuery: true, rm3: c.rm3, queryWeights: null, cacheDir: join(dir, 'cache'), out, ...(c.threads ? { threads: c.threads } : {}) });
      const run = readRun(out);
      // The index the run saved in its cache is the one explained (read back, as irw explain --cache does).
      const settings = bm25Settings(readSidecar(out)!.settings, `${out}.json`);
      const ctx = await openBm25Run(settings, indexes);
      let docs = 0;
      let ties = 0;
      for (const qid of run.qids) {
        const ranking = run.ranking(qid)!;
        const block = new Map<number, [number, number]>();
        ranking.scores.forEach((s, j) => block.set(s, [block.get(s)?.[0] ?? j + 1, j + 1]));
        const all = explainDocs(ctx.ranker, ctx.docNumbers, qid, ctx.query(qid)!, ranking.docs.slice(0, c.depth));
        all.forEach((e, i) => {
          // The terms' contributions, summed as Lucene sums them (per field in double, rounded to float), are the score.
          let total = 0;
          for (const fs of e.fields) {
            const sum = e.terms.filter((t) => t.field === fs).reduce((s, t) => s + t.score, 0);
            total += e.fields.length === 1 ? sum : f(sum);
          }
          assert.equal(f(total), e.score, `${qid} ${e.docId}: terms sum to ${f(total)}, score ${e.score}`);
          assert.equal(Number(e.printed), ranking.scores[i], `${qid} ${e.docId}: explanation prints ${e.printed}, the run file has ${ranking.scores[i]}`);
          // The file's order is trec_eval's: where 6 decimals print two scores alike, ties go by document id.
          const [first, last] = block.get(ranking.scores[i])!;
          assert.ok(e.rank! >= first && e.rank! <= last, `${qid} ${e.docId}: rank ${e.rank}, the run file's ${i + 1}`);
          if (c.rm3) {
            assert.ok(e.rm3 && e.rm3.feedbackDocs.length >= 1 && e.rm3.feedbackDocs.length <= 10, 'RM3 feedback documents given');
            assert.ok(e.rm3.model.length > 0 && e.query.length >= e.rm3.original.length, 'RM3 expansion terms given');
          }
          if (e.ties > 0) ties++;
        });
        docs += all.length;
      }
      assert.equal(docs, c.depth ? run.qids.reduce((n, q) => n + Math.min(c.depth!, run.ranking(q)!.docs.length), 0) : run.numLines, 'every line of the run explained');
      assert.ok(ties > 0, 'some explanations go through the tie adjustment');
    });
  }
});

describe('BM25 explanation of one document', () => {
  it("gives Lucene's factors: idf, tf, dl, avgdl, weight and contribution, and 0 for a term the document lacks", async () => {
    const analyzer = await createAnalyzer();
    const b = new IndexBuilder(analyzer, 'flat');
    b.add('d1', '', 'cats chase mice and cats sleep');
    b.add('d2', '', 'dogs chase cats');
    b.add('d3', '', 'birds sing');
    const index = b.finish();
    const ranker = new Bm25Ranker(index, { k1: 0.9, b: 0.4, rm3: null }, 10, false);
    const e = explainBm25(ranker, docNumbers(index), 'q', new Map([['cat', 1], ['sleep', 2], ['unicorn', 1]]), 'd2');
    assert.deepEqual(e.unknownTerms, ['unicorn']);
    const cat = e.terms.find((t) => t.term === 'cat')!;
    assert.equal(cat.tf, 1);
    assert.equal(cat.df, 2);
    assert.equal(cat.docCount, 3);
    assert.ok(Math.abs(cat.idf - Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))) < 1e-6);
    assert.equal(cat.dl, 3);
    assert.ok(Math.abs(cat.avgdl - (5 + 3 + 2) / 3) < 1e-6);
    const k1 = 0.9;
    const bb = 0.4;
    assert.ok(Math.abs(cat.tfNorm - 1 / (1 + k1 * (1 - bb + (bb * 3) / cat.avgdl))) < 1e-12);
    assert.ok(Math.abs(cat.score - cat.weight * cat.tfNorm) < 1e-5, 'contribution = weight x saturated tf');
    const sleep = e.terms.find((t) => t.term === 'sleep')!;
    assert.equal(sleep.tf, 0);
    assert.equal(sleep.score, 0);
    assert.equal(sleep.queryWeight, 2);
    assert.equal(e.score, cat.score);
    assert.equal(e.rank, 2);
    assert.equal(e.printed, e.final!.toFixed(6));
  });
});
