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
  return runSteps(bootstrapMeanCIsSteps(xs, options));
}

/**
 * bootstrapMeanCIs() `every` resamples at a time, yielding between them (the same intervals): the engine
 * recomputes a table's intervals after each judgement, between other requests.
 */
export function* bootstrapMeanCIsSteps(xs: readonly Float64Array[], options: BootstrapOptions = {}, every = 500): Generator<void, Interval[], undefined> {
  if (xs.length === 0) return [];
  const n = xs[0].length;
  if (n === 0) throw new Error('bootstrap: no queries');
  for (const x of xs) if (x.length !== n) throw new Error(`bootstrap: vectors of ${n} and ${x.length} queries`);
  const resamples = options.resamples ?? 10_000;
  const level = options.level ?? 0.95;
  const next = mulberry32(options.seed ?? 1);
  const means = xs.map(() => new Float64Array(resamples));
  const drawn = new Int32Array(n);
  const step = Math.max(1, every);
  for (let r = 0; r < resamples; r += step) {
    if (r > 0) yield;
    resample(next, drawn, xs, means, r, Math.min(resamples, r + step));
  }
  return means.map((m) => {
    m.sort();
    return { lo: quantile(m, (1 - level) / 2), hi: quantile(m, (1 + level) / 2) };
  });
}

/**
 * Resamples [from, to): each draws n queries and takes every vector's mean over them. Out of the generator above
 * because V8 optimizes a loop in a generator less (these loops took twice as long there).
 */
function resample(next: () => number, drawn: Int32Array, xs: readonly Float64Array[], means: Float64Array[], from: number, to: number): void {
  const n = drawn.length;
  for (let r = from; r < to; r++) {
    // next() / 2^32 * n is uniform over 0..n-1 up to a bias of n / 2^32, far below the resampling noise.
    for (let i = 0; i < n; i++) drawn[i] = Math.floor((next() / 4294967296) * n);
    // Four vectors' sums side by side, each in query order as alone: one sum's additions wait on each other,
    // four sums' do not (the same figures; 15 vectors of 300 queries: ~0.75x the time).
    let v = 0;
    for (; v + 4 <= xs.length; v += 4) {
      const x0 = xs[v];
      const x1 = xs[v + 1];
      const x2 = xs[v + 2];
      const x3 = xs[v + 3];
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let i = 0; i < n; i++) {
        const d = drawn[i];
        s0 += x0[d];
        s1 += x1[d];
        s2 += x2[d];
        s3 += x3[d];
      }
      means[v][r] = s0 / n;
      means[v + 1][r] = s1 / n;
      means[v + 2][r] = s2 / n;
      means[v + 3][r] = s3 / n;
    }
    for (; v < xs.length; v++) {
      const x = xs[v];
      let s = 0;
      for (let i = 0; i < n; i++) s += x[drawn[i]];
      means[v][r] = s / n;
    }
  }
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
