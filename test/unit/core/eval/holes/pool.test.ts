import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareHoles } from '../../../../../src/core/eval/holes';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';

test('a hole pooled from one run is found at every rank of every run, whatever its bytes', () => {
  const qrels = Qrels.fromJudgements([
    { qid: 'q1', docid: 'judged', grade: 1 },
    { qid: 'q1', docid: 'zero', grade: 0 },
  ]);
  // Pool depth 2: a's top 2 pool 'café' and 'x\u00ff'; b pools 'judged' (not a hole) and 'b-only'.
  const a = Run.fromRankings('a', [['q1', ['café', 'x\u00ff', 'judged', 'b-only', 'deep'], [5, 4, 3, 2, 1]]]);
  const b = Run.fromRankings('b', [['q1', ['judged', 'b-only', 'zero', 'x\u00ff', 'café', 'deep'], [6, 5, 4, 3, 2, 1]]]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 2 });
  const [q] = set.queries;
  assert.deepEqual(q.holes, ['café', 'x\u00ff', 'b-only']);
  const hole = (id: string) => q.holes.indexOf(id);
  // a: café, xÿ, judged, b-only (pooled by b, deeper here), deep (in no top 2: not a hole).
  assert.deepEqual([...q.lists[0].holeAt], [hole('café'), hole('x\u00ff'), -1, hole('b-only'), -1]);
  assert.equal(q.lists[0].rels[2], 1);
  // b: judged, b-only, zero (judged 0), xÿ and café deeper, deep.
  assert.deepEqual([...q.lists[1].holeAt], [-1, hole('b-only'), -1, hole('x\u00ff'), hole('café'), -1]);
  assert.equal(q.lists[1].rels[0], 1);
  assert.equal(q.lists[1].rels[2], 0);
});
