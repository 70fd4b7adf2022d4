import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareUnderHoles, HoleScorer, ImpactQueue, prepareHoles } from '../../../../../src/core/eval/holes';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { randomCase } from './bruteForce';

test('impact order: the hole that decides comes first; items name no run; judging re-ranges and settles', () => {
  // a ranks hole h first, b ranks it last: its grade decides P@1 of q. Holes u, v sit at rank 2 of both runs.
  const qrels = Qrels.fromJudgements([{ qid: 'q', docid: 'r', grade: 1 }]);
  const a = Run.fromRankings('a', [['q', ['h', 'u', 'r'], [3, 2, 1]]]);
  const b = Run.fromRankings('b', [['q', ['r', 'u', 'h'], [3, 2, 1]]]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 2 });
  const queue = new ImpactQueue(set, 0, 1, new HoleScorer('P.1', set.scale));
  assert.equal(queue.comparison().verdict, 'open');
  const first = queue.next()!;
  assert.equal(first.docId, 'h');
  assert.ok(first.impact > 0);
  assert.deepEqual(Object.keys(first).sort(), ['docId', 'hole', 'impact', 'qid', 'query']);
  assert.deepEqual(queue.order().map((x) => x.docId), ['h', 'u']);
  queue.judge(first.query, first.hole, 0);
  const c = queue.comparison();
  assert.deepEqual([c.verdict, c.direction, queue.judged], ['settled', -1, 1]);
});

test('ties in impact are shuffled with the seed: reproducible, and not always pool order', () => {
  const { qrels, runs } = randomCase(5, [0, 1]);
  const orders = [1, 2, 3, 4].map((seed) => {
    const set = prepareHoles(qrels, runs, { poolDepth: 6 });
    return new ImpactQueue(set, 0, 1, new HoleScorer('ndcg_cut.5', set.scale), { seed }).order().map((x) => `${x.qid}/${x.docId}`);
  });
  const again = (() => {
    const set = prepareHoles(qrels, runs, { poolDepth: 6 });
    return new ImpactQueue(set, 0, 1, new HoleScorer('ndcg_cut.5', set.scale), { seed: 1 }).order().map((x) => `${x.qid}/${x.docId}`);
  })();
  assert.deepEqual(again, orders[0]);
  assert.ok(new Set(orders.map((o) => o.join())).size > 1, 'different seeds, different tie orders');
});

test('judging every hole in impact order always settles the comparison', () => {
  for (let seed = 1; seed <= 8; seed++) {
    const { qrels, runs } = randomCase(seed, [0, 1, 2]);
    const set = prepareHoles(qrels, runs, { poolDepth: 5 });
    const s = new HoleScorer('ndcg_cut.5', set.scale);
    const queue = new ImpactQueue(set, 0, 1, s);
    for (let item = queue.next(); item; item = queue.next()) queue.judge(item.query, item.hole, (seed + item.hole) % 3);
    const c = queue.comparison();
    assert.equal(c.verdict, 'settled');
    assert.deepEqual([c.lo, c.hi], [compareUnderHoles(set, 0, 1, s).lo, c.mean]);
  }
});
