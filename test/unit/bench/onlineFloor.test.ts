import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareUnderHoles, HoleScorer, ImpactQueue, prepareHoles } from '../../../src/core/eval/holes';
import { mulberry32 } from '../../../src/core/random';
import { exactMinimum, needleFamily, onlineMinimum } from '../../bench/onlineFloor';
import { randomCase } from '../core/eval/holes/bruteForce';

/**
 * needleFamily's m truths: the exact minimum on each, the best order's average, and the product's impact order
 * on each. `delta` checks the difference the family gives.
 */
function family(m: number, filler: number, delta: (d: number) => boolean) {
  const { set, holes, truths } = needleFamily(m, filler);
  const s = new HoleScorer('ndcg_cut.10', set.scale);
  assert.equal(holes.length, 2 * m);
  for (const truth of truths) {
    set.queries.forEach((q) => q.holes.forEach((d, h) => (q.grades[h] = truth[holes.findIndex(([qid, x]) => qid === q.qid && x === d)])));
    const d = compareUnderHoles(set, 0, 1, s).mean;
    assert.ok(delta(d), `Δ ${d}`);
    set.queries.forEach((q) => q.grades.fill(-1));
    assert.equal(exactMinimum(set, s, truth), m + 1, 'every B and the relevant A');
  }
  const online = onlineMinimum(set, s, truths);
  assert.ok(Math.abs(online - (m + (m + 1) / 2)) < 1e-9, `the best order needs m + (m + 1) / 2 on average, not ${online}`);
  const impact = truths.map((truth) => {
    const queue = new ImpactQueue(set, 0, 1, s, { seed: 15 });
    while (queue.comparison().verdict === 'open') {
      const item = queue.next()!;
      queue.judge(item.query, item.hole, truth[holes.findIndex(([qid, d]) => qid === item.qid && d === item.docId)]);
    }
    const judged = queue.judged;
    set.queries.forEach((q) => q.grades.fill(-1));
    return judged;
  });
  // Impact order cannot beat the best order on average.
  assert.ok(impact.reduce((x, y) => x + y) / m >= online - 1e-9, `impact order ${impact.join(', ')} below the best order's ${online}`);
  process.stdout.write(`# ${m} truths, ${filler} filler queries: exact minimum ${m + 1}, best order ${online} on average (${(online / (m + 1)).toFixed(3)}x), impact order ${impact.join(', ')}\n`);
  return { exact: m + 1, online, impact };
}

test('on a near-tie, every order needs more than 1.3x the exact minimum on some truth (issue 23, sound mode)', () => {
  const f = family(6, 40, (d) => d > 0 && d < 0.005);
  assert.ok(f.online > 1.3 * f.exact, `${f.online} judgements against an exact minimum of ${f.exact}`);
  assert.ok(Math.max(...f.impact) > 1.3 * f.exact, `impact order: ${f.impact.join(', ')}`);
});

test('where |Δ| >= 0.01 too, every order needs more than 1.15x the exact minimum on some truth', () => {
  const f = family(6, 11, (d) => d >= 0.01 && d < 0.011);
  assert.ok(f.online > 1.15 * f.exact, `${f.online} judgements against an exact minimum of ${f.exact}`);
});

test('the best order is never below the exact minimum, and equals it when the truth is known (one truth)', () => {
  let cases = 0;
  for (let seed = 1; cases < 12 && seed < 300; seed++) {
    const { qrels, runs } = randomCase(seed, [0, 1]);
    const set = prepareHoles(qrels, runs.slice(0, 2), { poolDepth: 4 });
    const n = set.queries.reduce((k, q) => k + q.holes.length, 0);
    if (n < 2 || n > 8) continue;
    const s = new HoleScorer('ndcg_cut.4', set.scale);
    const next = mulberry32(seed);
    const truths = [0, 1, 2].map(() => Int32Array.from({ length: n }, () => (next() % 3 === 0 ? 1 : 0)));
    const mins = truths.map((t) => exactMinimum(set, s, t));
    const average = mins.reduce((x, y) => x + y) / mins.length;
    assert.ok(onlineMinimum(set, s, truths) >= average - 1e-9, `seed ${seed}`);
    truths.forEach((t, i) => assert.equal(onlineMinimum(set, s, [t]), mins[i], `seed ${seed}, truth ${i}`));
    cases++;
  }
  assert.ok(cases >= 8, `only ${cases} small cases`);
});
