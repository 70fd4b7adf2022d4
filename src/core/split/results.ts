import { bootstrapMeanCIsSteps, CORRECTIONS, differences, holmAdjust, pairedTTest, randomizationSteps, winTieLoss } from '../eval/stats';
import type { Run } from '../formats/run';
import type { CompareMode, Comparison, CorrectionName, EstimateView, LengthSummary, QrelsLabel, ResultsModel, ResultsRow } from '../../protocol/webview';
import { runSteps } from '../steps';
import { estimateSteps, pairEstimate, runEstimate } from './estimates';
import { RANGE_POOL_DEPTH, RANGED, RANGED_DEPTH } from './holeRanges';
import { topDocs } from './rankings';
import { RESULT_MEASURES, type Scores } from './scores';
import type { SplitState } from './state';
import { pairVerdict, runRange, trustPending, trustSteps, type TrustNeed } from './underHoles';

// The Results panel's model: every run's means on both qrels states, each run against the baseline (tests
// and the comparison under holes), coverage and top-10 document lengths.

export const SIGNIFICANCE = { alpha: 0.05, trials: 10_000, seed: 1 } as const;
/** Bootstrap resamples of the interval of each Δ (paired, seeded: every comparison draws the same queries). */
const RESAMPLES = 10_000;

/** Which comparisons the table tests, and the correction over each measure's family of them. */
export interface Testing {
  compare: CompareMode;
  correction: CorrectionName;
}
export const DEFAULT_TESTING: Testing = { compare: 'baseline', correction: 'holm' };

/** The tests of one family of comparisons, as last computed, and on which qrels state; by pairKey(a, b). */
interface Significance {
  on: QrelsLabel;
  comparisons: Map<string, (Comparison | null)[]>;
}

/** One comparison's tests on one measure before the corrections, and the per-query values they are of. */
interface Tested {
  xb: Float64Array;
  xa: Float64Array;
  row: Omit<Comparison, 'tPHolm' | 'randPHolm' | 'tPAdj' | 'randPAdj'>;
}

/** The slot keep() holds the tests of one family in (they change with the judgements). */
interface SignificanceSlot {
  value?: Significance;
  /**
   * The last tests of each comparison and measure, by pairKey and measure: a judgement that moves neither
   * run's values of a measure (a hole judged not relevant moves none: it counted as not relevant already)
   * leaves its tests as they were, and they are not run again.
   */
  tested?: Map<string, Tested>;
}

/** Whether two vectors hold the same values, bit for bit (Object.is: -0 is not 0). */
function same(x: Float64Array, y: Float64Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  return true;
}

const pairKey = (a: string, b: string) => `${a}\t${b}`;

/**
 * The comparisons tested, each (a, b) read b - a: each run against the baseline (a = the baseline), or every
 * pair of runs in the table's order (the baseline first, so its pairs read "run - baseline" too).
 */
function pairsOf(state: SplitState, baseline: string, compare: CompareMode): [string, string][] {
  const keys = compared(state, baseline);
  if (compare === 'all-pairs') return keys.flatMap((a, i) => keys.slice(i + 1).map((b): [string, string] => [a, b]));
  return keys.filter((k) => k !== baseline).map((k): [string, string] => [baseline, k]);
}

/** What the tests depend on: the runs of the pairs, the baseline first. */
function compared(state: SplitState, baseline: string): string[] {
  return [baseline, ...state.runKeys().filter((k) => k !== baseline)];
}

function slot(state: SplitState, baseline: string, t: Testing): SignificanceSlot {
  return state.keep<SignificanceSlot>(`significance\t${t.compare}\t${t.correction}`, compared(state, baseline), () => ({}));
}

/** Whether the tests against `baseline` are still to be computed for the judgements in effect. */
export function significancePending(state: SplitState, baseline: string, t: Testing = DEFAULT_TESTING): boolean {
  return state.hasRun(baseline) && state.runKeys().length > 1 && slot(state, baseline, t).value?.on.version !== state.version;
}

/**
 * Tests of each comparison (each run against the baseline, or every pair) on the qrels in effect (with the
 * user's judgements), a thousand randomization trials per step so a caller can keep its thread responsive
 * (10,000 queries: ~20 ms a step); p-values adjusted by Holm (tPHolm, randPHolm) and by the chosen correction
 * (tPAdj, randPAdj) over the comparisons, separately per measure and per test; a paired bootstrap interval
 * of each Δ. Kept until the runs, the baseline or the judgements change; yields nothing when they are known.
 */
export function* significanceSteps(state: SplitState, baseline: string, t: Testing = DEFAULT_TESTING): Generator<void, void, undefined> {
  if (!significancePending(state, baseline, t)) return;
  const on = state.label();
  const runs = compared(state, baseline);
  const held = runs.map((k) => state.run(k));
  const pairs = pairsOf(state, baseline, t.compare);
  const correct = CORRECTIONS[t.correction].adjust;
  const last = slot(state, baseline, t).tested;
  const tested = new Map<string, Tested>();
  // The tests run afresh, with their differences for the intervals drawn below.
  const fresh: { row: Tested['row']; d: Float64Array }[] = [];
  for (const [mi, m] of RESULT_MEASURES.entries()) {
    if (!m.tested) continue;
    for (const [a, b] of pairs) {
      const key = `${pairKey(a, b)}\t${mi}`;
      const [xb, xa] = aligned(state.scores(b, 'annotated'), state.scores(a, 'annotated'), mi);
      const before = last?.get(key);
      if (before && same(before.xb, xb) && same(before.xa, xa)) {
        tested.set(key, before);
        continue;
      }
      const tt = pairedTTest(xb, xa);
      const randP = yield* randomizationSteps(xb, xa, { trials: SIGNIFICANCE.trials, seed: SIGNIFICANCE.seed });
      const row = { delta: tt.meanDiff, tP: tt.p, randP, ci: { lo: 0, hi: 0 }, ...winTieLoss(xb, xa) };
      tested.set(key, { xb, xa, row });
      if (xb.length) fresh.push({ row, d: differences(xb, xa) });
      yield;
    }
  }
  // The bootstrap intervals of every comparison and measure at once, one draw of the resamples per number of
  // queries compared (bootstrapMeanCIs: each interval is the one bootstrapDiffCI gives alone; drawing the
  // resamples again for each was most of a judgement's CPU with the Results panel open).
  for (const n of new Set(fresh.map((x) => x.d.length))) {
    const group = fresh.filter((x) => x.d.length === n);
    const cis = yield* bootstrapMeanCIsSteps(group.map((x) => x.d), { resamples: RESAMPLES, seed: SIGNIFICANCE.seed });
    group.forEach((x, i) => (x.row.ci = cis[i]));
  }
  const comparisons = new Map<string, (Comparison | null)[]>();
  for (const [a, b] of pairs) comparisons.set(pairKey(a, b), RESULT_MEASURES.map(() => null));
  for (const [mi, m] of RESULT_MEASURES.entries()) {
    if (!m.tested) continue;
    const raw = pairs.map(([a, b]) => tested.get(`${pairKey(a, b)}\t${mi}`)!.row);
    const tHolm = holmAdjust(raw.map((r) => r.tP));
    const rHolm = holmAdjust(raw.map((r) => r.randP));
    const tAdj = correct(raw.map((r) => r.tP));
    const rAdj = correct(raw.map((r) => r.randP));
    pairs.forEach(([a, b], i) => (comparisons.get(pairKey(a, b))![mi] = { ...raw[i], tPHolm: tHolm[i], randPHolm: rHolm[i], tPAdj: tAdj[i], randPAdj: rAdj[i] }));
  }
  // The runs may have changed while the steps ran: keep the result only if it is still of these runs. Tests of
  // judgements since replaced are kept too: shown as "updating" until the next ones are there.
  const now = compared(state, baseline);
  if (now.length === runs.length && now.every((k, i) => k === runs[i] && state.run(k) === held[i])) Object.assign(slot(state, baseline, t), { value: { on, comparisons }, tested });
}

/** Columns a range over the top-10 pool covers (R@100 and MAP look deeper: no range, no sound verdict). */
const inPool = (column: string): boolean => RANGED_DEPTH[column] <= RANGE_POOL_DEPTH;

/** What the results table's ranges ask for: each run's own, and each comparison tested (b - a over both runs' holes), for the columns the pool covers. */
export function resultsNeeds(state: SplitState, baseline: string | undefined, t: Testing = DEFAULT_TESTING): TrustNeed[] {
  return needsOf(state, tested(state, baseline, t.compare), inPool);
}

/** What the results table's estimates ask for: each run's own, and each comparison tested (b - a), every RANGED column. */
export function estimateNeeds(state: SplitState, baseline: string | undefined, compare: CompareMode = DEFAULT_TESTING.compare): TrustNeed[] {
  return needsOf(state, tested(state, baseline, compare), () => true);
}

const tested = (state: SplitState, baseline: string | undefined, compare: CompareMode): [string, string][] =>
  baseline !== undefined && state.hasRun(baseline) ? pairsOf(state, baseline, compare) : [];

function needsOf(state: SplitState, pairs: [string, string][], keep: (column: string) => boolean): TrustNeed[] {
  const needs: TrustNeed[] = [];
  for (const run of state.runKeys()) for (const column of Object.keys(RANGED)) if (keep(column)) needs.push({ run, column });
  for (const [a, b] of pairs) for (const m of RESULT_MEASURES) if (m.tested && m.key in RANGED && keep(m.key)) needs.push({ a, b, column: m.key });
  return needs;
}

/**
 * The results table against `baselineKey`. With `pending`, tests and ranges not computed yet are left out
 * (significancePending; the last tests computed stay, marked by `significanceOn`) instead of computed here:
 * the caller runs significanceSteps() and trustSteps() in slices. `testing` picks the comparisons (against
 * the baseline, or every pair: `pairs`) and the correction.
 */
export function resultsModel(
  state: SplitState,
  baselineKey: string,
  extra: Pick<ResultsModel, 'skipped'> & Partial<Pick<ResultsModel, 'untrusted'>>,
  options: { pending?: boolean; testing?: Testing } = {},
): ResultsModel {
  const t = options.testing ?? DEFAULT_TESTING;
  const keys = state.runKeys();
  const baseline = state.hasRun(baselineKey) ? baselineKey : keys[0];
  if (baseline !== undefined && !options.pending) runSteps(significanceSteps(state, baseline, t));
  if (!options.pending) {
    runSteps(trustSteps(state, resultsNeeds(state, baseline, t)));
    runSteps(estimateSteps(state, estimateNeeds(state, baseline, t.compare)));
  }
  const significance = baseline === undefined ? undefined : slot(state, baseline, t).value;
  const ranged = !trustPending(state, resultsNeeds(state, baseline, t));
  const annotated = state.label().state === 'annotated';
  // The baseline first: every other row is read against it.
  const order = baseline === undefined ? keys : [baseline, ...keys.filter((k) => k !== baseline)];
  const rows: ResultsRow[] = order.map((k) => ({
    ...state.ref(k),
    means: state.scores(k, 'original').means.slice(0, RESULT_MEASURES.length),
    annotated: annotated ? state.scores(k, 'annotated').means.slice(0, RESULT_MEASURES.length) : null,
    vsBaseline: t.compare === 'baseline' && k !== baseline ? (significance?.comparisons.get(pairKey(baseline!, k)) ?? null) : null,
    lengths: lengthsOf(state, k),
    ...(ranged ? trustRow(state, k, baseline) : {}),
    ...estimateRow(state, k, baseline),
    coverage: coverageOf(state, k),
  }));
  const pairs = t.compare === 'all-pairs' && baseline !== undefined
    ? pairsOf(state, baseline, 'all-pairs').map(([a, b]) => ({
        a,
        b,
        tests: significance?.comparisons.get(pairKey(a, b)) ?? null,
        settled: ranged ? RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED && inPool(m.key) ? pairVerdict(state, a, b, m.key, bothAnswered(state, a, b), SIGNIFICANCE.alpha) ?? null : null)) : null,
        estimates: estimatesOf(state, a, b),
      }))
    : null;
  return {
    dataset: state.datasetName,
    split: state.split,
    numQueries: baseline === undefined ? 0 : state.scores(baseline, 'original').queries.length,
    measures: [...RESULT_MEASURES],
    rows,
    baseline: baseline ?? '',
    ...SIGNIFICANCE,
    compare: t.compare,
    correction: t.correction,
    pairs,
    significancePending: baseline !== undefined && significancePending(state, baseline, t),
    significanceOn: significance?.on ?? null,
    qrels: state.label(),
    judgements: state.judgementCount,
    untrusted: false,
    missingQueries: 'zero',
    ...extra,
  };
}

/** The queries both runs were evaluated on (undefined: every query of the split, the usual case). */
function bothAnswered(state: SplitState, a: string, b: string): readonly string[] | undefined {
  const all = state.qrels('original').queryIds().length;
  const qa = state.scores(a, 'annotated').queries;
  const qb = state.scores(b, 'annotated').queries;
  if (qa.length === all && qb.length === all) return undefined;
  const inB = new Set(qb);
  return qa.filter((q) => inB.has(q));
}

/** A results row's ranges (each over the run's own holes) and, against the baseline, settled or open (b - a: run - baseline). */
function trustRow(state: SplitState, key: string, baseline: string | undefined): Pick<ResultsRow, 'intervals' | 'settled'> {
  // Every query of the qrels (trec_eval -c, the usual case) is `undefined` to the ranges: no lookups.
  const all = state.qrels('original').queryIds().length;
  const own = state.scores(key, 'annotated').queries;
  const queries = own.length === all ? undefined : own;
  const compared = baseline !== undefined && baseline !== key;
  return {
    intervals: RESULT_MEASURES.map((m) => (m.key in RANGED && inPool(m.key) ? runRange(state, key, m.key, queries) ?? null : null)),
    settled: !compared ? null : RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED && inPool(m.key) ? pairVerdict(state, baseline, key, m.key, bothAnswered(state, baseline, key), SIGNIFICANCE.alpha) ?? null : null)),
  };
}

/**
 * A results row's estimates (the run's own, over every query of the qrels) and, against the baseline, the
 * estimated difference with its verdict (run - baseline), as last computed; none where the run was scored
 * on other queries than the qrels' (without -c).
 */
function estimateRow(state: SplitState, key: string, baseline: string | undefined): Pick<ResultsRow, 'estimates' | 'compared'> {
  const all = state.qrels('original').queryIds().length;
  if (state.scores(key, 'annotated').queries.length !== all) return {};
  return {
    estimates: RESULT_MEASURES.map((m) => (m.key in RANGED ? runEstimate(state, key, m.key) ?? null : null)),
    compared: baseline !== undefined && baseline !== key ? estimatesOf(state, baseline, key) : null,
  };
}

/** b - a estimated with the holes judged, by tested measure, as last computed; none unless both runs were scored on every query of the qrels. */
function estimatesOf(state: SplitState, a: string, b: string): (EstimateView | null)[] | null {
  const all = state.qrels('original').queryIds().length;
  if ([a, b].some((k) => state.scores(k, 'annotated').queries.length !== all)) return null;
  return RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED ? pairEstimate(state, a, b, m.key) ?? null : null));
}

/** Queries of the split the run answers, of those averaged over. */
export function coverageOf(state: SplitState, key: string): { answered: number; total: number } {
  const s = state.scores(key, 'original');
  return { answered: s.answered, total: s.queries.length };
}

function lengthsOf(state: SplitState, key: string): LengthSummary {
  return state.keep('lengths', [key], ([run]) => lengthSummary(state, run));
}

/** Per query of the split, the average length in words of the top-10 documents found in the corpus. */
function lengthSummary(state: SplitState, run: Run): LengthSummary {
  const perQueryMeans: number[] = [];
  for (const qid of state.qrels('original').queryIds()) {
    let sum = 0;
    let n = 0;
    for (const d of topDocs(run, qid, 10)) {
      const w = state.corpus.words(d.docId);
      if (w >= 0) {
        sum += w;
        n++;
      }
    }
    if (n > 0) perQueryMeans.push(sum / n);
  }
  return boxSummary(perQueryMeans);
}

/** Min, quartiles (linear interpolation, as numpy's default), max and mean. */
export function boxSummary(values: number[]): LengthSummary {
  if (values.length === 0) return { min: 0, q1: 0, median: 0, q3: 0, max: 0, mean: 0, queries: 0 };
  const v = [...values].sort((x, y) => x - y);
  const q = (p: number) => {
    const pos = (v.length - 1) * p;
    const lo = Math.floor(pos);
    return v[lo] + (v[Math.min(lo + 1, v.length - 1)] - v[lo]) * (pos - lo);
  };
  return { min: v[0], q1: q(0.25), median: q(0.5), q3: q(0.75), max: v[v.length - 1], mean: v.reduce((s, x) => s + x, 0) / v.length, queries: v.length };
}

/** The two runs' values of measure `mi` on the queries both were evaluated on (a's order), and those queries. */
export function aligned(a: Scores, b: Scores, mi: number): [Float64Array, Float64Array, string[]] {
  const bIndex = new Map(b.queries.map((q, i) => [q, i]));
  const xa: number[] = [];
  const xb: number[] = [];
  const queries: string[] = [];
  a.queries.forEach((q, i) => {
    const j = bIndex.get(q);
    if (j === undefined) return;
    xa.push(a.columns[mi][i]);
    xb.push(b.columns[mi][j]);
    queries.push(q);
  });
  return [Float64Array.from(xa), Float64Array.from(xb), queries];
}
