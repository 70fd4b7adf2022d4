import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countKl, endFloor } from '../../bench/withinFloor';

/** kl(1/2, 0.073): the information the floor asks for (withinFloor's NEEDED, written out again on purpose). */
const NEEDED = 0.5 * Math.log(0.5 / 0.073) + 0.5 * Math.log(0.5 / 0.927);

/** P(no relevant in m draws of N holding K relevant), as a product. */
const noneSeen = (N: number, K: number, m: number) => {
  let p = 1;
  for (let i = 0; i < K; i++) p *= (N - m - i) / (N - i);
  return p;
};

test('countKl with no relevant hole in truth is -log P(W shows none), the closed form', () => {
  for (const [N, K, m] of [[100, 3, 20], [500, 7, 40], [60, 1, 59]]) {
    assert.ok(Math.abs(countKl(N, 0, K, m) + Math.log(noneSeen(N, K, m))) < 1e-9, `N ${N} K ${K} m ${m}`);
  }
  // Judging every hole tells a world with more relevant ones apart for sure.
  assert.equal(countKl(50, 2, 3, 50), Infinity);
  // More judgements, more information.
  assert.ok(countKl(200, 2, 6, 80) > countKl(200, 2, 6, 40));
});

test('endFloor on equal effects and no relevant hole: the fewest m whose -log P(none seen | K) reaches the information needed', () => {
  // 100 holes of effect 1, none relevant, the end 2.5 away: W needs K = 3 relevant (equal effects: no spread).
  const holes = Array.from({ length: 100 }, () => ({ effect: 1, relevant: false }));
  let m = 0;
  while (-Math.log(noneSeen(100, 3, m)) < NEEDED) m++;
  assert.equal(endFloor(holes, 2.5), m);
  assert.ok(m > 10 && m < 40, `m ${m}`);
  // Closer to the end, fewer relevant holes pass it, and it takes more judgements to rule them out.
  assert.ok(endFloor(holes, 0.5) > m);
  // An end already passed: no "within" at all.
  assert.equal(endFloor(holes, 0), Infinity);
  // Holes that cannot pass the end however many are relevant ask for no judgement.
  assert.equal(endFloor(holes.slice(0, 2), 2.5), 0);
});
