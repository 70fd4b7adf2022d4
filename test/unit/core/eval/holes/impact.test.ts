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

const PRIOR = Array.from({ length: 12 }, (_, i) => `p${i + 1}`);

test('the grades the judge gives to holes re-weight the order: holes found non-relevant favour holes that matter when non-relevant', () => {
  // P@1. q0: a leads on judged documents, so the lower end decides. q1: a ranks hole h first, b ranks hole t
  // first: judging h relevant, or t non-relevant, lifts the lower end by the same amount, so the order
  // follows P(relevant) of a hole. p1-p12 make the prior 25/40 relevant; q6-q11 hold one hole both runs rank
  // first (no impact on the difference), which the judge finds non-relevant: 6.25/16 relevant after them.
  const judgements = [
    { qid: 'q0', docid: 'r', grade: 1 },
    { qid: 'q0', docid: 'n', grade: 0 },
    { qid: 'q1', docid: 'r', grade: 1 },
    ...PRIOR.map((qid) => ({ qid, docid: 'r', grade: 1 })),
    ...[6, 7, 8, 9, 10, 11].map((i) => ({ qid: `q${i}`, docid: 'r', grade: 1 })),
  ];
  const qrels = Qrels.fromJudgements(judgements);
  const shared = PRIOR.map((qid): [string, string[], number[]] => [qid, ['r'], [1]]);
  const same = [6, 7, 8, 9, 10, 11].map((i): [string, string[], number[]] => [`q${i}`, ['x', 'r'], [2, 1]]);
  const a = Run.fromRankings('a', [['q0', ['r'], [1]], ['q1', ['h', 't', 'r'], [3, 2, 1]], ...shared, ...same]);
  const b = Run.fromRankings('b', [['q0', ['n'], [1]], ['q1', ['t', 'h', 'r'], [3, 2, 1]], ...shared, ...same]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 1 });
  const queue = new ImpactQueue(set, 0, 1, new HoleScorer('P.1', set.scale));
  const q1 = set.queries.findIndex((q) => q.qid === 'q1');
  const first = () => queue.order().filter((x) => x.query === q1)[0].docId;
  assert.equal(first(), 'h', 'the prior says most documents are relevant: judge the leader\'s hole');
  const xs = queue.order().filter((x) => x.docId === 'x');
  assert.equal(xs.length, 6);
  for (const x of xs) queue.judge(x.query, x.hole, 0);
  assert.equal(first(), 't', 'six holes judged non-relevant: the trailer\'s hole is now the better bet');
  for (const x of xs) queue.judge(x.query, x.hole, -1);
  assert.equal(first(), 'h', 'undoing the judgements undoes what was learned');
});

test('what the judge says about holes is learned per rank: holes ranked first teach nothing about holes ranked second', () => {
  // P@2, pool depth 2. q1: h and t, each second in one run and third in the other, decide as in the test
  // above. q6-q11 hold two shared holes, x first and y second in both runs (no impact on the difference).
  const qrels = Qrels.fromJudgements([
    { qid: 'q0', docid: 'r', grade: 1 },
    { qid: 'q0', docid: 's', grade: 1 },
    { qid: 'q0', docid: 'n', grade: 0 },
    { qid: 'q0', docid: 'm', grade: 0 },
    { qid: 'q1', docid: 'r', grade: 1 },
    ...PRIOR.flatMap((qid) => [{ qid, docid: 'r', grade: 1 }, { qid, docid: 's', grade: 1 }]),
    ...[6, 7, 8, 9, 10, 11].map((i) => ({ qid: `q${i}`, docid: 'r', grade: 1 })),
  ]);
  const shared = PRIOR.map((qid): [string, string[], number[]] => [qid, ['r', 's'], [2, 1]]);
  const same = [6, 7, 8, 9, 10, 11].map((i): [string, string[], number[]] => [`q${i}`, ['x', 'y', 'r'], [3, 2, 1]]);
  const a = Run.fromRankings('a', [['q0', ['r', 's'], [2, 1]], ['q1', ['r', 'h', 't'], [3, 2, 1]], ...shared, ...same]);
  const b = Run.fromRankings('b', [['q0', ['n', 'm'], [2, 1]], ['q1', ['r', 't', 'h'], [3, 2, 1]], ...shared, ...same]);
  const set = prepareHoles(qrels, [a, b], { poolDepth: 2 });
  const queue = new ImpactQueue(set, 0, 1, new HoleScorer('P.2', set.scale));
  const q1 = set.queries.findIndex((q) => q.qid === 'q1');
  const first = () => queue.order().filter((x) => x.query === q1)[0].docId;
  assert.equal(first(), 'h');
  for (const x of queue.order().filter((i) => i.docId === 'x')) queue.judge(x.query, x.hole, 0);
  assert.equal(first(), 'h', 'six holes ranked first found non-relevant say nothing about holes ranked second');
  for (const y of queue.order().filter((i) => i.docId === 'y')) queue.judge(y.query, y.hole, 0);
  assert.equal(first(), 't', 'six holes ranked second found non-relevant do');
});
