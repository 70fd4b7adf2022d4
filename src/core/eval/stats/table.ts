import type { Qrels } from '../../formats/qrels';
import type { Run } from '../../formats/run';
import { evaluate } from '../evaluate';
import { estimatePairs, HoleScorer, holeFigures, prepareHoles, significanceUnderHoles, type HoleSet, type PairEstimate } from '../holes';
import { MeasureSpecError, resolveMeasures } from '../registry';
import { rankingsOf, runSimilarity } from '../similarity';
import { bootstrapMeanCIs, type Interval } from './bootstrap';
import { effectSize } from './effectSize';
import { differences } from './paired';
import { CORRECTIONS, PAIRED_TESTS } from './index';
import { winTieLoss } from './winTieLoss';

/**
 * The results table of `irw compare` (and what a view needs for one): runs x measures over every query of the
 * qrels (queries a run misses score 0, trec_eval -c), with per-run means, bootstrap intervals and hole
 * intervals, and comparisons (baseline against each run, or every pair) with a paired test, a correction
 * over the comparisons of each measure, an effect size and whether the holes leave the comparison open.
 */

export interface TableOptions {
  /** One value each, as trec_eval names them: ndcg_cut.10, P.10, recall.100, map, recip_rank. */
  measures: string[];
  /** Index of the baseline run, or 'all-pairs'. */
  compare: number | 'all-pairs';
  test: string;
  correction: string;
  alpha: number;
  relevanceLevel: number;
  /** Depth of the pool of holes (0: no hole intervals). */
  poolDepth: number;
  resamples: number;
  seed: number;
  /** Evaluate only the top N documents of each ranking (trec_eval -M; e.g. recip_rank with 10 is MRR@10); 0: all. */
  maxRetrieved: number;
  /** Judgements of holes the estimates learn from (a judging session's annotations); none: the model's prior. */
  judged?: readonly { queryId: string; docId: string; grade: number }[];
}

/** Work done so far in a stage of buildTable (for a progress line: it can take seconds on large splits). */
export type TableProgress = (stage: string, done: number, total: number) => void;

export const TABLE_DEFAULTS: TableOptions = {
  measures: ['ndcg_cut.10', 'P.10', 'recall.100', 'map', 'recip_rank'],
  compare: 0,
  test: 't',
  correction: 'holm',
  alpha: 0.05,
  relevanceLevel: 1,
  poolDepth: 10,
  resamples: 10_000,
  seed: 1,
  maxRetrieved: 0,
};

export interface HoleRange {
  lo: number;
  hi: number;
  exact: boolean;
}

export interface Cell {
  mean: number;
  /** Percentile bootstrap interval of the mean. */
  ci: Interval;
  /** Judged-only mean (trec_eval -J) and the range over every judgement of the holes; null without holes. */
  judgedOnly: number | null;
  holes: HoleRange | null;
}

export interface PairRow {
  /** Run indices: the difference is a - b. */
  a: number;
  b: number;
  measure: string;
  delta: number;
  ci: Interval;
  effect: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
  wins: number;
  ties: number;
  losses: number;
  /** How alike the two rankings are, judgements aside: means over queries both runs answer. */
  /** tauAp10 leaves out the queries whose top 10s share fewer than two documents (tauAp10Undefined of them). */
  similarity: { rbo: number; jaccard10: number; tauAp10: number; tauAp10Undefined: number };
  holes: (HoleRange & { verdict: 'settled' | 'open'; openQueries: number; openHoles: number; canLose: boolean; canGain: boolean }) | null;
  /** a - b estimated with the holes of both runs' top 100 judged, its 95 % interval and verdict (tableEstimates.ts); null without holes. */
  estimate: PairEstimate | null;
}

export interface ResultsTable {
  options: TableOptions;
  runs: { id: string; answered: number }[];
  numQueries: number;
  measures: string[];
  /** cells[run][measure]. */
  cells: Cell[][];
  pairs: PairRow[];
}

/**
 * Each figure is computed once: runs are evaluated once for every measure, the bootstrap draws its resamples
 * once for every run and difference (bootstrapMeanCIs), each run's top 100 is decoded once for every
 * similarity and pair, and a cell's hole intervals serve the comparisons that fall back on them.
 */
export function buildTable(qrels: Qrels, allRuns: readonly Run[], options: TableOptions, progress: TableProgress = () => undefined): ResultsTable {
  const test = PAIRED_TESTS[options.test];
  const correction = CORRECTIONS[options.correction];
  if (!test) throw new MeasureSpecError(`unknown test '${options.test}' (available: ${Object.keys(PAIRED_TESTS).join(', ')})`);
  if (!correction) throw new MeasureSpecError(`unknown correction '${options.correction}' (available: ${Object.keys(CORRECTIONS).join(', ')})`);
  const runs = options.maxRetrieved > 0 ? allRuns.map((r) => r.top(options.maxRetrieved)) : allRuns;
  const evals = runs.map((run, r) => {
    progress('evaluating the runs', r, runs.length);
    return evaluate(qrels, run, { measures: options.measures, complete: true, relevanceLevel: options.relevanceLevel });
  });
  const names = evals[0].columns.map((c) => c.name);
  // evaluate() orders columns as trec_eval does; keep the user's order.
  const order = options.measures.map((m) => {
    const [r, ...more] = resolveMeasures([m]);
    if (more.length || r.names.length !== 1 || !r.family.perQuery) {
      throw new MeasureSpecError(`'${m}': give one per-query value per measure (e.g. -m ndcg_cut.10 -m ndcg_cut.100, not ndcg_cut.10,100)`);
    }
    return names.indexOf(r.names[0]);
  });
  if (new Set(order).size !== order.length) throw new MeasureSpecError(`a measure is given twice: ${options.measures.join(' ')}`);
  const w = names.length;
  const values = evals.map((e) => order.map((c) => Float64Array.from({ length: e.numQ }, (_, q) => e.values[q * w + c])));
  progress('pooling the holes', 0, 1);
  const set: HoleSet | null = options.poolDepth > 0 ? prepareHoles(qrels, runs, { poolDepth: options.poolDepth }) : null;
  const scorers = options.measures.map((m) => (set ? tryScorer(m, set, options.relevanceLevel) : null));

  const pairs: [number, number][] = [];
  if (options.compare === 'all-pairs') {
    for (let a = 0; a < runs.length; a++) for (let b = a + 1; b < runs.length; b++) pairs.push([a, b]);
  } else {
    for (let r = 0; r < runs.length; r++) if (r !== options.compare) pairs.push([r, options.compare]);
  }

  // One bootstrap for every run's and every comparison's values: vectors (run, measure), then (pair, measure).
  progress('bootstrap intervals', 0, 1);
  const vectors = [...runs.flatMap((_, r) => values[r]), ...pairs.flatMap(([a, b]) => options.measures.map((_m, k) => differences(values[a][k], values[b][k])))];
  const intervals = bootstrapMeanCIs(vectors, { resamples: options.resamples, seed: options.seed });
  const runCI = (r: number, k: number) => intervals[r * options.measures.length + k];
  const pairCI = (i: number, k: number) => intervals[(runs.length + i) * options.measures.length + k];

  const rankings = runs.map((run) => rankingsOf(run, 100));
  // Over the qrels' queries, as every other figure of the table (not every query both runs answer).
  const judgedQueries = new Set(qrels.queryIds());
  const similarity = pairs.map(([a, b], i) => {
    progress('ranking similarity', i, pairs.length);
    const tau = runSimilarity(runs[a], runs[b], 'tau_ap', 10, rankings[a], rankings[b], judgedQueries);
    return {
      rbo: runSimilarity(runs[a], runs[b], 'rbo', 100, rankings[a], rankings[b], judgedQueries).mean,
      jaccard10: runSimilarity(runs[a], runs[b], 'jaccard', 10, rankings[a], rankings[b], judgedQueries).mean,
      tauAp10: tau.mean,
      tauAp10Undefined: tau.undefinedQueries,
    };
  });
  // Per measure, one pass over the queries for every run's hole intervals (the cells' figures) and every
  // comparison's range, a query's list values shared by all of them (holeFigures).
  const everyRun = runs.map((_, r) => r);
  const holes = scorers.map((s, k) => {
    if (!s || !set) return null;
    progress('hole intervals', k, scorers.length);
    return holeFigures(set, everyRun, pairs, s);
  });
  const cells = runs.map((_, r) =>
    options.measures.map((_m, k): Cell => {
      const iv = holes[k]?.runs[r].mean ?? null;
      return {
        mean: evals[r].summary[order[k]],
        ci: runCI(r, k),
        judgedOnly: iv ? iv.judgedOnly : null,
        holes: iv ? { lo: iv.lo, hi: iv.hi, exact: iv.exact } : null,
      };
    }),
  );

  const estimates = set
    ? estimatePairs(qrels, runs, pairs, options.measures, { relevanceLevel: options.relevanceLevel, judged: options.judged, seed: options.seed }, (done, total) => progress('estimates', done, total))
    : null;
  const rows: PairRow[] = [];
  options.measures.forEach((_m, k) => {
    const raw = pairs.map(([a, b]) => test.p(values[a][k], values[b][k], { seed: options.seed }));
    const adjusted = correction.adjust(raw);
    const compared = holes[k]?.pairs ?? null;
    pairs.forEach(([a, b], i) => {
      let holes: PairRow['holes'] = null;
      if (compared) {
        const c = compared[i];
        const sig = significanceUnderHoles(c, test, options.alpha, { seed: options.seed, adjust: (x) => correction.adjust(raw.map((y, j) => (j === i ? x : y)))[i] });
        holes = { lo: c.lo, hi: c.hi, exact: c.exact, verdict: c.verdict, openQueries: c.openQueries, openHoles: c.openHoles, canLose: sig.canLose, canGain: sig.canGain };
      }
      rows.push({
        a,
        b,
        measure: names[order[k]],
        delta: cells[a][k].mean - cells[b][k].mean,
        ci: pairCI(i, k),
        effect: effectSize(values[a][k], values[b][k]),
        p: raw[i],
        pAdjusted: adjusted[i],
        significant: adjusted[i] <= options.alpha,
        ...winTieLoss(values[a][k], values[b][k]),
        similarity: similarity[i],
        holes,
        estimate: estimates?.[i][k] ?? null,
      });
    });
  });
  return {
    options,
    runs: runs.map((run, r) => ({ id: run.tag, answered: evals[r].missing.reduce((n, m) => n + (m ? 0 : 1), 0) })),
    numQueries: evals[0].numQ,
    measures: order.map((c) => names[c]),
    cells,
    pairs: rows,
  };
}

/** Hole intervals for measures that have them (not judged.k, hole.k, counts). */
function tryScorer(spec: string, set: HoleSet, relevanceLevel: number): HoleScorer | null {
  try {
    return new HoleScorer(spec, set.scale, relevanceLevel);
  } catch (e) {
    if (e instanceof MeasureSpecError) return null;
    throw e;
  }
}

/** Runs that `run` is significantly better (1) or worse (-1) than, for measure index k. */
export function significantAgainst(t: ResultsTable, run: number, k: number, sign: 1 | -1): number[] {
  const m = t.measures[k];
  const out: number[] = [];
  for (const p of t.pairs) {
    if (p.measure !== m || !p.significant) continue;
    if (p.a === run && Math.sign(p.delta) === sign) out.push(p.b);
    if (p.b === run && Math.sign(p.delta) === -sign) out.push(p.a);
  }
  return out.sort((x, y) => x - y);
}
