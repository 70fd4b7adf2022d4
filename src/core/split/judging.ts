import type { AnnotationItem, JudgingMeter, QrelsLabel, QueueOrder, ReferenceDoc } from '../../protocol/webview';
import { runSteps } from '../steps';
import { sampling } from './estimates';
import { impactJudging } from './impact';
import { pool, userPool, type Pair } from './pool';
import { SIGNIFICANCE } from './results';
import { RESULT_MEASURES } from './scores';
import type { SplitState } from './state';
import { pairVerdict, trustSteps } from './underHoles';

// What judging works from: the queue (blind, impact order or the sampling queue for the first two pooled
// runs), the meter of that comparison, and the pair the Judge sidebar shows.

const COLUMN = RESULT_MEASURES[0].key;

/**
 * The pool of `keys` at `depth` in impact order: the unjudged holes of the first two runs by how much judging
 * them is expected to narrow their comparison on nDCG@10 (blind: no run, ties shuffled with a fixed seed),
 * then the other runs' holes in blind order; with the meter. Null with fewer than two runs.
 */
export function impactQueue(state: SplitState, keys: readonly string[], depth: number): { items: Pair[]; meter: JudgingMeter } | null {
  const meter = judgingMeter(state, keys, depth);
  if (!meter) return null;
  return { items: thenTheRest(state, impactJudging(state, meter.a.key, meter.b.key, depth).items(), keys, depth), meter };
}

/**
 * The sampling queue of the first two of `keys` (estimates.ts: holes of their top 100 drawn where judging
 * them narrows the estimate of b - a on nDCG@10 most, seeded, blind), then the other runs' holes of the
 * depth-k pool in blind order; with the meter and its estimate. Null with fewer than two runs.
 */
export function sampleQueue(state: SplitState, keys: readonly string[], depth: number): { items: Pair[]; meter: JudgingMeter } | null {
  const meter = judgingMeter(state, keys, depth, 'sample');
  if (!meter) return null;
  return { items: thenTheRest(state, sampling(state, meter.a.key, meter.b.key, COLUMN).items, keys, depth), meter };
}

/** `first`, then the pool's other unjudged pairs in blind order. */
function thenTheRest(state: SplitState, first: Pair[], keys: readonly string[], depth: number): Pair[] {
  const seen = new Set(first.map((p) => `${p.queryId}\t${p.docId}`));
  for (const p of pool(state, keys, depth)) if (!seen.has(`${p.queryId}\t${p.docId}`)) first.push(p);
  return first;
}

/**
 * The meter of the comparison the impact and sampling orders work on: b - a for the first two of `keys`,
 * with the range, verdict and hole count every other view gives the same pair (underHoles.ts), whatever
 * depth is pooled; with the sampling order, the estimate, its history and about how many more judgements
 * give a verdict.
 */
export function judgingMeter(state: SplitState, keys: readonly string[], depth: number, order: QueueOrder = 'impact'): JudgingMeter | null {
  const [a, b] = keys.filter((k) => state.hasRun(k));
  if (a === undefined || b === undefined) return null;
  runSteps(trustSteps(state, [{ a, b, column: COLUMN }]));
  const meter: JudgingMeter = {
    a: state.ref(a),
    b: state.ref(b),
    measure: RESULT_MEASURES[0].label,
    verdict: pairVerdict(state, a, b, COLUMN, undefined, SIGNIFICANCE.alpha)!,
    judged: impactJudging(state, a, b, depth).judged,
    qrels: state.label(),
  };
  if (order !== 'sample') return meter;
  const s = sampling(state, a, b, COLUMN);
  return { ...meter, judged: s.estimate.judged, estimate: s.estimate, history: s.history, toDecide: s.toDecide };
}

/** The judging queue in an order: impact, sample, or the blind pool keeping the user's judgements. */
export function judgingQueue(state: SplitState, keys: readonly string[], depth: number, order: QueueOrder = 'blind'): { items: Pair[]; firstUnjudged: number } {
  const ordered = order === 'impact' ? impactQueue(state, keys, depth) : order === 'sample' ? sampleQueue(state, keys, depth) : null;
  const items = ordered?.items ?? userPool(state, keys, depth);
  const first = items.findIndex((p) => state.grade(p.queryId, p.docId) === null);
  return { items, firstUnjudged: first < 0 ? 0 : first };
}

/** Per run, nDCG@10 with the original qrels (holes count as non-relevant) and with the user's judgements. */
export function annotatedScores(state: SplitState): { label: string; original: number; annotated: number }[] {
  return state.runRefs().map((r) => ({
    label: r.label,
    original: state.scores(r.key, 'original').means[0],
    annotated: state.scores(r.key, 'annotated').means[0],
  }));
}

/** The Judge sidebar's state for one pair, from the engine. */
export interface PairState {
  judged: number;
  grades: number[];
  item: Omit<AnnotationItem, 'queryId' | 'docId'> | null;
  /** Whether the pair's query and document are in the dataset (the item's texts say so in words otherwise). */
  found: { query: boolean; doc: boolean };
  scores: { label: string; original: number; annotated: number }[];
  meter: JudgingMeter | null;
  qrels: QrelsLabel;
  /** The pairs asked for after it (`ahead`), as the sidebar shows them. */
  ahead: AnnotationItem[];
  /** For each query of the pair and those ahead: its documents judged relevant, for reference. */
  references: { queryId: string; docs: ReferenceDoc[]; more: number }[];
}

/** Documents listed per query for reference (the rest are counted): titles of the best-graded first. */
export const REFERENCES_LISTED = 10;

/** The notes of the user's judgements of some pairs (the annotations journal, as the engine's index holds it). */
export type NotesOf = (pairs: readonly Pair[]) => (string | undefined)[];

/**
 * What the sidebar shows for one pair and the pairs `ahead` of it (or only the split's figures, without a
 * pair), with the meter asked for and, per query shown, the documents judged relevant for it.
 */
export async function pairState(
  state: SplitState,
  a: { queryId?: string; docId?: string; impact?: { runs: string[]; depth: number; order?: QueueOrder }; ahead?: Pair[] },
  notes: NotesOf = (pairs) => pairs.map(() => undefined),
): Promise<PairState> {
  const pairs = [...(a.queryId !== undefined && a.docId !== undefined ? [{ queryId: a.queryId, docId: a.docId }] : []), ...(a.ahead ?? [])];
  const docs = await Promise.all(pairs.map((p) => state.corpus.read(p.docId)));
  const items = pairs.map((p, i) => shownItem(state, p, docs[i]));
  notes(pairs).forEach((note, i) => {
    if (note !== undefined && note !== '') items[i].note = note;
  });
  let item: PairState['item'] = null;
  const found = { query: false, doc: false };
  if (a.queryId !== undefined && a.docId !== undefined) {
    const { queryId: _q, docId: _d, ...rest } = items[0];
    item = rest;
    found.query = state.queries.has(a.queryId);
    found.doc = docs[0] !== null;
  }
  const meter = a.impact ? judgingMeter(state, a.impact.runs, a.impact.depth, a.impact.order) : null;
  const queries = [...new Set(pairs.map((p) => p.queryId))];
  return {
    judged: state.judgementCount,
    grades: state.gradeScale(),
    item,
    found,
    scores: annotatedScores(state),
    meter,
    qrels: state.label(),
    ahead: items.slice(item ? 1 : 0),
    references: await Promise.all(queries.map((q) => references(state, q))),
  };
}

function shownItem(state: SplitState, p: Pair, doc: { title: string; text: string } | null): AnnotationItem {
  return {
    queryId: p.queryId,
    queryText: state.queries.get(p.queryId)?.text ?? '',
    docId: p.docId,
    title: doc?.title ?? '',
    text: doc?.text ?? '(this document is not in the corpus)',
    grade: state.grade(p.queryId, p.docId),
  };
}

/** A query's documents judged relevant (qrels and the user's), highest grade first, with their titles. */
async function references(state: SplitState, queryId: string): Promise<{ queryId: string; docs: ReferenceDoc[]; more: number }> {
  const judged = state.qrels('annotated').get(queryId) ?? new Map<string, number>();
  const relevant = [...judged].filter(([, g]) => g >= state.relevanceLevel).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const listed = relevant.slice(0, REFERENCES_LISTED);
  const docs = await Promise.all(listed.map(async ([docId, grade]) => ({
    docId,
    title: (await state.corpus.read(docId))?.title ?? '',
    grade,
    yours: state.userGrade(queryId, docId) !== undefined,
  })));
  return { queryId, docs, more: relevant.length - listed.length };
}
