import { evaluate } from '../eval';
import { holmAdjust, pairedTTest, randomizationTest, winTieLoss } from '../eval/stats';
import type { BeirQuery } from '../formats/beir';
import { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import type {
  Comparison,
  DiffModel,
  HoleRow,
  LengthSummary,
  MeasureColumn,
  Move,
  QueryDetail,
  RankedDoc,
  ResultsModel,
  ResultsRow,
  RunRef,
} from '../../protocol/webview';
import { snippet, type CorpusIndex } from './corpusIndex';

/**
 * The measures of the results table. MRR@10 is recip_rank evaluated on each query's top 10 only (trec_eval
 * -M 10 -m recip_rank), as MS MARCO and BEIR report MRR@10; trec_eval's plain recip_rank looks at the whole
 * ranking.
 */
export const RESULT_MEASURES: readonly MeasureColumn[] = [
  { key: 'ndcg_cut_10', label: 'nDCG@10', tested: true },
  { key: 'recall_100', label: 'R@100', tested: true },
  { key: 'map', label: 'MAP', tested: true },
  { key: 'recip_rank_10', label: 'MRR@10', tested: true },
  { key: 'P_10', label: 'P@10', tested: true },
  { key: 'judged_10', label: 'Judged@10', tested: false },
  { key: 'hole_10', label: 'Hole@10', tested: false, lowerIsBetter: true },
];
const TREC_MEASURES = ['ndcg_cut.10', 'recall.100', 'map', 'recip_rank', 'P.10', 'judged.10', 'hole.10', 'unj.10'];
/** Scores hold the RESULT_MEASURES columns, then these (for the holes view). */
const EXTRA_COLUMNS = ['unj_10'];

export const SIGNIFICANCE = { alpha: 0.05, trials: 10_000, seed: 1 } as const;

/** Per-query values of every RESULT_MEASURES column for one run, over the evaluated queries. */
export interface Scores {
  queries: string[];
  /** columns[m][q]: measure m (RESULT_MEASURES order, then EXTRA_COLUMNS) on queries[q]. */
  columns: Float64Array[];
  means: number[];
}

export interface SessionOptions {
  datasetDir: string;
  datasetName: string;
  split: string;
  qrels: Qrels;
  queries: Map<string, BeirQuery>;
  corpus: CorpusIndex;
  /** The user's judgements recorded so far (annotation files): they override the qrels. */
  judgements?: Iterable<{ queryId: string; docId: string; grade: number }>;
  /** trec_eval -c (default true, as BEIR reports). */
  complete?: boolean;
  relevanceLevel?: number;
}

interface RunEntry extends RunRef {
  run: Run;
  original?: Scores;
  effective?: Scores;
  lengths?: LengthSummary;
}

/**
 * Everything the analysis views show for one dataset split: its qrels, the user's judgements over them, the
 * runs being compared and their scores. Pure (no editor): the extension host keeps one per open split and
 * turns its answers into webview messages.
 */
export class AnalysisSession {
  readonly datasetDir: string;
  readonly datasetName: string;
  readonly split: string;
  readonly original: Qrels;
  readonly queries: Map<string, BeirQuery>;
  readonly corpus: CorpusIndex;
  readonly complete: boolean;
  readonly relevanceLevel: number;
  /** The user's judgements, `${qid}\t${docid}` -> grade (a negative grade restores "unjudged"). */
  private readonly overlay = new Map<string, { queryId: string; docId: string; grade: number }>();
  private effectiveQrels: Qrels;
  private readonly runs = new Map<string, RunEntry>();
  private comparisonCache: { key: string; value: Map<string, (Comparison | null)[]> } | undefined;
  /** Bumped on each judgement: views use it to know their figures are stale. */
  version = 0;

  constructor(o: SessionOptions) {
    this.datasetDir = o.datasetDir;
    this.datasetName = o.datasetName;
    this.split = o.split;
    this.original = o.qrels;
    this.queries = o.queries;
    this.corpus = o.corpus;
    this.complete = o.complete ?? true;
    this.relevanceLevel = o.relevanceLevel ?? 1;
    for (const j of o.judgements ?? []) this.overlay.set(`${j.queryId}\t${j.docId}`, { ...j });
    this.effectiveQrels = this.merge();
  }

  /** The user's judgements in effect, counted as the Datasets tree counts them (an undo to unjudged is not one). */
  get judgementCount(): number {
    let n = 0;
    for (const j of this.overlay.values()) if (j.grade >= 0) n++;
    return n;
  }

  /** Qrels with the user's judgements merged in (theirs win). */
  get qrels(): Qrels {
    return this.effectiveQrels;
  }

  /** Adds (or replaces) a run; `original` are its scores on the original qrels when already computed. */
  addRun(key: string, label: string, run: Run, original?: Scores): void {
    this.runs.set(key, { key, label, run, original });
    this.comparisonCache = undefined;
  }

  /** Names the runs as the store's discovery does (runLabels), so every view and the tree agree. */
  relabel(labels: ReadonlyMap<string, string>): void {
    for (const e of this.runs.values()) e.label = labels.get(e.key) ?? e.label;
    this.comparisonCache = undefined;
  }

  removeRun(key: string): void {
    if (this.runs.delete(key)) this.comparisonCache = undefined;
  }

  hasRun(key: string): boolean {
    return this.runs.has(key);
  }

  runRefs(): RunRef[] {
    return [...this.runs.values()].map(({ key, label }) => ({ key, label }));
  }

  run(key: string): Run {
    return this.entry(key).run;
  }

  /** Records a judgement in memory (the caller has made it durable first) and invalidates the scores it moves. */
  judge(queryId: string, docId: string, grade: number): void {
    const k = `${queryId}\t${docId}`;
    this.overlay.delete(k);
    this.overlay.set(k, { queryId, docId, grade });
    this.effectiveQrels = this.merge();
    for (const r of this.runs.values()) r.effective = undefined;
    this.version++;
  }

  /**
   * Takes the user's judgements as now on disk (the annotations file changed outside this view: another
   * window, an edit, a deleted file). Returns false, changing nothing, when they are the ones already held.
   */
  replaceJudgements(judgements: Iterable<{ queryId: string; docId: string; grade: number }>): boolean {
    const next = new Map<string, { queryId: string; docId: string; grade: number }>();
    for (const j of judgements) next.set(`${j.queryId}\t${j.docId}`, { queryId: j.queryId, docId: j.docId, grade: j.grade });
    if (next.size === this.overlay.size && [...next].every(([k, j]) => this.overlay.get(k)?.grade === j.grade)) return false;
    this.overlay.clear();
    for (const [k, j] of next) this.overlay.set(k, j);
    this.effectiveQrels = this.merge();
    for (const r of this.runs.values()) r.effective = undefined;
    this.version++;
    return true;
  }

  /** The effective grade, or null when the document is not judged (>= 0) for the query. */
  grade(queryId: string, docId: string): number | null {
    const g = this.effectiveQrels.grade(queryId, docId);
    return g === undefined || g < 0 ? null : g;
  }

  /** The user's grade for (query, document), if they gave one. */
  userGrade(queryId: string, docId: string): number | undefined {
    return this.overlay.get(`${queryId}\t${docId}`)?.grade;
  }

  /** `${qid}\t${docid}` of every pair the user judged (pool() keeps these, so pools do not shrink as one judges). */
  userJudged(): Set<string> {
    return new Set(this.overlay.keys());
  }

  /** The grade scale of the dataset: the non-negative grades of its qrels (0 always included). */
  gradeScale(): number[] {
    const seen = new Set<number>([0]);
    for (const qid of this.original.queryIds()) for (const g of this.original.judgements(qid)!.grades) if (g >= 0) seen.add(g);
    return [...seen].sort((a, b) => a - b);
  }

  scores(key: string, which: 'original' | 'effective'): Scores {
    const e = this.entry(key);
    if (which === 'original') return (e.original ??= this.evaluateRun(this.original, e.run));
    if (this.overlay.size === 0) return this.scores(key, 'original');
    return (e.effective ??= this.evaluateRun(this.effectiveQrels, e.run));
  }

  /**
   * The results table against `baselineKey`. With `pending`, significance not computed yet is left out
   * (significancePending) instead of computed here: the caller runs significanceSteps() in slices.
   */
  results(baselineKey: string, extra: Pick<ResultsModel, 'skipped' | 'untrusted'>, options: { pending?: boolean } = {}): ResultsModel {
    const keys = [...this.runs.keys()];
    const baseline = this.runs.has(baselineKey) ? baselineKey : keys[0];
    if (baseline !== undefined && !options.pending) drain(this.significanceSteps(baseline));
    const comparisons = baseline !== undefined && this.comparisonCache?.key === this.comparisonKey(baseline) ? this.comparisonCache.value : undefined;
    const rows: ResultsRow[] = keys.map((k) => {
      const e = this.entry(k);
      return {
        key: k,
        label: e.label,
        means: this.scores(k, 'original').means.slice(0, RESULT_MEASURES.length),
        annotated: this.overlay.size ? this.scores(k, 'effective').means.slice(0, RESULT_MEASURES.length) : null,
        vsBaseline: comparisons?.get(k) ?? null,
        lengths: (e.lengths ??= this.lengthSummary(e.run)),
        coverage: { answered: this.scores(k, 'original').queries.filter((q) => e.run.queryIndex(q) >= 0).length, total: this.scores(k, 'original').queries.length },
      };
    });
    return {
      dataset: this.datasetName,
      split: this.split,
      numQueries: baseline === undefined ? 0 : this.scores(baseline, 'original').queries.length,
      measures: [...RESULT_MEASURES],
      rows,
      baseline: baseline ?? '',
      ...SIGNIFICANCE,
      significancePending: baseline !== undefined && keys.length > 1 && comparisons === undefined,
      judgements: this.judgementCount,
      missingQueries: 'zero',
      ...extra,
    };
  }

  private comparisonKey(baseline: string): string {
    return [baseline, ...[...this.runs.keys()].filter((k) => k !== baseline)].join('\n');
  }

  /**
   * Tests of each run against the baseline on the original qrels, one (run, measure) per step so a caller
   * can keep its thread responsive (10,000 queries: ~0.2 s a step); Holm over the compared runs, separately
   * per measure and per test. Judgements do not change these, so they are kept once computed (until the
   * baseline or the runs change). Yields nothing when they are already known.
   */
  *significanceSteps(baseline: string): Generator<void, void, undefined> {
    const key = this.comparisonKey(baseline);
    if (this.comparisonCache?.key === key || !this.runs.has(baseline)) return;
    const base = this.scores(baseline, 'original');
    const others = [...this.runs.keys()].filter((k) => k !== baseline);
    const comparisons = new Map<string, (Comparison | null)[]>();
    for (const k of others) comparisons.set(k, RESULT_MEASURES.map(() => null));
    for (const [mi, m] of RESULT_MEASURES.entries()) {
      if (!m.tested) continue;
      const raw: Omit<Comparison, 'tPHolm' | 'randPHolm'>[] = [];
      for (const k of others) {
        const [a, b] = aligned(this.scores(k, 'original'), base, mi);
        const t = pairedTTest(a, b);
        raw.push({ delta: t.meanDiff, tP: t.p, randP: randomizationTest(a, b, { trials: SIGNIFICANCE.trials, seed: SIGNIFICANCE.seed }), ...winTieLoss(a, b) });
        yield;
      }
      const tHolm = holmAdjust(raw.map((r) => r.tP));
      const rHolm = holmAdjust(raw.map((r) => r.randP));
      others.forEach((k, i) => (comparisons.get(k)![mi] = { ...raw[i], tPHolm: tHolm[i], randPHolm: rHolm[i] }));
    }
    // The runs may have changed while the steps ran: keep the result only if it is still the question.
    if (this.comparisonKey(baseline) === key) this.comparisonCache = { key, value: comparisons };
  }

  /** Per-query nDCG@10 of b minus a (with the user's judgements), sorted by delta, best gain first. */
  diff(aKey: string, bKey: string): DiffModel {
    const mi = 0;
    const sa = this.scores(aKey, 'effective');
    const sb = this.scores(bKey, 'effective');
    const bIndex = new Map(sb.queries.map((q, i) => [q, i]));
    const n = sa.queries.length;
    const order: number[] = [];
    const deltas = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const j = bIndex.get(sa.queries[i]);
      if (j === undefined) continue;
      deltas[i] = sb.columns[mi][j] - sa.columns[mi][i];
      order.push(i);
    }
    order.sort((x, y) => deltas[y] - deltas[x] || (sa.queries[x] < sa.queries[y] ? -1 : 1));
    const ra = this.entry(aKey).run;
    const rb = this.entry(bKey).run;
    const queries = order.map((i) => sa.queries[i]);
    return {
      dataset: this.datasetName,
      split: this.split,
      a: this.ref(aKey),
      b: this.ref(bKey),
      measure: RESULT_MEASURES[mi].label,
      queries,
      deltas: order.map((i) => deltas[i]),
      holes: queries.map((q) => (this.hasHole(ra, q, 10) || this.hasHole(rb, q, 10) ? 1 : 0)),
      texts: queries.map((q) => this.queries.get(q)?.text ?? ''),
      meanA: sa.means[mi],
      meanB: sb.means[mi],
    };
  }

  /** Both rankings of one query to `depth`, with grades, holes, rank moves, titles and snippets. */
  queryDetail(aKey: string, bKey: string, queryId: string, depth: number): QueryDetail {
    const a = topDocs(this.entry(aKey).run, queryId, depth);
    const b = topDocs(this.entry(bKey).run, queryId, depth);
    const fullA = rankMap(this.entry(aKey).run, queryId);
    const fullB = rankMap(this.entry(bKey).run, queryId);
    const inTop = (list: { docId: string }[]) => new Set(list.map((d) => d.docId));
    const topA = inTop(a);
    const topB = inTop(b);
    const sa = this.scores(aKey, 'effective');
    const sb = this.scores(bKey, 'effective');
    const score = (s: Scores) => {
      const i = s.queries.indexOf(queryId);
      return i < 0 ? 0 : s.columns[0][i];
    };
    // Moves read from a to b: on both sides "up" means b ranks the document higher than a does.
    const side = (list: { docId: string; rank: number; score: number }[], otherTop: Set<string>, otherFull: Map<string, number>, isA: boolean): RankedDoc[] =>
      list.map((d) => {
        const other = otherFull.get(d.docId) ?? null;
        const [rankA, rankB] = isA ? [d.rank, other] : [other, d.rank];
        const move: Move = !otherTop.has(d.docId) ? (isA ? 'dropped' : 'new') : rankA === rankB ? 'same' : rankB! < rankA! ? 'up' : 'down';
        const doc = this.corpus.read(d.docId);
        return {
          ...d,
          grade: this.grade(queryId, d.docId),
          move,
          otherRank: other,
          title: doc?.title ?? '',
          snippet: doc ? snippet(doc.text) : '(not in corpus.jsonl)',
        };
      });
    return {
      queryId,
      text: this.queries.get(queryId)?.text ?? '',
      depth,
      a: side(a, topB, fullB, true),
      b: side(b, topA, fullA, false),
      droppedFromA: a.filter((d) => !topB.has(d.docId)).map((d) => d.docId),
      scoreA: score(sa),
      scoreB: score(sb),
      grades: this.gradeScale(),
    };
  }

  /**
   * Hole@10 of each run both ways: BEIR's (hole.10: judged for no query) and per query (unj.10: not judged
   * for that query, i.e. 1 - judged.10 wherever a run returns at least 10 documents; both count the missing
   * ranks of a shorter list as judged filler, as trec_eval 10's unj does).
   */
  holeRows(): HoleRow[] {
    const hole = RESULT_MEASURES.findIndex((m) => m.key === 'hole_10');
    const unj = RESULT_MEASURES.length + EXTRA_COLUMNS.indexOf('unj_10');
    return [...this.runs.keys()].map((k) => {
      const o = this.scores(k, 'original').means;
      const e = this.scores(k, 'effective').means;
      return { ...this.ref(k), holeBeir: o[hole], holeQuery: o[unj], holeBeirAnnotated: e[hole], holeQueryAnnotated: e[unj] };
    });
  }

  /** Per run, nDCG@10 with the original qrels (holes count as non-relevant) and with the user's judgements. */
  annotatedScores(): { label: string; original: number; annotated: number }[] {
    return [...this.runs.values()].map((e) => ({
      label: e.label,
      original: this.scores(e.key, 'original').means[0],
      annotated: this.scores(e.key, 'effective').means[0],
    }));
  }

  /**
   * Depth-k pool of the unjudged (query, document) pairs in the given runs, deduplicated, in query order
   * (trec_eval's). Within a query the order comes from a hash of the document id, not from the ranks, so
   * the order gives the judge no hint of how high a run ranked a document. Judged pairs (qrels or the
   * user's) are left out, except those in `keep` (the user's judgements, so a queue does not shift under
   * the judge).
   */
  pool(keys: readonly string[], depth: number, keep: ReadonlySet<string> = new Set()): { queryId: string; docId: string }[] {
    const out: { queryId: string; docId: string }[] = [];
    const runs = keys.filter((k) => this.runs.has(k)).map((k) => this.entry(k).run);
    for (const qid of this.original.queryIds()) {
      const docs = new Set<string>();
      for (const run of runs) {
        for (const d of topDocs(run, qid, depth)) {
          if (this.grade(qid, d.docId) !== null && !keep.has(`${qid}\t${d.docId}`)) continue;
          docs.add(d.docId);
        }
      }
      const order = [...docs].map((d) => [fnv1a(d), d] as const).sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1));
      for (const [, docId] of order) out.push({ queryId: qid, docId });
    }
    return out;
  }

  private hasHole(run: Run, queryId: string, depth: number): boolean {
    return topDocs(run, queryId, depth).some((d) => this.grade(queryId, d.docId) === null);
  }

  private ref(key: string): RunRef {
    const { label } = this.entry(key);
    return { key, label };
  }

  private entry(key: string): RunEntry {
    const e = this.runs.get(key);
    if (!e) throw new Error(`no run ${key} in this view`);
    return e;
  }

  private merge(): Qrels {
    if (this.overlay.size === 0) return this.original;
    const all: { qid: string; docid: string; grade: number }[] = [];
    for (const qid of this.original.queryIds()) {
      const j = this.original.judgements(qid)!;
      j.docs.forEach((docid, i) => all.push({ qid, docid, grade: j.grades[i] }));
    }
    for (const j of this.overlay.values()) all.push({ qid: j.queryId, docid: j.docId, grade: j.grade });
    return Qrels.fromJudgements(all, 'last');
  }

  private evaluateRun(qrels: Qrels, run: Run): Scores {
    return scoreRun(qrels, run, { complete: this.complete, relevanceLevel: this.relevanceLevel });
  }

  /** Per query of the split, the average length in words of the top-10 documents found in the corpus. */
  private lengthSummary(run: Run): LengthSummary {
    const perQueryMeans: number[] = [];
    for (const qid of this.original.queryIds()) {
      let sum = 0;
      let n = 0;
      for (const d of topDocs(run, qid, 10)) {
        const w = this.corpus.words(d.docId);
        if (w >= 0) {
          sum += w;
          n++;
        }
      }
      if (n > 0) perQueryMeans.push(sum / n);
    }
    return boxSummary(perQueryMeans);
  }
}

function drain(steps: Iterator<void>): void {
  while (!steps.next().done);
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

/** 32-bit FNV-1a of a string's UTF-16 code units: a fixed, rank-free order for pooled documents. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A query's first `depth` documents in trec_eval's ranking order (1-based ranks). */
export function topDocs(run: Run, queryId: string, depth: number): { docId: string; rank: number; score: number }[] {
  const q = run.queryIndex(queryId);
  if (q < 0) return [];
  const s = run.offsets[q];
  const e = Math.min(run.offsets[q + 1], s + depth);
  const out = [];
  for (let i = s; i < e; i++) out.push({ docId: run.docs.string(run.docIds[i]), rank: i - s + 1, score: run.scores[i] });
  return out;
}

function rankMap(run: Run, queryId: string): Map<string, number> {
  const m = new Map<string, number>();
  const q = run.queryIndex(queryId);
  if (q < 0) return m;
  const s = run.offsets[q];
  for (let i = s; i < run.offsets[q + 1]; i++) m.set(run.docs.string(run.docIds[i]), i - s + 1);
  return m;
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

/** A run's per-query RESULT_MEASURES (and EXTRA_COLUMNS) on `qrels`, as trec_eval computes them. */
export function scoreRun(qrels: Qrels, run: Run, opts: { complete: boolean; relevanceLevel: number }): Scores {
  const main = evaluate(qrels, run, { ...opts, measures: TREC_MEASURES });
  const w = main.columns.length;
  const column = (name: string) => {
    const c = main.columns.findIndex((col) => col.name === name);
    return Float64Array.from(main.queries, (_, qi) => main.values[qi * w + c]);
  };
  const columns = [...RESULT_MEASURES.map((m) => m.key), ...EXTRA_COLUMNS].map((key) =>
    // recip_rank with -M 10 is 1/rank when the first relevant document is in the top 10, else 0: the same as
    // keeping recip_rank where it is at least 1/10 (one evaluation instead of two).
    key === 'recip_rank_10' ? column('recip_rank').map((rr) => (rr >= 0.1 ? rr : 0)) : column(key),
  );
  const means = columns.map((col) => (col.length ? col.reduce((s, v) => s + v, 0) / col.length : 0));
  return { queries: main.queries, columns, means };
}
