import type { Qrels } from '../../formats/qrels';
import type { Run } from '../../formats/run';
import { MeasureSpecError } from '../registry';
import { HoleEstimator, SharedListScores, valueScorer, type ValueScorer } from './estimate';
import { prepareHoles } from './pool';
import { HoleScorer } from './scorer';
import { estimateVerdict, type EstimateVerdict } from './verdict';

/**
 * The estimates of `irw compare` (issue 23 item 5): per comparison and measure, a - b of the table's pair (its
 * JSON swaps a and b, to say b - a) with every hole of the two runs' top `depth` judged, its 95 % interval
 * and the verdict, from the relevance model (estimate.ts).
 * Holes the user judged (an annotations file: `judged`) teach the model, as in a judging session; with none
 * the model is its prior, and the interval says how little the qrels alone tell about the holes.
 */

export interface PairEstimate {
  /** a - b, as the comparison's difference. */
  delta: number;
  low: number;
  high: number;
  /** Which of the comparison's runs is better with 95 % ("a better": the row's a), "within" ±0.01, or undecided. */
  verdict: EstimateVerdict;
  /** Holes left that can move it, and judged holes the model is fitted to. */
  holes: number;
  judged: number;
}

export interface EstimateOptions {
  relevanceLevel: number;
  /** Pool depth of the holes estimated (default 100). */
  depth?: number;
  /** Judgements of holes (not in the qrels): the model learns from them. */
  judged?: readonly { queryId: string; docId: string; grade: number }[];
  seed?: number;
}

/** The estimates of each pair [a, b] of runs, per measure (null for a measure with no per-query hole scorer). */
export function estimatePairs(
  qrels: Qrels,
  runs: readonly Run[],
  pairs: readonly [number, number][],
  measures: readonly string[],
  options: EstimateOptions,
  progress: (done: number, total: number) => void = () => undefined,
): (PairEstimate | null)[][] {
  const byPair = new Map<string, number>();
  for (const j of options.judged ?? []) if (j.grade >= 0 && qrels.grade(j.queryId, j.docId) === undefined) byPair.set(`${j.queryId}\t${j.docId}`, j.grade);
  // Each run is in several pairs: its lists' values are scored once for all of them.
  const memo = new SharedListScores();
  return pairs.map(([a, b], i) => {
    progress(i, pairs.length);
    // Lists [b, a]: the estimator's value is list 1 - list 0, a - b.
    const set = prepareHoles(qrels, [runs[b], runs[a]], { poolDepth: options.depth ?? 100 });
    const scorers: Record<string, ValueScorer> = {};
    for (const m of measures) {
      try {
        scorers[m] = valueScorer(new HoleScorer(m, set.scale, options.relevanceLevel));
      } catch (e) {
        if (!(e instanceof MeasureSpecError)) throw e;
      }
    }
    set.queries.forEach((q) => q.holes.forEach((d, h) => (q.grades[h] = byPair.get(`${q.qid}\t${d}`) ?? -1)));
    const est = new HoleEstimator(set, [0, 1], scorers, { relevanceLevel: options.relevanceLevel, seed: options.seed, shared: { memo, runs: [b, a] } });
    return measures.map((m) => {
      if (!est.has(m)) return null;
      const e = est.estimate(m);
      // The estimator's lists are [b, a]: its "a better" (list 0) is the comparison's b.
      const v = estimateVerdict(e.lo, e.hi);
      return { delta: e.estimate, low: e.lo, high: e.hi, verdict: v === 'a better' ? 'b better' : v === 'b better' ? 'a better' : v, holes: e.holes, judged: e.judged };
    });
  });
}
