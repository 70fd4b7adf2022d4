import { holmAdjust, pairedTTest, randomizationSteps, winTieLoss } from '../eval/stats';
import type { Run } from '../formats/run';
import type { Comparison, LengthSummary, QrelsLabel, ResultsModel, ResultsRow } from '../../protocol/webview';
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

/** The tests against a baseline, as last computed, and on which qrels state. */
interface Significance {
  on: QrelsLabel;
  comparisons: Map<string, (Comparison | null)[]>;
}

/** The slot keep() holds the tests of one baseline and run set in (they change with the judgements). */
interface SignificanceSlot {
  value?: Significance;
}

/** The baseline first, then the runs it is compared with: what the tests depend on. */
function compared(state: SplitState, baseline: string): string[] {
  return [baseline, ...state.runKeys().filter((k) => k !== baseline)];
}

function slot(state: SplitState, baseline: string): SignificanceSlot {
  return state.keep<SignificanceSlot>('significance', compared(state, baseline), () => ({}));
}

/** Whether the tests against `baseline` are still to be computed for the judgements in effect. */
export function significancePending(state: SplitState, baseline: string): boolean {
  return state.hasRun(baseline) && state.runKeys().length > 1 && slot(state, baseline).value?.on.version !== state.version;
}

/**
 * Tests of each run against the baseline on the qrels in effect (with the user's judgements), a thousand
 * randomization trials per step so a caller can keep its thread responsive (10,000 queries: ~20 ms a step);
 * Holm over the compared runs, separately per measure and per test. Kept until the runs, the baseline or the
 * judgements change; yields nothing when they are known.
 */
export function* significanceSteps(state: SplitState, baseline: string): Generator<void, void, undefined> {
  if (!significancePending(state, baseline)) return;
  const on = state.label();
  const runs = compared(state, baseline);
  const held = runs.map((k) => state.run(k));
  const others = runs.slice(1);
  const base = state.scores(baseline, 'annotated');
  const comparisons = new Map<string, (Comparison | null)[]>();
  for (const k of others) comparisons.set(k, RESULT_MEASURES.map(() => null));
  for (const [mi, m] of RESULT_MEASURES.entries()) {
    if (!m.tested) continue;
    const raw: Omit<Comparison, 'tPHolm' | 'randPHolm'>[] = [];
    for (const k of others) {
      const [a, b] = aligned(state.scores(k, 'annotated'), base, mi);
      const t = pairedTTest(a, b);
      const randP = yield* randomizationSteps(a, b, { trials: SIGNIFICANCE.trials, seed: SIGNIFICANCE.seed });
      raw.push({ delta: t.meanDiff, tP: t.p, randP, ...winTieLoss(a, b) });
      yield;
    }
    const tHolm = holmAdjust(raw.map((r) => r.tP));
    const rHolm = holmAdjust(raw.map((r) => r.randP));
    others.forEach((k, i) => (comparisons.get(k)![mi] = { ...raw[i], tPHolm: tHolm[i], randPHolm: rHolm[i] }));
  }
  // The runs may have changed while the steps ran: keep the result only if it is still of these runs. Tests of
  // judgements since replaced are kept too: shown as "updating" until the next ones are there.
  const now = compared(state, baseline);
  if (now.length === runs.length && now.every((k, i) => k === runs[i] && state.run(k) === held[i])) slot(state, baseline).value = { on, comparisons };
}

/** Columns a range over the top-10 pool covers (R@100 and MAP look deeper: no range, no sound verdict). */
const inPool = (column: string): boolean => RANGED_DEPTH[column] <= RANGE_POOL_DEPTH;

/** What the results table's ranges ask for: each run's own, and each run against the baseline, for the columns the pool covers. */
export function resultsNeeds(state: SplitState, baseline: string | undefined): TrustNeed[] {
  return estimateNeeds(state, baseline).filter((n) => inPool(n.column));
}

/** What the results table's estimates ask for: each run's own, and each run against the baseline, every RANGED column. */
export function estimateNeeds(state: SplitState, baseline: string | undefined): TrustNeed[] {
  const needs: TrustNeed[] = [];
  for (const run of state.runKeys()) for (const column of Object.keys(RANGED)) needs.push({ run, column });
  if (baseline !== undefined && state.hasRun(baseline)) {
    for (const b of state.runKeys()) {
      if (b !== baseline) for (const m of RESULT_MEASURES) if (m.tested && m.key in RANGED) needs.push({ a: baseline, b, column: m.key });
    }
  }
  return needs;
}

/**
 * The results table against `baselineKey`. With `pending`, tests and ranges not computed yet are left out
 * (significancePending; the last tests computed stay, marked by `significanceOn`) instead of computed here:
 * the caller runs significanceSteps() and trustSteps() in slices.
 */
export function resultsModel(
  state: SplitState,
  baselineKey: string,
  extra: Pick<ResultsModel, 'skipped'> & Partial<Pick<ResultsModel, 'untrusted'>>,
  options: { pending?: boolean } = {},
): ResultsModel {
  const keys = state.runKeys();
  const baseline = state.hasRun(baselineKey) ? baselineKey : keys[0];
  if (baseline !== undefined && !options.pending) runSteps(significanceSteps(state, baseline));
  if (!options.pending) {
    runSteps(trustSteps(state, resultsNeeds(state, baseline)));
    runSteps(estimateSteps(state, estimateNeeds(state, baseline)));
  }
  const significance = baseline === undefined ? undefined : slot(state, baseline).value;
  const ranged = !trustPending(state, resultsNeeds(state, baseline));
  const annotated = state.label().state === 'annotated';
  const rows: ResultsRow[] = keys.map((k) => ({
    ...state.ref(k),
    means: state.scores(k, 'original').means.slice(0, RESULT_MEASURES.length),
    annotated: annotated ? state.scores(k, 'annotated').means.slice(0, RESULT_MEASURES.length) : null,
    vsBaseline: significance?.comparisons.get(k) ?? null,
    lengths: lengthsOf(state, k),
    ...(ranged ? trustRow(state, k, baseline) : {}),
    ...estimateRow(state, k, baseline),
    coverage: coverageOf(state, k),
  }));
  return {
    dataset: state.datasetName,
    split: state.split,
    numQueries: baseline === undefined ? 0 : state.scores(baseline, 'original').queries.length,
    measures: [...RESULT_MEASURES],
    rows,
    baseline: baseline ?? '',
    ...SIGNIFICANCE,
    significancePending: baseline !== undefined && significancePending(state, baseline),
    significanceOn: significance?.on ?? null,
    qrels: state.label(),
    judgements: state.judgementCount,
    untrusted: false,
    missingQueries: 'zero',
    ...extra,
  };
}

/** A results row's ranges (each over the run's own holes) and, against the baseline, settled or open (b - a: run - baseline). */
function trustRow(state: SplitState, key: string, baseline: string | undefined): Pick<ResultsRow, 'intervals' | 'settled'> {
  // Every query of the qrels (trec_eval -c, the usual case) is `undefined` to the ranges: no lookups.
  const all = state.qrels('original').queryIds().length;
  const own = state.scores(key, 'annotated').queries;
  const queries = own.length === all ? undefined : own;
  const base = baseline === undefined || baseline === key ? undefined : state.scores(baseline, 'annotated').queries;
  // The queries both runs were evaluated on (undefined: all of them); null without a baseline to compare with.
  let both: readonly string[] | undefined | null = null;
  if (base && queries === undefined && base.length === all) both = undefined;
  else if (base) {
    const inBase = new Set(base);
    both = own.filter((q) => inBase.has(q));
  }
  return {
    intervals: RESULT_MEASURES.map((m) => (m.key in RANGED && inPool(m.key) ? runRange(state, key, m.key, queries) ?? null : null)),
    settled: both === null ? null : RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED && inPool(m.key) ? pairVerdict(state, baseline!, key, m.key, both, SIGNIFICANCE.alpha) ?? null : null)),
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
  const vs = baseline !== undefined && baseline !== key && state.scores(baseline, 'annotated').queries.length === all;
  return {
    estimates: RESULT_MEASURES.map((m) => (m.key in RANGED ? runEstimate(state, key, m.key) ?? null : null)),
    compared: vs ? RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED ? pairEstimate(state, baseline!, key, m.key) ?? null : null)) : null,
  };
}

/** Queries of the split the run answers, of those averaged over. */
function coverageOf(state: SplitState, key: string): { answered: number; total: number } {
  return state.keep('coverage', [key], ([run]) => {
    const queries = state.scores(key, 'original').queries;
    return { answered: queries.filter((q) => run.queryIndex(q) >= 0).length, total: queries.length };
  });
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

/** The two runs' values of measure `mi` on the queries both were evaluated on, in the same order. */
function aligned(a: Scores, b: Scores, mi: number): [Float64Array, Float64Array] {
  const bIndex = new Map(b.queries.map((q, i) => [q, i]));
  const xa: number[] = [];
  const xb: number[] = [];
  a.queries.forEach((q, i) => {
    const j = bIndex.get(q);
    if (j === undefined) return;
    xa.push(a.columns[mi][i]);
    xb.push(b.columns[mi][j]);
  });
  return [Float64Array.from(xa), Float64Array.from(xb)];
}
