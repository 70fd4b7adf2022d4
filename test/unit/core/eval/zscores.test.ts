import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../../../src/core/formats/errors';
import { MISSING_ZSCORE, readZScores, toZScores } from '../../../../src/core/eval/zscores';

const dir = mkdtempSync(join(tmpdir(), 'irw-z-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const names = (...n: string[]) => n.map((x) => Buffer.from(x));

describe('trec_eval -Z z-scores', () => {
  it('converts each value by its query and measure: (v - mean) / stddev; 0 where stddev is 0 and v is the mean', () => {
    const z = readZScores(file('a', 'q1 map 0.5 0.25\nq1\tP_10   0.2\t0\nq1 P_5 0.2 0\n'));
    const row = Float64Array.of(1, 0.2, 0.4);
    toZScores(z, Buffer.from('q1'), names('map', 'P_10', 'P_5'), row, new Set());
    assert.deepEqual([...row], [2, 0, MISSING_ZSCORE]);
  });

  it('gives -1000000 for a query or measure not in the file', () => {
    const z = readZScores(file('b', 'q1 map 0.5 0.25\n'));
    const row = Float64Array.of(1, 1);
    toZScores(z, Buffer.from('q2'), names('map', 'P_10'), row, new Set());
    assert.deepEqual([...row], [MISSING_ZSCORE, MISSING_ZSCORE]);
    const row1 = Float64Array.of(1, 1);
    toZScores(z, Buffer.from('q1'), names('map', 'ndcg'), row1, new Set());
    assert.deepEqual([...row1], [2, MISSING_ZSCORE]);
  });

  it("follows trec_eval's search, which also looks at the next query's first entry", () => {
    // q1 has only 'map'; searching q1 for 'num_ret' (after 'map') reaches index 1, q2's 'num_ret'.
    const z = readZScores(file('c', 'q2 num_ret 10 5\nq1 map 0.5 0.25\n'));
    const row = Float64Array.of(20);
    toZScores(z, Buffer.from('q1'), names('num_ret'), row, new Set());
    assert.deepEqual([...row], [2]);
  });

  it('reads nan as atof does, and marks it to print as "nan" (not the "-nan" of 0 / 0)', () => {
    const z = readZScores(file('d', 'q1 set_F nan nan\n'));
    const row = Float64Array.of(0.5);
    const positive = new Set<number>();
    toZScores(z, Buffer.from('q1'), names('set_F'), row, positive);
    assert.ok(Number.isNaN(row[0]));
    assert.deepEqual([...positive], [0]);
  });

  for (const [what, text, pattern] of [
    ['three columns', 'q1 map 0.5\n', /:1: expected 4 columns/],
    ['an empty line', 'q1 map 0.5 1\n\nq2 map 0.5 1\n', /:2: expected 4 columns .* found 0/],
    ['a mean that is not a number', 'q1 map x 1\n', /:1: mean 'x' \(column 3\) is not a number/],
    ['a measure twice for a query', 'q1 map 0.5 1\nq1 map 0.6 1\n', /:2: query q1 has measure map twice \(also on line 1\)/],
    ['an empty file', '', /z-scores file is empty/],
  ] as const) {
    it(`refuses ${what}, naming the file and line`, () => {
      const p = file('bad', text);
      assert.throws(() => readZScores(p), (e: unknown) => e instanceof InputError && pattern.test(e.format()) && e.format().includes(p));
    });
  }
});
