import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareUnderHoles, HoleScorer, prepareHoles } from '../../../src/core/eval/holes';
import { mulberry32 } from '../../../src/core/random';
import { exactMinimum, holesOf } from '../../bench/onlineFloor';
import { oracleLowerBound } from '../../bench/oracleBound';
import { randomCase } from '../core/eval/holes/bruteForce';

/**
 * bench:holes's oracle bound against the true minimum: on small random cases, every subset of the holes is
 * judged with the hidden truth and the smallest that settles the comparison is the minimum any order can
 * reach. The bound must never exceed it (soundness), and must say something (be positive) on some cases.
 */
test('the oracle lower bound never exceeds the fewest judgements that settle, over every subset', () => {
  let cases = 0;
  let positive = 0;
  let tight = 0;
  for (let seed = 1; cases < 40 && seed < 400; seed++) {
    const scale = seed % 2 ? [0, 1] : [0, 1, 2];
    const { qrels, runs } = randomCase(seed, scale);
    const set = prepareHoles(qrels, runs.slice(0, 2), { poolDepth: 4 });
    const holes = holesOf(set);
    if (holes.length === 0 || holes.length > 11) continue;
    const s = new HoleScorer('ndcg_cut.4', set.scale);
    const next = mulberry32(seed * 7919);
    const truthOf = new Map(set.queries.flatMap((q) => q.holes.map((d) => [`${q.qid}\t${d}`, next() % 3 === 0 ? set.scale[next() % set.scale.length] : 0] as const)));
    const truth = (qid: string, docId: string) => truthOf.get(`${qid}\t${docId}`)!;
    set.queries.forEach((q) => q.holes.forEach((d, h) => (q.grades[h] = truth(q.qid, d))));
    const trueDelta = compareUnderHoles(set, 0, 1, s).mean;
    if (Math.abs(trueDelta) < 1e-9) continue;
    set.queries.forEach((q) => q.grades.fill(-1));
    const min = exactMinimum(set, s, holes.map(([qi, h]) => truth(set.queries[qi].qid, set.queries[qi].holes[h])));
    const bound = oracleLowerBound(set, s, truth, trueDelta > 0 ? 0 : 1);
    assert.ok(bound <= min, `seed ${seed}: bound ${bound} > minimum ${min}`);
    cases++;
    if (bound > 0) positive++;
    if (bound === min) tight++;
  }
  assert.ok(cases >= 20, `only ${cases} small cases`);
  assert.ok(positive >= cases / 4, `the bound is positive on ${positive} of ${cases} cases only`);
  process.stdout.write(`# oracle bound: ${cases} cases, positive on ${positive}, equal to the minimum on ${tight}\n`);
});
