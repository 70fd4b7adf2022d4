// The split state on the real SciFact data and runs in ../shared: judgements move the annotated figures only
// and re-score in place what a full evaluation gives; documents come from the corpus; runs are named as the tree
// names them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countWords } from '../../../../src/core/formats/text';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import { topDocs } from '../../../../src/core/split/rankings';
import { RESULT_MEASURES, scoreRun } from '../../../../src/core/split/scores';
import type { ResultsModel } from '../../../../src/protocol/webview';
import { needsShared, SHARED } from '../../support/paths';
import { diffModel } from '../../../../src/core/split/diff';
import { holeRows } from '../../../../src/core/split/holes';
import { pool as splitPool, userPool, userPoolHead } from '../../../../src/core/split/pool';
import { resultsModel } from '../../../../src/core/split/results';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
const DENSE = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const TFIDF = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');
const col = (key: string) => RESULT_MEASURES.findIndex((m) => m.key === key);

test('a judgement of a hole changes the annotated figures, never the original ones', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  await addRunFiles(s, [BM25, DENSE]);
  const before = resultsModel(s, BM25, { skipped: [], untrusted: false });
  const pool = splitPool(s, [BM25, DENSE], 10);
  assert.ok(pool.length > 1000, `pool ${pool.length}`);
  assert.equal(new Set(pool.map((p) => `${p.queryId}\t${p.docId}`)).size, pool.length, 'deduplicated');
  const hole = pool.find((p) => topDocs(s.run(DENSE), p.queryId, 1)[0]?.docId === p.docId)!;
  s.judge(hole.queryId, hole.docId, 1);
  const after = resultsModel(s, BM25, { skipped: [], untrusted: false });
  const dense = (m: ResultsModel) => m.rows.find((r) => r.key === DENSE)!;
  assert.deepEqual(dense(after).means, dense(before).means);
  assert.ok(dense(after).annotated![col('ndcg_cut_10')] > dense(before).means[col('ndcg_cut_10')]);
  assert.ok(dense(after).annotated![col('judged_10')] > dense(before).means[col('judged_10')]);
  assert.equal(splitPool(s, [BM25, DENSE], 10).length, pool.length - 1);
  assert.equal(splitPool(s, [BM25, DENSE], 10, new Set([`${hole.queryId}\t${hole.docId}`])).length, pool.length);
  // A negative grade restores "unjudged" (trec_eval: pooled but not judged): the figures come back.
  const counted = s.judgementCount;
  s.judge(hole.queryId, hole.docId, -1);
  assert.equal(s.grade(hole.queryId, hole.docId), null);
  assert.equal(s.judgementCount, counted - 1, 'a pair undone back to unjudged is not one of your judgements');
  assert.deepEqual(dense(resultsModel(s, BM25, { skipped: [], untrusted: false })).annotated, dense(before).means);
  // The file as now on disk replaces the held judgements; the same judgements again change nothing.
  assert.equal(s.replaceJudgements([{ ...hole, grade: -1 }]), false);
  assert.equal(s.replaceJudgements([{ ...hole, grade: 1 }]), true);
  assert.equal(s.grade(hole.queryId, hole.docId), 1);
  assert.equal(s.replaceJudgements([]), true);
  assert.equal(s.judgementCount, 0);
  // Pool order does not depend on the order of the runs (nor on their ranks).
  assert.deepEqual(splitPool(s, [DENSE, BM25], 10), splitPool(s, [BM25, DENSE], 10));
  const rows = holeRows(s);
  assert.ok(rows.every((r) => r.holeQuery >= r.holeBeir), 'unjudged-for-the-query includes judged-for-no-query');
  // rank_bm25 returns 100 documents for every test query: unj.10 is exactly 1 - judged.10 there.
  const bm25 = rows.find((r) => r.key === BM25)!;
  assert.ok(Math.abs(bm25.holeQuery - (1 - before.rows.find((r) => r.key === BM25)!.means[col('judged_10')])) < 1e-12);
});


test('a judgement re-scores in place exactly what a full evaluation on the merged qrels gives', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test', measures: ['ndcg_cut.20', 'gm_map', 'num_rel', 'num_ret'] });
  await addRunFiles(s, [BM25, DENSE, TFIDF]);
  const pool = splitPool(s, [BM25, DENSE, TFIDF], 10);
  // Holes judged relevant and non-relevant, a hole that is top-ranked for several queries (hole.10 of other
  // queries moves), a judgement undone to unjudged, and one overriding an original grade.
  const shared = pool.find((p) => [BM25, DENSE].every((k) => topDocs(s.run(k), p.queryId, 10).some((d) => d.docId === p.docId)))!;
  const original = s.qrels('annotated').queryIds().map((q) => ({ queryId: q, docId: s.qrels('annotated').judgements(q)!.docs[0] }))[3];
  const steps: [string, string, number][] = [
    [pool[0].queryId, pool[0].docId, 2],
    [pool[1].queryId, pool[1].docId, 0],
    [shared.queryId, shared.docId, 1],
    [pool[0].queryId, pool[0].docId, -1],
    [original.queryId, original.docId, 0],
    [shared.queryId, shared.docId, -1],
  ];
  userPool(s, [BM25, DENSE, TFIDF], 10); // kept between judgements from here on
  diffModel(s, BM25, DENSE, { pending: true });
  for (const [q, d, g] of steps) {
    s.judge(q, d, g);
    const recomputed = splitPool(s, [BM25, DENSE, TFIDF], 10, s.userJudged());
    assert.deepEqual(userPool(s, [BM25, DENSE, TFIDF], 10), recomputed, 'the kept pool is the pool recomputed');
    const head = userPoolHead(s, [BM25, DENSE, TFIDF], 10, 25);
    assert.deepEqual(head, { items: recomputed.slice(0, 25), size: recomputed.length, unjudged: recomputed.filter((p) => s.grade(p.queryId, p.docId) === null).length });
    const diff = diffModel(s, BM25, DENSE, { pending: true });
    const hole = (k: string, q: string) => topDocs(s.run(k), q, 10).some((x) => s.grade(q, x.docId) === null);
    assert.deepEqual(diff.holes, diff.queries.map((q) => (hole(BM25, q) || hole(DENSE, q) ? 1 : 0)), 'the kept hole marks are the marks recomputed');
    // The diff's order (sorted from the last one) is the order of the deltas recomputed.
    const [sa, sb] = [s.scores(BM25, 'annotated'), s.scores(DENSE, 'annotated')];
    const expected = sa.queries
      .filter((qid) => sb.queries.includes(qid))
      .map((qid) => ({ qid, delta: sb.columns[0][sb.queries.indexOf(qid)] - sa.columns[0][sa.queries.indexOf(qid)] }))
      .sort((x, y) => y.delta - x.delta || (x.qid < y.qid ? -1 : 1));
    assert.deepEqual([diff.queries, diff.deltas], [expected.map((e) => e.qid), expected.map((e) => e.delta)], 'the diff follows the judgement');
    for (const k of [BM25, DENSE, TFIDF]) {
      const inPlace = s.scores(k, 'annotated');
      const full = scoreRun(s.qrels('annotated'), s.run(k), { complete: true, relevanceLevel: 1, measures: s.measures });
      assert.deepEqual(inPlace.names, full.names);
      assert.deepEqual(inPlace.queries, full.queries);
      inPlace.columns.forEach((c, i) => assert.deepEqual([...c], [...full.columns[i]], `${k} ${inPlace.names[i]} after ${q} ${d} ${g}`));
      assert.deepEqual(inPlace.means, full.means);
    }
  }
});


test('documents come from the corpus at the offsets the index holds, with their length in words', { skip: needsShared('datasets/scifact') }, async () => {
  const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
  const lines = new Map(
    readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { _id: string; title: string; text: string })
      .map((d) => [d._id, d]),
  );
  for (const id of ['4983', '31715818', '14717500']) {
    const d = lines.get(id)!;
    assert.deepEqual(await s.corpus.read(id), { id, title: d.title, text: d.text });
    assert.equal(s.corpus.words(id), countWords(d.title) + countWords(d.text));
  }
  assert.equal(s.corpus.words('no such document'), -1);
  assert.equal(await s.corpus.read('no such document'), null);
});

describe('run labels', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  test('two run files with the same name in different folders get their folder in the label', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-labels-'));
    for (const sub of ['a', 'b']) {
      mkdirSync(join(dir, sub));
      copyFileSync(BM25, join(dir, sub, 'bm25.trec'));
    }
    const s = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    assert.deepEqual(await addRunFiles(s, [join(dir, 'a', 'bm25.trec'), join(dir, 'b', 'bm25.trec')]), []);
    // The one naming rule (runLabels, as the tree): the stem, plus as many folders as it takes to tell twins apart.
    assert.deepEqual(s.runRefs().map((r) => r.label), ['a/bm25', 'b/bm25']);
  });
});
