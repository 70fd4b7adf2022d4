// The statistics against figures scipy 1.10 computed (fixtures/make-scipy-golden.py wrote fixtures/scipy-golden.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  benjaminiHochbergAdjust,
  bonferroniAdjust,
  bootstrapDiffCI,
  bootstrapMeanCI,
  CORRECTIONS,
  effectSize,
  holmAdjust,
  pairedTTest,
  PAIRED_TESTS,
  wilcoxon,
} from '../../../../../src/core/eval/stats';

interface Case {
  name: string;
  a: number[];
  b: number[];
  t: { statistic: number; p: number };
  wilcoxon: { statistic: number; p: number } | null;
  effectSize: number;
  bootstrapMean: [number, number];
  bootstrapDiff: [number, number];
  bootstrapMeanSE: number;
  bootstrapDiffSE: number;
  latticeMean: number;
  latticeDiff: number;
}
const golden = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'scipy-golden.json'), 'utf8')) as {
  cases: Case[];
  corrections: Record<'p' | 'bonferroni' | 'holm' | 'bh', number[]>;
};

const close = (actual: number, expected: number, tol: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected} (tolerance ${tol})`);

for (const c of golden.cases) {
  test(`scipy golden: ${c.name}`, () => {
    const t = pairedTTest(c.a, c.b);
    close(t.t, c.t.statistic, 1e-9, 't statistic');
    close(t.p, c.t.p, 1e-9, 't p');
    const w = wilcoxon(c.a, c.b);
    close(w.statistic, c.wilcoxon!.statistic, 1e-9, 'Wilcoxon statistic');
    close(w.p, c.wilcoxon!.p, 1e-9, 'Wilcoxon p');
    assert.equal(PAIRED_TESTS.wilcoxon.p(c.a, c.b), w.p);
    close(effectSize(c.a, c.b), c.effectSize, 1e-12, 'effect size');
    // Different generators draw different resamples: a percentile endpoint from 10,000 resamples varies by
    // about 0.03 bootstrap standard errors, so agree within 0.15 of them (5 sigma), plus one step of the lattice
    // resampled means of discrete scores sit on.
    const m = bootstrapMeanCI(c.a);
    const tm = 0.15 * c.bootstrapMeanSE + c.latticeMean;
    close(m.lo, c.bootstrapMean[0], tm, 'bootstrap mean lo');
    close(m.hi, c.bootstrapMean[1], tm, 'bootstrap mean hi');
    const d = bootstrapDiffCI(c.a, c.b);
    const td = 0.15 * c.bootstrapDiffSE + c.latticeDiff;
    close(d.lo, c.bootstrapDiff[0], td, 'bootstrap diff lo');
    close(d.hi, c.bootstrapDiff[1], td, 'bootstrap diff hi');
  });
}

test('scipy golden cases cover the exact Wilcoxon table and the tie-corrected approximation', () => {
  const exact = golden.cases.map((c) => wilcoxon(c.a, c.b).exact);
  assert.ok(exact.includes(true) && exact.includes(false), String(exact));
});

test('corrections: Bonferroni, Holm and Benjamini-Hochberg as defined (golden figures), through the table too', () => {
  const { p } = golden.corrections;
  const same = (got: number[], want: number[], what: string) => got.forEach((v, i) => close(v, want[i], 1e-12, `${what}[${i}]`));
  same(bonferroniAdjust(p), golden.corrections.bonferroni, 'bonferroni');
  same(holmAdjust(p), golden.corrections.holm, 'holm');
  same(benjaminiHochbergAdjust(p), golden.corrections.bh, 'bh');
  same(CORRECTIONS.bh.adjust(p), golden.corrections.bh, 'table bh');
  same(CORRECTIONS.none.adjust(p), p, 'none');
});
