import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readQueries } from '../../../../../src/core/formats/beir';
import { InputError } from '../../../../../src/core/formats/errors';
import { readRun } from '../../../../../src/core/formats/run';
import { readCorpusTexts } from '../../../../../src/core/retrieval/dense/dataset';
import { loadTokenizer } from '../../../../../src/core/retrieval/dense/tokenizer';
import { CrossEncoder } from '../../../../../src/core/retrieval/rerank/crossEncoder';
import { runRerank } from '../../../../../src/core/retrieval/rerank/run';
import { TOKENIZER_DIR } from '../../../../helpers/modelFolders';
import { smallDataset, tinyBiEncoder, tinyCrossEncoder, type Fixture } from '../../../../helpers/neuralFixtures';

const tmp = mkdtempSync(join(tmpdir(), 'irw-rerank-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The generated cross-encoder's logit, by hand: (sum over the pair's tokens of W[id] + T[type]) . head. */
function expectedScore(f: Fixture, query: string, doc: string, maxLength: number): number {
  const { ids, typeIds } = loadTokenizer(TOKENIZER_DIR, maxLength).encode(query, doc);
  const h = f.model.hidden;
  let s = 0;
  ids.forEach((id, j) => {
    for (let k = 0; k < h; k++) s += (f.model.word[id * h + k] + f.model.type[typeIds[j] * h + k]) * f.model.head![k];
  });
  return s;
}

describe('rerank: cross-encoder on a generated ONNX model', () => {
  const ce = tinyCrossEncoder(tmp, 'ce', { maxLength: 16 });

  it('scores each (query, document) pair as [CLS] q [SEP] d [SEP] truncated longest-first', async () => {
    const model = await CrossEncoder.open(ce.dir);
    try {
      const queries = ['what is bm25', 'dense retrieval'];
      const docs = ['BM25 is a ranking function used by search engines to estimate relevance.', 'short', 'Dense retrieval encodes queries and documents as vectors.'];
      const pq = Int32Array.from([0, 0, 0, 1, 1]);
      const pd = Int32Array.from([0, 1, 2, 0, 2]);
      const scores = await model.score(queries, docs, pq, pd, { batchSize: 2 });
      pq.forEach((q, i) => {
        const want = expectedScore(ce, queries[q], docs[pd[i]], 16);
        assert.ok(Math.abs(scores[i] - want) < 1e-3 * Math.max(1, Math.abs(want)), `pair ${i}: ${scores[i]} vs ${want}`);
      });
    } finally {
      await model.release();
    }
  });

  it('a classifier with several logits is rejected, naming the shape found', async () => {
    const two = tinyCrossEncoder(tmp, 'two-labels', {}, { labels: 2 });
    await assert.rejects(
      CrossEncoder.open(two.dir),
      (e: unknown) => e instanceof InputError && /output logits has 2 labels; a re-ranker has one[\s\S]*outputs logits: float32 \[batch_size, 2\]/.test(e.message),
    );
  });

  it('a bi-encoder given as a re-ranker is rejected, naming the logits output it lacks', async () => {
    const bi = tinyBiEncoder(tmp, 'bi', {});
    await assert.rejects(CrossEncoder.open(bi.dir), (e: unknown) => e instanceof InputError && /cross-encoder[\s\S]*no output named logits[\s\S]*found:.*last_hidden_state/.test(e.message));
  });
});

describe('rerank: runs over a BEIR folder (real SciFact text)', () => {
  const ds = smallDataset(tmp);
  const ce = tinyCrossEncoder(tmp, 'ce-run', { maxLength: 48 });
  // A first stage with 12 results for q1..q6 (judged) and one unjudged query, which is not re-ranked.
  const firstStage = join(tmp, 'first.trec');
  const lines: string[] = [];
  for (const q of ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q99']) {
    for (let r = 0; r < 12; r++) lines.push(`${q} Q0 ${ds.ids[(r * 3 + q.length) % ds.ids.length]} ${r + 1} ${100 - r} bm25`);
  }
  writeFileSync(firstStage, lines.join('\n') + '\n');

  it('re-ranks the top N of every judged query by cross-encoder score and drops the rest', async () => {
    const out = join(tmp, 'reranked.trec');
    const r = await runRerank({ dataset: ds.dir, split: 'test', model: ce.dir, firstStage, depth: 5, batchSize: 4, threads: 1, out });
    assert.equal(r.queries, 6);
    assert.equal(r.pairs, 30);
    const run = readRun(out);
    assert.equal(run.tag, 'rerank-ce-run-top5');
    assert.deepEqual(run.qids, ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    const first = readRun(firstStage);
    const queries = readQueries(join(ds.dir, 'queries.jsonl'));
    const corpus = await readCorpusTexts(ds.dir);
    const text = new Map(corpus.ids.map((id, i) => [id, corpus.texts[i]]));
    for (const qid of run.qids) {
      const top5 = first.ranking(qid)!.docs.slice(0, 5);
      const want = top5
        .map((d) => [d, expectedScore(ce, queries.get(qid)!.text, text.get(d)!, 48)] as const)
        .sort((a, b) => b[1] - a[1]);
      assert.deepEqual(run.ranking(qid)!.docs, want.map((w) => w[0]), qid);
    }
  });

  it('a first-stage document missing from the corpus is an input error', async () => {
    const bad = join(tmp, 'bad.trec');
    writeFileSync(bad, 'q1 Q0 no-such-doc 1 5 x\n');
    await assert.rejects(
      runRerank({ dataset: ds.dir, split: 'test', model: ce.dir, firstStage: bad, depth: 5, batchSize: 4, threads: 1, out: join(tmp, 'x.trec') }),
      (e: unknown) => e instanceof InputError && e.code === 'unknown-id' && /no-such-doc/.test(e.message),
    );
  });
});
