// The impact queue follows the judgements (and undos) of the qrels, never names a run, and settles.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toVerdict } from '../../../../src/core/split/holeRanges';
import { ImpactJudging } from '../../../../src/core/split/impact';
import { Qrels } from '../../../../src/core/formats/qrels';
import { Run } from '../../../../src/core/formats/run';


describe('ImpactJudging', () => {
  // a ranks the relevant document first on q1; b puts holes z1 and w1 around it, which could make b better.
  // q2's lists are the same, so its holes cannot move the difference. Only z1 and w1 decide.
  const qrels = Qrels.fromJudgements([
    { qid: 'q1', docid: 'r1', grade: 1 },
    { qid: 'q2', docid: 'r2', grade: 1 },
  ]);
  const a = readToy('a', [['q1', ['r1', 'x1', 'y1']], ['q2', ['r2', 'x2', 'y2']]]);
  const b = readToy('b', [['q1', ['z1', 'r1', 'w1']], ['q2', ['r2', 'x2', 'y2']]]);

  test('follows the judgements and undos of the qrels, never names a run, settles', () => {
    const j = new ImpactJudging(qrels, [a, b], 3, [0, 1], 1);
    const first = j.items();
    assert.deepEqual(new Set(first.map((p) => `${p.queryId}/${p.docId}`)), new Set(['q1/x1', 'q1/y1', 'q1/z1', 'q1/w1', 'q2/x2', 'q2/y2']));
    for (const p of first) assert.deepEqual(Object.keys(p).sort(), ['docId', 'queryId'], 'blind: no run, no impact');
    assert.equal(queueVerdict(j).verdict, 'open');
    // Judge in impact order, each hole non-relevant, until settled.
    const judged: { qid: string; docid: string; grade: number }[] = [];
    while (queueVerdict(j).verdict === 'open') {
      const next = j.items()[0];
      judged.push({ qid: next.queryId, docid: next.docId, grade: 0 });
      j.sync(qrels.withJudgements(judged));
      assert.equal(j.judged, judged.length);
      assert.ok(!j.items().some((p) => p.queryId === next.queryId && p.docId === next.docId), 'a judged hole leaves the queue');
    }
    assert.deepEqual(new Set(judged.map((x) => x.docid)), new Set(['z1', 'w1']), 'the two holes that decide, first');
    assert.equal(queueVerdict(j).direction, 1);
    // An undo (the qrels without the last judgement) reopens or keeps it, and counts one fewer.
    j.sync(qrels.withJudgements(judged.slice(0, -1)));
    assert.equal(j.judged, judged.length - 1);
    assert.equal(queueVerdict(j).verdict, 'open', 'the last judgement was the one that settled it');
  });
});

/** The queue's own comparison, a - b (the views show b - a, from the pair's ranges: underHoles.ts). */
function queueVerdict(j: ImpactJudging): ReturnType<typeof toVerdict> {
  return toVerdict(j.queue.comparison());
}

function readToy(tag: string, lists: [string, string[]][]): Run {
  return Run.fromRankings(tag, lists.map(([q, docs]) => [q, docs, docs.map((_, i) => 10 - i)]));
}
