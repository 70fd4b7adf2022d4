import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Qrels } from '../../../../src/core/formats/qrels';

test('withJudgements lays judgements over the qrels: the last of a pair wins, new queries and documents join', () => {
  const q = Qrels.fromJudgements([
    { qid: '1', docid: 'a', grade: 1 },
    { qid: '1', docid: 'b', grade: 0 },
    { qid: '2', docid: 'c', grade: 2 },
  ]);
  const m = q.withJudgements([
    { qid: '1', docid: 'b', grade: 2 },
    { qid: '1', docid: 'b', grade: 1 },
    { qid: '1', docid: 'd', grade: -1 },
    { qid: '10', docid: 'e', grade: 0 },
  ]);
  assert.deepEqual([...m.entries()], [
    { qid: '1', docid: 'a', grade: 1 },
    { qid: '1', docid: 'b', grade: 1 },
    { qid: '1', docid: 'd', grade: -1 },
    { qid: '10', docid: 'e', grade: 0 },
    { qid: '2', docid: 'c', grade: 2 },
  ]);
  assert.equal(q.size, 3, 'the qrels it started from are unchanged');
});
