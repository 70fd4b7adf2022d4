// mulberry32's sequences are part of every seeded figure (bootstrap intervals, randomization p-values, the
// estimates' draws): the generator may be rewritten for speed, never to give other numbers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32, uniform } from '../../../src/core/random';

// The reference mulberry32 (Tommy Ettinger's, as in JavaScript's usual one-line version): the first three numbers
// and the millionth, per seed, from the implementation with an unsigned state that this one replaced.
const REFERENCE: [number, number[], number][] = [
  [1, [2693262067, 11749833, 2265367787], 491392503],
  [42, [2581720956, 1925393290, 3661312704], 3314057631],
  [0xffffffff, [3850105811, 813802916, 3073704848], 1140659518],
  [2 ** 31 + 5, [2491555058, 370742764, 3914361147], 3700921603],
];

test('mulberry32 gives the reference sequence for seeds below and above 2^31', () => {
  for (const [seed, first, millionth] of REFERENCE) {
    const next = mulberry32(seed);
    assert.deepEqual([next(), next(), next()], first, `seed ${seed}`);
    let last = 0;
    for (let i = 3; i < 1_000_000; i++) last = next();
    assert.equal(last, millionth, `seed ${seed}: the millionth number`);
  }
});

test('uniform is mulberry32 over 2^32, in [0, 1)', () => {
  const u = uniform(1);
  assert.equal(u(), 2693262067 / 4294967296);
  for (let i = 0; i < 10_000; i++) {
    const x = u();
    assert.ok(x >= 0 && x < 1);
  }
});
