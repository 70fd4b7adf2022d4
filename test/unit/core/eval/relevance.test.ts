// gradeLevelsOf counts a query's judgements per grade as trec_eval does: negative grades left out, grades
// ascending; checked against a plain count on random grade lists (few and many distinct grades).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gradeLevelsOf } from '../../../../src/core/eval/relevance';
import { uniform } from '../../../../src/core/random';

test('grade levels: every non-negative grade once, ascending, with its count', () => {
  const rand = uniform(7);
  for (let t = 0; t < 500; t++) {
    const spread = t % 2 === 0 ? 4 : 200;
    const judged = Int32Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * spread) - 1);
    const expected = new Map<number, number>();
    for (const g of judged) if (g >= 0) expected.set(g, (expected.get(g) ?? 0) + 1);
    const grades = [...expected.keys()].sort((a, b) => a - b);
    const got = gradeLevelsOf(judged);
    assert.deepEqual([...got.grades], grades);
    assert.deepEqual([...got.gradeCounts], grades.map((g) => expected.get(g)));
  }
});
