import { benjaminiHochbergAdjust } from './benjaminiHochberg';
import { bonferroniAdjust } from './bonferroni';
import { holmAdjust } from './holm';
import { randomizationSteps, randomizationTest } from './randomization';
import { pairedTTest } from './tTest';
import { wilcoxon } from './wilcoxon';

export { bootstrapDiffCI, bootstrapMeanCI, bootstrapMeanCIs, bootstrapMeanCIsSteps, type BootstrapOptions, type Interval } from './bootstrap';
export { effectSize } from './effectSize';
export { differences } from './paired';
export { benjaminiHochbergAdjust, bonferroniAdjust, holmAdjust, pairedTTest, randomizationSteps, randomizationTest, wilcoxon };
export { winTieLoss, type WinTieLoss } from './winTieLoss';
export type { PairedTTest } from './tTest';
export type { RandomizationOptions } from './randomization';

export interface TestOptions {
  /** Seed of the randomization test (default 1). */
  seed?: number;
  /** Trials of the randomization test (default 10,000). */
  trials?: number;
}

export interface PairedTestEntry {
  name: string;
  label: string;
  /** Two-sided p-value of a against b, paired by query. */
  p(a: ArrayLike<number>, b: ArrayLike<number>, options?: TestOptions): number;
}

/** Paired significance tests, by the name the CLI and the views use. */
export const PAIRED_TESTS: Record<string, PairedTestEntry> = {
  t: { name: 't', label: 'paired t-test', p: (a, b) => pairedTTest(a, b).p },
  randomization: {
    name: 'randomization',
    label: 'paired randomization test',
    p: (a, b, o) => randomizationTest(a, b, { seed: o?.seed, trials: o?.trials }),
  },
  wilcoxon: { name: 'wilcoxon', label: 'Wilcoxon signed-rank test', p: (a, b) => wilcoxon(a, b).p },
};

export interface CorrectionEntry {
  name: string;
  label: string;
  /** Adjusted p-values, in the input's order. */
  adjust(p: readonly number[]): number[];
}

/** Multiple-testing corrections over a family of comparisons. */
export const CORRECTIONS: Record<string, CorrectionEntry> = {
  none: { name: 'none', label: 'no correction', adjust: (p) => [...p] },
  bonferroni: { name: 'bonferroni', label: 'Bonferroni', adjust: bonferroniAdjust },
  holm: { name: 'holm', label: 'Holm', adjust: holmAdjust },
  bh: { name: 'bh', label: 'Benjamini-Hochberg', adjust: benjaminiHochbergAdjust },
};
