import { HoleEstimator, HoleScorer, prepareHolesSteps, SampleQueue, SharedListScores, estimateVerdict, valueScorer, type HoleSet, type ValueScorer } from '../eval/holes';
import type { Run } from '../formats/run';
import { Qrels } from '../formats/qrels';
import type { EstimateView, QrelsLabel } from '../../protocol/webview';
import { cut10, MRR10, RANGED } from './holeRanges';
import type { SplitState } from './state';
import type { TrustNeed } from './underHoles';

/**
 * What the holes hide, as the views show it (issue 23): each run's estimate of every RANGED measure with
 * every hole of its own top ESTIMATE_DEPTH judged, and each compared pair's (b - a, over both runs' holes),
 * with a 95 % interval and, for a pair, a verdict (src/core/eval/holes/estimate.ts says how). The pool is
 * taken on the original qrels (with the user's changes of grades the qrels gave), so that every hole the
 * user judges teaches the relevance model; the estimators are kept with the state by the runs they are of
 * and follow the judgements from changedSince() (one query a judgement). An estimate takes a few
 * milliseconds: views get the last one computed, named by the qrels it is of, and estimateSteps() brings
 * them up to date in the background. The judging meter's pair also has the sampling queue.
 */

/** Holes are the unjudged documents in the top this many of the runs estimated. */
export const ESTIMATE_DEPTH = 100;
/** The seed of the sampling queue's draws. */
export const SAMPLE_SEED = 1;

interface Kept {
  estimator: HoleEstimator;
  /** The state's version the estimator's grades are synced to, and the user's changes of qrels grades it was built on. */
  version: number;
  base: string;
  /** The last estimate of each column, and the version it is of. */
  values: Map<string, { version: number; value: EstimateView }>;
  sampler?: SampleQueue;
  /** The meter's column, its estimate after each judgement while a sampling queue is open. */
  history: { judged: number; estimate: number; lo: number; hi: number }[];
  /** sampling()'s queue and count, of the state's version and sampler they were drawn for. */
  drawn?: { version: number; sampler: SampleQueue; items: { queryId: string; docId: string }[]; toDecide: number };
}

const NAME = 'estimates';

function poolOf(n: TrustNeed): string[] {
  return 'run' in n ? [n.run] : [n.a, n.b];
}

/** The scorers of the RANGED columns (MRR@10 is recip_rank cut at rank 10). */
function scorers(state: SplitState): Record<string, ValueScorer> {
  const out: Record<string, ValueScorer> = {};
  for (const [column, spec] of Object.entries(RANGED)) {
    const s = new HoleScorer(spec, state.gradeScale(), state.relevanceLevel);
    out[column] = column === MRR10 ? valueScorer(s, 10, cut10) : valueScorer(s);
  }
  return out;
}

interface Overrides {
  signature: string;
  list: { queryId: string; docId: string; grade: number }[];
}
/** overrides() of each state, of the version it was taken at (every estimate a view's model reads checks it). */
const overridesTaken = new WeakMap<SplitState, { version: number; value: Overrides }>();

/** The user's changes of grades the original qrels gave (not of holes): the pool is taken with them. */
function overrides(state: SplitState): Overrides {
  const taken = overridesTaken.get(state);
  if (taken?.version === state.version) return taken.value;
  const original = state.qrels('original');
  const list = state.userJudgements().filter((j) => original.grade(j.queryId, j.docId) !== undefined);
  const value = { signature: list.map((j) => `${j.queryId}\t${j.docId}\t${j.grade}`).join('\n'), list };
  overridesTaken.set(state, { version: state.version, value });
  return value;
}

function baseQrels(state: SplitState, list: { queryId: string; docId: string; grade: number }[]): Qrels {
  const original = state.qrels('original');
  if (list.length === 0) return original;
  let q = original;
  for (const qid of new Set(list.map((j) => j.queryId))) {
    const grades = new Map(original.get(qid) ?? []);
    for (const j of list) if (j.queryId === qid) grades.set(j.docId, j.grade);
    q = q.withQuery(qid, grades);
  }
  return q;
}

/** The hole grades of `set` from the state's judgements (the user's grades of the holes). */
function gradeOf(state: SplitState, qid: string, docId: string): number {
  const g = state.grade(qid, docId);
  return g === null ? -1 : g;
}

/** The kept estimator of `runs`, brought to the state's judgements; undefined when not built yet (or its base changed). */
function synced(state: SplitState, runs: readonly string[]): Kept | undefined {
  if (!runs.every((k) => state.hasRun(k))) return undefined;
  const kept = state.kept<Kept | undefined>(NAME, runs);
  if (!kept) return undefined;
  if (kept.version === state.version) return kept;
  if (overrides(state).signature !== kept.base) return undefined;
  const changed = state.changedSince(kept.version);
  const set = kept.estimator.set;
  const judge = (qi: number, h: number, g: number) => (kept.sampler ? kept.sampler.judge(qi, h, g) : kept.estimator.judge(qi, h, g));
  set.queries.forEach((q, qi) => {
    if (changed !== 'all' && !changed.has(q.qid)) return;
    q.holes.forEach((d, h) => {
      const g = gradeOf(state, q.qid, d);
      if (g !== q.grades[h]) judge(qi, h, g);
    });
  });
  kept.version = state.version;
  if (kept.sampler && kept.estimator.ready) record(kept, state);
  return kept;
}

/** Whether the estimate `n` asks for is of the judgements in effect (a value is only ever set for the version its estimator is synced to). */
function has(state: SplitState, n: TrustNeed): boolean {
  return state.kept<Kept | undefined>(NAME, poolOf(n))?.values.get(n.column)?.version === state.version;
}

/** Whether some estimate of `needs` is still to be computed for the judgements in effect (by estimateSteps()). */
export function estimatePending(state: SplitState, needs: readonly TrustNeed[]): boolean {
  return needs.some((n) => !has(state, n));
}

/**
 * The lists' values shared by the estimators one estimateSteps() builds (SharedListScores: a run's lists are
 * scored once for its own estimator and every pair it is in), per base qrels they are of and by run object (a
 * run re-read is another).
 */
interface Sharing {
  memos: Map<string, SharedListScores>;
  runs: Map<Run, number>;
}

/** Builds the estimator of `runs` a slice at a time (the pool, then each query's effects). */
function* buildSteps(state: SplitState, runs: readonly string[], sharing?: Sharing): Generator<void, Kept | undefined, undefined> {
  const objects = runs.map((k) => state.run(k));
  const { signature, list } = overrides(state);
  let shared: { memo: SharedListScores; runs: number[] } | undefined;
  if (sharing) {
    let memo = sharing.memos.get(signature);
    if (!memo) sharing.memos.set(signature, (memo = new SharedListScores()));
    const index = (r: Run): number => {
      let i = sharing.runs.get(r);
      if (i === undefined) sharing.runs.set(r, (i = sharing.runs.size));
      return i;
    };
    shared = { memo, runs: objects.map(index) };
  }
  const set: HoleSet = yield* prepareHolesSteps(baseQrels(state, list), objects, { poolDepth: ESTIMATE_DEPTH });
  const version = state.version;
  set.queries.forEach((q) => q.holes.forEach((d, h) => (q.grades[h] = gradeOf(state, q.qid, d))));
  const estimator = new HoleEstimator(set, runs.map((_, i) => i), scorers(state), { relevanceLevel: state.relevanceLevel, steps: true, shared });
  yield* estimator.fillSteps();
  if (!runs.every((k, i) => state.hasRun(k) && state.run(k) === objects[i])) return undefined;
  const kept: Kept = { estimator, version, base: signature, values: new Map(), history: [] };
  state.keep<Kept | undefined>(NAME, runs, () => kept);
  // Replaces an estimator whose base changed (keep() holds one value per runs).
  if (state.kept<Kept>(NAME, runs) !== kept) replace(state, runs, kept);
  return synced(state, runs);
}

/**
 * Puts `kept` in the place of what keep() holds for `runs` (an estimator whose base qrels changed). The old
 * sampling queue and its draw go with the old estimator: a queue left on it would take the judgements after
 * this, and the estimates it is asked for would not be there.
 */
function replace(state: SplitState, runs: readonly string[], kept: Kept): void {
  const old = state.kept<Kept>(NAME, runs)!;
  Object.assign(old, kept, { sampler: undefined, drawn: undefined });
}

/** Computes the estimates `needs` ask for, a slice at a time: the estimators first, then one estimate a step. */
export function* estimateSteps(state: SplitState, needs: readonly TrustNeed[]): Generator<void, void, undefined> {
  const sharing: Sharing = { memos: new Map(), runs: new Map() };
  for (const n of needs) {
    const runs = poolOf(n);
    if (!runs.every((k) => state.hasRun(k))) continue;
    const kept = synced(state, runs) ?? (yield* buildSteps(state, runs, sharing));
    if (!kept) continue;
    if (kept.values.get(n.column)?.version !== state.version) {
      kept.values.set(n.column, { version: state.version, value: view(kept, n.column, runs.length === 2, state.label()) });
      yield;
    }
  }
}

function view(kept: Kept, column: string, pair: boolean, on: QrelsLabel): EstimateView {
  const e = kept.estimator.estimate(column);
  return {
    now: e.now,
    estimate: e.estimate,
    lo: e.lo,
    hi: e.hi,
    holes: e.holes,
    judged: e.judged,
    depth: ESTIMATE_DEPTH,
    ...(pair ? { verdict: estimateVerdict(e.lo, e.hi) } : {}),
    on,
  };
}

/**
 * The estimate of `column` over `runs` as last computed, without bringing the estimator to the judgements: that
 * catch-up (every judged query's part, per measure) is the background's, and a view's first model after a
 * judgement, which waits for this, shows the last value either way (`on` says which judgements it is of).
 * Undefined when none was computed, or when the user's changes of qrels grades it was built on are no longer so.
 */
function lastEstimate(state: SplitState, runs: readonly string[], column: string): EstimateView | undefined {
  const kept = state.kept<Kept | undefined>(NAME, runs);
  if (!kept || (kept.version !== state.version && overrides(state).signature !== kept.base)) return undefined;
  return kept.values.get(column)?.value;
}

/** A run's estimate of `column` as last computed (it may be of earlier judgements: `on` says), if any. */
export function runEstimate(state: SplitState, run: string, column: string): EstimateView | undefined {
  return lastEstimate(state, [run], column);
}

/** b - a on `column`: the estimate, interval and verdict as last computed, if any. */
export function pairEstimate(state: SplitState, a: string, b: string, column: string): EstimateView | undefined {
  return lastEstimate(state, [a, b], column);
}

// The sampling queue and its meter.

/** The meter's column of the pair's estimate after the last judgement (the narrowing plot's points). */
function record(kept: Kept, state: SplitState): void {
  const column = kept.sampler!.measure;
  const judged = kept.estimator.model.observations;
  const last = kept.history[kept.history.length - 1];
  if (last && last.judged === judged) kept.history.pop();
  const value = view(kept, column, true, state.label());
  kept.values.set(column, { version: state.version, value });
  kept.history.push({ judged, estimate: value.estimate, lo: value.lo, hi: value.hi });
}

/**
 * The sampling queue of the pair (a, b) on `column` (built now if need be: judging waits for it once), with
 * the pair's current estimate, its history since the queue was opened and about how many more judgements
 * give a verdict.
 */
export function sampling(state: SplitState, a: string, b: string, column: string): { items: { queryId: string; docId: string }[]; estimate: EstimateView; history: Kept['history']; toDecide: number } {
  let kept = synced(state, [a, b]);
  if (!kept) {
    const build = buildSteps(state, [a, b]);
    let r = build.next();
    while (!r.done) r = build.next();
    kept = r.value!;
  }
  if (!kept.sampler || kept.sampler.measure !== column) {
    kept.sampler = new SampleQueue(kept.estimator, column, SAMPLE_SEED);
    kept.history = [];
    record(kept, state);
  }
  const sampler = kept.sampler;
  // The views of one judgement ask several times (the Holes panel's queue and meter, the sidebar's meter and
  // pool): the queue is drawn once per judgement (each draw took ~0.3 s of CPU on SciFact).
  if (kept.drawn?.version !== state.version || kept.drawn.sampler !== sampler) {
    kept.drawn = { version: state.version, sampler, items: sampler.upcoming().map((i) => ({ queryId: i.qid, docId: i.docId })), toDecide: sampler.toDecide() };
  }
  return {
    // A copy: callers append the rest of the pool to it.
    items: kept.drawn.items.slice(),
    estimate: kept.values.get(column)!.value,
    history: kept.history,
    toDecide: kept.drawn.toDecide,
  };
}
