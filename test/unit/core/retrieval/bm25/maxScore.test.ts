import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createAnalyzer, type Analyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import { IndexBuilder, type Bm25Index } from '../../../../../src/core/retrieval/bm25/index';
import { buildIndex } from '../../../../../src/core/retrieval/bm25/run';
import { Searcher, bagOfWords, type Hits, type QueryVector } from '../../../../../src/core/retrieval/bm25/search';
import { readQueries } from '../../../../../src/core/formats/beir';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { uniform } from '../../../../../src/core/random';

import { DATASETS, needsShared } from '../../../support/paths';

/** Asserts that pruned, exhaustive and default search give the same documents and score bits, in the same order. */
function same(searcher: Searcher, q: QueryVector, k: number, what: string): Hits {
  const full = searcher.searchExhaustive(q, k);
  check(searcher.search(q, k), full, `${what} (default)`);
  return check(searcher.searchPruned(q, k), full, what);
}

function check(pruned: Hits, full: Hits, what: string): Hits {
  assert.equal(pruned.docs.length, full.docs.length, `${what}: hit count`);
  for (let i = 0; i < full.docs.length; i++) {
    if (pruned.docs[i] !== full.docs[i] || !Object.is(pruned.scores[i], full.scores[i])) {
      assert.fail(`${what}: rank ${i + 1}: pruned ${pruned.docs[i]} ${pruned.scores[i]}, exhaustive ${full.docs[i]} ${full.scores[i]}`);
    }
  }
  return full;
}

describe('MaxScore top-k returns what exhaustive scoring returns', () => {
  let an: Analyzer;
  before(async () => {
    an = await createAnalyzer();
  });

  it('on random corpora full of ties (tiny vocabularies, repeated documents), for k from 1 to past the corpus size', () => {
    let tiesSeen = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rand = uniform(seed);
      const vocab = Array.from({ length: 2 + Math.floor(rand() * 12) }, (_, i) => `w${i}x`);
      const word = () => vocab[Math.floor(rand() ** 2 * vocab.length)];
      const nDocs = 1 + Math.floor(rand() * 300);
      const b = new IndexBuilder(an, 'flat');
      const texts: string[] = [];
      for (let d = 0; d < nDocs; d++) {
        // Every third document repeats an earlier one: equal scores, broken by id.
        const text = d > 0 && d % 3 === 0 ? texts[Math.floor(rand() * d)] : Array.from({ length: Math.floor(rand() * 30) }, word).join(' ');
        texts.push(text);
        b.add(`doc${Math.floor(rand() * 1e6)}-${d}`, '', text);
      }
      const index = b.finish();
      const searcher = new Searcher(index, { k1: 0.5 + rand(), b: rand() });
      for (let qn = 0; qn < 20; qn++) {
        const terms = Array.from({ length: 1 + Math.floor(rand() * 6) }, word);
        const q = qn % 2 === 0 ? bagOfWords(an.analyze(terms.join(' '))) : new Map(an.analyze(terms.join(' ')).map((t) => [t, 0.01 + rand() * 3]));
        for (const k of [1, 2, 5, 10, 50, 1000]) {
          const hits = same(searcher, q, k, `seed ${seed} query ${qn} k ${k}`);
          for (let i = 1; i < hits.scores.length; i++) if (hits.scores[i] === hits.scores[i - 1]) tiesSeen++;
        }
      }
    }
    assert.ok(tiesSeen > 1000, `the corpora must produce ties (saw ${tiesSeen})`);
  });

  it('falls back to exhaustive scoring for weights it cannot bound, and for multifield indexes', () => {
    const b = new IndexBuilder(an, 'multifield');
    for (let d = 0; d < 50; d++) b.add(`d${d}`, d % 2 ? 'apple' : 'pear', `apple ${'pear '.repeat(d % 5)}`);
    const multi = new Searcher(b.finish(), { k1: 0.9, b: 0.4 });
    same(multi, bagOfWords(['appl', 'pear']), 5, 'multifield');
    const flat = new IndexBuilder(an, 'flat');
    for (let d = 0; d < 50; d++) flat.add(`d${d}`, '', `apple ${'pear '.repeat(d % 5)}`);
    const s = new Searcher(flat.finish(), { k1: 0.9, b: 0.4 });
    same(s, new Map([['appl', 1], ['pear', -0.5]]), 5, 'negative weight');
  });

  for (const name of ['scifact', 'nfcorpus'] as const) {
    it(`on ${name}: every test query at top-10 and top-1000`, { skip: needsShared(`datasets/${name}`) }, async () => {
      const dataset = join(DATASETS, name);
      const index: Bm25Index = await buildIndex(join(dataset, 'corpus.jsonl'), an, 'flat');
      const texts = readQueries(join(dataset, 'queries.jsonl'));
      const searcher = new Searcher(index, { k1: 0.9, b: 0.4 });
      for (const qid of readQrels(join(dataset, 'qrels', 'test.tsv')).queryIds()) {
        const q = bagOfWords(an.analyze(texts.get(qid)!.text));
        for (const k of [10, 1000]) same(searcher, q, k, `${name} ${qid} k ${k}`);
      }
    });
  }
});
