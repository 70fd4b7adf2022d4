import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootstrapDiffCI, bootstrapMeanCI, bootstrapMeanCIs } from '../../../../../src/core/eval/stats/bootstrap';

test('bootstrap: seeded (same seed, same interval), contains the mean, constant data gives a point', () => {
  const x = Array.from({ length: 50 }, (_, i) => ((i * 37) % 11) / 10);
  const a = bootstrapMeanCI(x, { seed: 3 });
  assert.deepEqual(bootstrapMeanCI(x, { seed: 3 }), a);
  assert.notDeepEqual(bootstrapMeanCI(x, { seed: 4 }), a);
  const mean = x.reduce((s, v) => s + v, 0) / x.length;
  assert.ok(a.lo < mean && mean < a.hi, `${a.lo} < ${mean} < ${a.hi}`);
  const point = bootstrapMeanCI([0.4, 0.4, 0.4]);
  assert.ok(Math.abs(point.lo - 0.4) < 1e-12 && Math.abs(point.hi - 0.4) < 1e-12);
  const d = bootstrapDiffCI(x, x.map((v) => v - 0.1));
  assert.ok(Math.abs(d.lo - 0.1) < 1e-12 && Math.abs(d.hi - 0.1) < 1e-12);
  assert.throws(() => bootstrapMeanCI([]), /no queries/);
});

test('bootstrap: a wider level gives a wider interval', () => {
  const x = Array.from({ length: 80 }, (_, i) => Math.sin(i) ** 2);
  const n90 = bootstrapMeanCI(x, { level: 0.9 });
  const n99 = bootstrapMeanCI(x, { level: 0.99 });
  assert.ok(n99.lo < n90.lo && n90.hi < n99.hi);
});

test('bootstrapMeanCIs: many vectors in one pass give exactly each one\'s bootstrapMeanCI (a table\'s intervals stay paired)', () => {
  const xs = Array.from({ length: 7 }, (_, v) => Float64Array.from({ length: 61 }, (_, i) => ((i * (v + 3) * 2654435761) % 1000) / 997));
  const together = bootstrapMeanCIs(xs, { seed: 9, resamples: 3000 });
  xs.forEach((x, v) => assert.deepEqual(together[v], bootstrapMeanCI(x, { seed: 9, resamples: 3000 }), `vector ${v}`));
  assert.throws(() => bootstrapMeanCIs([xs[0], xs[1].subarray(1)]), /vectors of 61 and 60 queries/);
});
