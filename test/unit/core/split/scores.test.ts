// The views' scores with the measures of the setting irWorkbench.evaluation.measures, named as the field names
// them (names.ts) or as trec_eval does; coverage measures over the queries a run answers: a run answering half
// the split is not "better judged".
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../src/core/eval';
import { Qrels, readQrels } from '../../../../src/core/formats/qrels';
import { Run, readRun } from '../../../../src/core/formats/run';
import { holeRows } from '../../../../src/core/split/holes';
import { RESULT_MEASURES, scoreRun, sessionMeasures } from '../../../../src/core/split/scores';
import { splitWithRuns } from '../../../helpers/splitState';
import { SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const TFIDF = join(SHARED, 'runs/scifact/vsm-tfidf.titles_fulltext.omar-khattab.trec');
const BM25 = join(SHARED, 'runs/scifact/bm25okapi.knarfthekant.trec');

test('Hole@10 and Judged@10 are over the queries a run answers (trec_eval without -c); the other measures keep -c', async () => {
  const s = await splitWithRuns(SCIFACT, 'test', [TFIDF, BM25]);
  const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
  const scores = s.scores(TFIDF, 'original');
  assert.equal(scores.answered, 153, 'the shared TF-IDF run answers 153 of the 300 test queries');
  assert.equal(scores.queries.length, 300);
  const at = (key: string) => scores.means[RESULT_MEASURES.findIndex((m) => m.key === key)];
  const without = evaluate(qrels, readRun(TFIDF), { measures: ['hole.10', 'judged.10', 'ndcg_cut.10'], complete: false });
  const withC = evaluate(qrels, readRun(TFIDF), { measures: ['hole.10', 'ndcg_cut.10'], complete: true });
  assert.equal(at('hole_10'), without.mean.get('hole_10'));
  assert.equal(at('judged_10'), without.mean.get('judged_10'));
  assert.ok(at('hole_10') > 0.8 && withC.mean.get('hole_10')! < 0.45, `${at('hole_10')} over 153 queries, ${withC.mean.get('hole_10')} with the 147 missing as 0 holes`);
  // Effectiveness stays trec_eval -c: a missing query scores 0.
  assert.equal(at('ndcg_cut_10'), withC.mean.get('ndcg_cut_10'));
  // The Holes panel gives both with the coverage beside them.
  const row = holeRows(s).find((r) => r.key === TFIDF)!;
  assert.deepEqual(row.coverage, { answered: 153, total: 300 });
  assert.equal(row.holeBeir, at('hole_10'));
  // A judgement keeps them over the answered queries.
  const q = s.qrels('original').queryIds().find((id) => s.run(TFIDF).queryIndex(id) >= 0)!;
  const run = s.run(TFIDF);
  const doc = run.docs.string(run.docIds[run.offsets[run.queryIndex(q)]]);
  s.judge(q, doc, 1);
  const annotated = s.scores(TFIDF, 'annotated');
  assert.equal(annotated.answered, 153);
  assert.ok(annotated.means[RESULT_MEASURES.findIndex((m) => m.key === 'hole_10')] > 0.8);
});

const qrels = Qrels.fromJudgements([
  { qid: 'q1', docid: 'a', grade: 2 },
  { qid: 'q1', docid: 'b', grade: 1 },
  { qid: 'q2', docid: 'c', grade: 1 },
  { qid: 'q2', docid: 'd', grade: 2 },
]);
const run = Run.fromRankings('r', [
  ['q1', ['x', 'y', 'z', 'b', 'a'], [5, 4, 3, 2, 1]],
  ['q2', ['d', 'x', 'c'], [3, 2, 1]],
]);

test("the setting's measures may be field names: each a column, trec_eval's where it has one", () => {
  const measures = sessionMeasures(['nDCG@20', 'P(rel=2)@5', 'RR@3', 'ndcg_cut.10', 'nDCG@10']);
  const s = scoreRun(qrels, run, { complete: true, relevanceLevel: 1, measures });
  for (const name of ['ndcg_cut_20', 'P(rel=2)@5', 'RR@3']) assert.ok(s.names.includes(name), `${name} in ${s.names.join(' ')}`);
  assert.equal(s.names.filter((n) => n === 'ndcg_cut_10').length, 1, 'nDCG@10 is the views\' ndcg_cut_10');
  const col = (name: string) => [...s.columns[s.names.indexOf(name)]];
  assert.deepEqual(col('P(rel=2)@5'), [...perQuery(evaluate(qrels, run, { measures: ['P.5'], relevanceLevel: 2, complete: true }), 'P_5').values()]);
  assert.deepEqual(col('RR@3'), [...perQuery(evaluate(qrels, run, { measures: ['recip_rank'], maxRetrieved: 3, complete: true }), 'recip_rank').values()]);
  assert.deepEqual(col('RR@3'), [0, 1]);
  assert.deepEqual(col('recip_rank'), [0.25, 1], 'the views\' recip_rank still sees the whole ranking');
});
