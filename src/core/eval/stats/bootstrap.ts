import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { mulberry32 } from '../../random';
import { runSteps } from '../../steps';
import { differences } from './paired';

export interface BootstrapOptions {
  /** Resamples (default 10,000). */
  resamples?: number;
  /** Generator seed: the same seed draws the same resamples (default 1). */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
  /** Draw every interval, even of a vector seen lately (the memo is exact: tests of the drawing itself). */
  fresh?: boolean;
}

export interface Interval {
  lo: number;
  hi: number;
}

/**
 * Percentile bootstrap confidence interval of the mean of `x` (Efron and Tibshirani 1993, ch. 13): draw
 * `resamples` samples of n queries with replacement (mulberry32 with `seed`), take each sample's mean, and
 * report the (1 - level) / 2 and (1 + level) / 2 quantiles of those means, linearly interpolated between
 * order statistics as numpy.percentile does. Run with the same seed and query count, every run and every
 * pair draws the same query samples, so the intervals of a table are paired.
 */
export function bootstrapMeanCI(x: ArrayLike<number>, options: BootstrapOptions = {}): Interval {
  return bootstrapMeanCIs([Float64Array.from(x)], options)[0];
}

/**
 * bootstrapMeanCI() of several vectors of one length at once (a results table's runs and differences): each
 * resample's queries are drawn once and summed for every vector, in the order bootstrapMeanCI sums them, so
 * each interval is the one it gives alone, for one draw of the generator instead of one per vector (the
 * draws were ~80 % of 25 separate calls' time).
 */
export function bootstrapMeanCIs(xs: readonly Float64Array[], options: BootstrapOptions = {}): Interval[] {
  return runSteps(bootstrapSteps(xs, options));
}

/** Intervals of vectors seen lately, by the options and a SHA-256 of the vector's bytes (the same input gives the same interval). */
const known = new LRUCache<string, Interval>({ max: 4096 });

/** Resamples drawn between two yields of bootstrapSteps (300 queries, 15 vectors: a few milliseconds). */
const RESAMPLES_A_STEP = 500;

/**
 * bootstrapMeanCIs() in steps, for the engine's background work: vectors of any lengths (each length draws
 * its own resamples, as bootstrapMeanCI does alone), and the interval of a vector seen lately is not drawn
 * again. After a judgement most differences are what they were (a non-relevant judgement moves no figure):
 * their intervals are kept, to the bit.
 */
export function* bootstrapSteps(xs: readonly Float64Array[], options: BootstrapOptions = {}): Generator<void, Interval[], undefined> {
  const resamples = options.resamples ?? 10_000;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? 1;
  const keys = xs.map((x) => `${resamples}\t${seed}\t${level}\t${createHash('sha256').update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)).digest('base64')}`);
  const out: (Interval | undefined)[] = keys.map((k) => {
    const hit = options.fresh ? undefined : known.get(k);
    return hit && { ...hit };
  });
  const byLength = new Map<number, number[]>();
  xs.forEach((x, v) => {
    if (out[v]) return;
    if (x.length === 0) throw new Error('bootstrap: no queries');
    byLength.set(x.length, [...(byLength.get(x.length) ?? []), v]);
  });
  for (const [n, which] of byLength) {
    const next = mulberry32(seed);
    const means = which.map(() => new Float64Array(resamples));
    const drawn = new Int32Array(n);
    for (let r = 0; r < resamples; r++) {
      // next() / 2^32 * n is uniform over 0..n-1 up to a bias of n / 2^32, far below the resampling noise.
      for (let i = 0; i < n; i++) drawn[i] = Math.floor((next() / 4294967296) * n);
      for (let j = 0; j < which.length; j++) {
        const x = xs[which[j]];
        let s = 0;
        for (let i = 0; i < n; i++) s += x[drawn[i]];
        means[j][r] = s / n;
      }
      if ((r + 1) % RESAMPLES_A_STEP === 0) yield;
    }
    which.forEach((v, j) => {
      const m = means[j].sort();
      out[v] = { lo: quantile(m, (1 - level) / 2), hi: quantile(m, (1 + level) / 2) };
      known.set(keys[v], { ...out[v]! });
    });
  }
  return out as Interval[];
}

/** Paired bootstrap interval of the mean difference a - b (the same resampled queries for both runs). */
export function bootstrapDiffCI(a: ArrayLike<number>, b: ArrayLike<number>, options: BootstrapOptions = {}): Interval {
  return bootstrapMeanCI(differences(a, b), options);
}

/** numpy.percentile's default ('linear'): interpolate at position q (n - 1) of sorted values. */
function quantile(sorted: Float64Array, q: number): number {
  const pos = q * (sorted.length - 1);
  const i = Math.floor(pos);
  const f = pos - i;
  return f === 0 || i + 1 >= sorted.length ? sorted[i] : sorted[i] + f * (sorted[i + 1] - sorted[i]);
}
