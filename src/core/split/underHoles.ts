import type { HoleVerdict, ScoreRange } from '../../protocol/webview';
import { HoleRanges } from './holeRanges';
import type { SplitState } from './state';

/**
 * Which holes a figure is ranged over, one definition for every view: a run's score over the holes in its
 * own top 10, and a comparison of a and b (always b - a) over the holes in either's top 10. A range therefore
 * never depends on which other runs a table shows, and the Results table, the Diff, the Holes meter and the
 * Judge sidebar give one comparison the same range, verdict and hole count.
 */

/** A run's range of `column`. */
export interface RangeNeed {
  run: string;
  column: string;
}

/** The range of b - a on `column`, over the holes of both. */
export interface DeltaNeed {
  a: string;
  b: string;
  column: string;
}

export type TrustNeed = RangeNeed | DeltaNeed;

/** HoleRanges kept with the state: the version of the judgements they are synced to. */
interface Kept {
  ranges: HoleRanges;
  version: number;
}

const NAME = 'ranges';

/** The pool a need is ranged over: its run, or its pair in the order (a, b). */
function poolOf(n: TrustNeed): string[] {
  return 'run' in n ? [n.run] : [n.a, n.b];
}

/** The ranges over `runs`' pool brought to the state's judgements, or undefined when not built yet. */
function synced(state: SplitState, runs: readonly string[]): HoleRanges | undefined {
  const kept = state.kept<Kept>(NAME, runs);
  if (!kept) return undefined;
  if (kept.version !== state.version) {
    const changed = state.changedSince(kept.version);
    if (changed === 'all') kept.ranges.update(state.qrels('annotated'));
    else kept.ranges.updateQueries(state.qrels('annotated'), changed);
    kept.version = state.version;
  }
  return kept.ranges;
}

function has(state: SplitState, n: TrustNeed): boolean {
  const r = synced(state, poolOf(n));
  if (!r) return false;
  return 'run' in n ? r.has(n.run, n.column) : r.hasDeltas(n.b, n.a, n.column);
}

/** Whether some range of `needs` is still to be computed (by trustSteps()). */
export function trustPending(state: SplitState, needs: readonly TrustNeed[]): boolean {
  return needs.some((n) => !has(state, n));
}

/**
 * Computes the ranges `needs` ask for, a slice at a time (a 10,000-query split takes seconds: the engine's
 * thread stays free for judgements). A pool built meanwhile is brought to the judgements made while it was
 * built; one whose runs changed meanwhile is dropped.
 */
export function* trustSteps(state: SplitState, needs: readonly TrustNeed[]): Generator<void, void, undefined> {
  for (const n of needs) {
    const runs = poolOf(n);
    if (!runs.every((k) => state.hasRun(k))) continue;
    if (!state.kept<Kept>(NAME, runs)) {
      const objects = runs.map((k) => state.run(k));
      const qrels = state.qrels('annotated');
      const built = yield* HoleRanges.build({ qrels, runs: new Map(runs.map((k, i) => [k, objects[i]])), scale: state.gradeScale(), relevanceLevel: state.relevanceLevel });
      if (!runs.every((k, i) => state.hasRun(k) && state.run(k) === objects[i])) continue;
      built.update(state.qrels('annotated'));
      state.keep<Kept>(NAME, runs, () => ({ ranges: built, version: state.version }));
    }
    const r = synced(state, runs)!;
    yield* 'run' in n ? r.fill(n.run, n.column) : r.fillDeltas(n.b, n.a, n.column);
  }
}

/** A run's range of `column` over `queries` (default all), if computed. */
export function runRange(state: SplitState, run: string, column: string, queries?: readonly string[]): ScoreRange | undefined {
  const r = synced(state, [run]);
  return r?.has(run, column) ? r.range(run, column, queries) : undefined;
}

/** b - a on `column` over `queries` (default all): its range and verdict, if computed. */
export function pairVerdict(state: SplitState, a: string, b: string, column: string, queries?: readonly string[], alpha = 0.05): HoleVerdict | undefined {
  const r = synced(state, [a, b]);
  return r?.hasDeltas(b, a, column) ? r.verdict(b, a, column, queries, alpha) : undefined;
}

/** Per query of `queries`, the range of b - a on `column` (undefined where the query is not pooled), if computed. */
export function pairDeltas(state: SplitState, a: string, b: string, column: string, queries: readonly string[]): ({ lo: number; hi: number } | undefined)[] | undefined {
  const r = synced(state, [a, b]);
  return r?.hasDeltas(b, a, column) ? r.deltasOf(b, a, column, queries) : undefined;
}
