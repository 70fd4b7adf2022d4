// The views' scores with the measures of the setting irWorkbench.evaluation.measures, named as the field names
// them (names.ts) or as trec_eval does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../src/core/eval';
import { scoreRun, sessionMeasures } from '../../../../src/core/split/scores';
import { Qrels } from '../../../../src/core/formats/qrels';
import { Run } from '../../../../src/core/formats/run';

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
