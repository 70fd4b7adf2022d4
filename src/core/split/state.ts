import { evaluate } from '../eval';
import { judgedDocsTable } from '../eval/judgementTable';
import { runSimilaritySteps } from '../eval/similarity';
import { hashBytes } from '../formats/idTable';
import { encodeId, type IdTable } from '../formats/idTable';
import { holmAdjust, pairedTTest, randomizationSteps, winTieLoss } from '../eval/stats';
import type { BeirQuery } from '../formats/beir';
import { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import type {
  Comparison,
  DiffModel,
  HoleRow,
  JudgingMeter,
  LengthSummary,
  Move,
  QueryDetail,
  RankedDoc,
  ResultsModel,
  ResultsRow,
  RunRef,
  ScoreRange,
} from '../../protocol/webview';
import { HoleRanges, ImpactJudging, RANGED } from './holeRanges';
import { snippet } from '../formats/text';
import { runSteps } from '../steps';
import { columnsOf, EXTRA_COLUMNS, meansOf, RESULT_MEASURES, scoreRun, sessionMeasures, type Scores } from './scores';

/** Where the views read documents: by offset from the corpus file (the store's index, or a CorpusIndex). */
export interface DocumentSource {
  /** Title and text, or null when the document is not in the corpus (read from the file: asynchronous). */
  read(docId: string): Promise<{ title: string; text: string } | null>;
  /** Words in title + text, or -1 for a document not in the corpus. */
  words(docId: string): number;
}

/** hole.k looks this deep: a judgement can move the hole figures of other queries ranking the document this high. */
const HOLE_DEPTH = 10;

export const SIGNIFICANCE = { alpha: 0.05, trials: 10_000, seed: 1 } as const;
/** Depth of the rankings compared without judgements (RBO) in the diff. */
const SIMILARITY_DEPTH = 100;


export interface SessionOptions {
  datasetDir: string;
  datasetName: string;
  split: string;
  qrels: Qrels;
  queries: Map<string, BeirQuery>;
  corpus: DocumentSource;
  /** trec_eval measures evaluated besides the views' (irWorkbench.evaluation.measures), e.g. ['ndcg_cut.20']. */
  measures?: readonly string[];
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
  coverage?: { answered: number; total: number };
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
  readonly corpus: DocumentSource;
  readonly complete: boolean;
  readonly relevanceLevel: number;
  /** trec_eval -m arguments evaluated for every run: the views' and the settings'. */
  readonly measures: readonly string[];
  /** The user's judgements, `${qid}\t${docid}` -> grade (a negative grade restores "unjudged"). */
  private readonly overlay = new Map<string, { queryId: string; docId: string; grade: number }>();
  private effectiveQrels: Qrels;
  /** Documents judged (grade >= 0) for some query of the effective qrels (hole.k), kept across judgements. */
  private judgedDocs: IdTable | undefined;
  /** The same of the original qrels (which never change): built once for every run's original scores. */
  private originalJudgedDocs: IdTable | undefined;
  private readonly runs = new Map<string, RunEntry>();
  private comparisonCache: { key: string; value: Map<string, (Comparison | null)[]> } | undefined;
  /** diff()'s last order of each run pair (indices into a's queries), with the query lists it is of. */
  private readonly diffOrders = new Map<string, { a: readonly string[]; b: readonly string[]; order: number[] }>();
  /** similarity()'s answers by run pair. */
  private readonly similarities = new Map<string, ReadonlyMap<string, number>>();
  /** userPool()'s parts by (depth, runs), then by query. */
  private readonly userPools = new Map<string, Map<string, { items: { queryId: string; docId: string }[]; unjudged: number }>>();
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
    this.measures = sessionMeasures(o.measures);
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
    this.diffOrders.clear();
    this.userPools.clear();
    this.similarities.clear();
  }

  /** Names the runs as the store's discovery does (runLabels), so every view and the tree agree. */
  relabel(labels: ReadonlyMap<string, string>): void {
    for (const e of this.runs.values()) e.label = labels.get(e.key) ?? e.label;
    this.comparisonCache = undefined;
  }

  removeRun(key: string): void {
    if (!this.runs.delete(key)) return;
    this.comparisonCache = undefined;
    this.diffOrders.clear();
    this.userPools.clear();
    this.similarities.clear();
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

  /**
   * Records a judgement in memory (the caller has made it durable first) and re-scores, in place, only what it
   * moves: the judged query of each run, plus, when the document became judged (or unjudged) for every query,
   * the queries whose top HOLE_DEPTH rank it (hole.k counts a document judged for any query).
   */
  judge(queryId: string, docId: string, grade: number): void {
    const k = `${queryId}\t${docId}`;
    const wasJudged = this.judgedAnywhere(docId);
    this.overlay.delete(k);
    this.overlay.set(k, { queryId, docId, grade });
    const before = this.effectiveQrels;
    this.effectiveQrels = before.withQuery(queryId, this.mergedQuery(queryId));
    if (this.judgedDocs) {
      if (grade >= 0) this.judgedDocs.internString(docId);
      else if (wasJudged) this.judgedDocs = undefined; // rare (an undo): rebuilt when next needed
    }
    const hadQuery = before.has(queryId);
    const holeMoved = wasJudged !== this.judgedAnywhere(docId);
    for (const perQuery of this.userPools.values()) perQuery.delete(queryId);
    for (const r of this.runs.values()) {
      if (!r.effective) r.effective = cloneScores(this.scores(r.key, 'original'));
      const affected = new Set([queryId]);
      if (holeMoved) for (const q of queriesRanking(r.run, docId, HOLE_DEPTH)) affected.add(q);
      if (!hadQuery || !this.rescore(r.run, r.effective, affected)) r.effective = undefined;
    }
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
    this.judgedDocs = undefined;
    this.userPools.clear();
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
    // Of the original qrels, which never change: every view asks (through trustPending) on every update.
    if (!this.scale) {
      const seen = new Set<number>([0]);
      for (const qid of this.original.queryIds()) for (const g of this.original.judgements(qid)!.grades) if (g >= 0) seen.add(g);
      this.scale = [...seen].sort((a, b) => a - b);
    }
    return [...this.scale];
  }

  private scale: number[] | undefined;

  /** Builds what scoring a first run needs, ahead of it (while its file is still being read elsewhere). */
  prepareScoring(): void {
    this.originalJudged();
  }

  scores(key: string, which: 'original' | 'effective'): Scores {
    const e = this.entry(key);
    if (which === 'original') return (e.original ??= this.evaluateRun(this.original, e.run, this.originalJudged()));
    if (this.overlay.size === 0) return this.scores(key, 'original');
    return (e.effective ??= this.evaluateRun(this.effectiveQrels, e.run, this.judged()));
  }

  /** A run's summary figures by trec_eval value name (e.g. ndcg_cut_10), with the original qrels and with the user's judgements. */
  summary(key: string): { original: Record<string, number>; annotated: Record<string, number>; queries: number } {
    const o = this.scores(key, 'original');
    const a = this.scores(key, 'effective');
    const byName = (s: Scores) => Object.fromEntries(s.names.map((n, i) => [n, s.means[i]]));
    return { original: byName(o), annotated: byName(a), queries: o.queries.length };
  }

  /**
   * The results table against `baselineKey`. With `pending`, significance not computed yet is left out
   * (significancePending) instead of computed here: the caller runs significanceSteps() in slices.
   */
  results(baselineKey: string, extra: Pick<ResultsModel, 'skipped'> & Partial<Pick<ResultsModel, 'untrusted'>>, options: { pending?: boolean } = {}): ResultsModel {
    const keys = [...this.runs.keys()];
    const baseline = this.runs.has(baselineKey) ? baselineKey : keys[0];
    if (baseline !== undefined && !options.pending) runSteps(this.significanceSteps(baseline));
    if (!options.pending) runSteps(this.trustSteps(baseline));
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
        ...this.trustRow(k, baseline),
        coverage: (e.coverage ??= { answered: this.scores(k, 'original').queries.filter((q) => e.run.queryIndex(q) >= 0).length, total: this.scores(k, 'original').queries.length }),
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
      untrusted: false,
      missingQueries: 'zero',
      ...extra,
    };
  }

  private comparisonKey(baseline: string): string {
    return [baseline, ...[...this.runs.keys()].filter((k) => k !== baseline)].join('\n');
  }

  /**
   * Tests of each run against the baseline on the original qrels, a thousand randomization trials per step so
   * a caller can keep its thread responsive (10,000 queries: ~20 ms a step); Holm over the compared runs, separately
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
        const randP = yield* randomizationSteps(a, b, { trials: SIGNIFICANCE.trials, seed: SIGNIFICANCE.seed });
        raw.push({ delta: t.meanDiff, tP: t.p, randP, ...winTieLoss(a, b) });
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
  diff(aKey: string, bKey: string, options: { pending?: boolean } = {}): DiffModel {
    if (!options.pending) {
      runSteps(this.trustSteps(undefined, [[aKey, bKey]]));
      runSteps(this.similaritySteps(aKey, bKey));
    }
    const mi = 0;
    const sa = this.scores(aKey, 'effective');
    const sb = this.scores(bKey, 'effective');
    const bIndex = rowsOf(sb.queries);
    const n = sa.queries.length;
    const deltas = new Float64Array(n);
    const last = this.diffOrders.get(`${aKey}\n${bKey}`);
    // The last order of this pair, when of the same queries: a judgement moves a few deltas, and the sort
    // (the same total order either way) finishes in about one pass over an almost sorted list.
    const reuse = last !== undefined && last.a === sa.queries && last.b === sb.queries;
    const order: number[] = reuse ? last.order.slice() : [];
    const inB = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const j = bIndex.get(sa.queries[i]);
      if (j === undefined) continue;
      inB[i] = j;
      deltas[i] = sb.columns[mi][j] - sa.columns[mi][i];
      if (!reuse) order.push(i);
    }
    order.sort((x, y) => deltas[y] - deltas[x] || (sa.queries[x] < sa.queries[y] ? -1 : 1));
    this.diffOrders.set(`${aKey}\n${bKey}`, { a: sa.queries, b: sb.queries, order });
    const queries = order.map((i) => sa.queries[i]);
    const unjA = sa.names.indexOf('unj_10');
    const unjB = sb.names.indexOf('unj_10');
    return {
      dataset: this.datasetName,
      split: this.split,
      a: this.ref(aKey),
      b: this.ref(bKey),
      measure: RESULT_MEASURES[mi].label,
      queries,
      deltas: order.map((i) => deltas[i]),
      // A hole: a document of either top 10 not judged for the query, which is what unj.10 counts.
      holes: order.map((i) => (sa.columns[unjA][i] > 0 || sb.columns[unjB][inB[i]] > 0 ? 1 : 0)),
      texts: queries.map((q) => this.queries.get(q)?.text ?? ''),
      meanA: sa.means[mi],
      meanB: sb.means[mi],
      originalA: this.scores(aKey, 'original').means[mi],
      originalB: this.scores(bKey, 'original').means[mi],
      judgements: this.judgementCount,
      ...this.trustDiff(aKey, bKey, queries, order.map((i) => deltas[i])),
      ...similarityDiff(this.similarity(aKey, bKey), queries),
    };
  }

  /** Both rankings of one query to `depth`, with grades, holes, rank moves, titles and snippets. */
  async queryDetail(aKey: string, bKey: string, queryId: string, depth: number): Promise<QueryDetail> {
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
    const docs = new Map(await Promise.all([...new Set([...topA, ...topB])].map(async (id) => [id, await this.corpus.read(id)] as const)));
    const side = (list: { docId: string; rank: number; score: number }[], otherTop: Set<string>, otherFull: Map<string, number>, isA: boolean): RankedDoc[] =>
      list.map((d) => {
        const other = otherFull.get(d.docId) ?? null;
        const [rankA, rankB] = isA ? [d.rank, other] : [other, d.rank];
        const move: Move = !otherTop.has(d.docId) ? (isA ? 'dropped' : 'new') : rankA === rankB ? 'same' : rankB! < rankA! ? 'up' : 'down';
        const doc = docs.get(d.docId);
        return {
          ...d,
          grade: this.grade(queryId, d.docId),
          move,
          otherRank: other,
          title: doc?.title ?? '',
          snippet: doc ? snippet(doc.text) : '(not in the corpus)',
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
    const runs = keys.filter((k) => this.runs.has(k)).map((k) => this.entry(k).run);
    return this.original.queryIds().flatMap((qid) => this.poolOf(qid, runs, depth, keep));
  }

  /**
   * pool() keeping the user's judgements (what the views show), kept per query between calls: a judgement
   * changes only its query's part, so a keystroke re-pools one query, not the split.
   */
  userPool(keys: readonly string[], depth: number): { queryId: string; docId: string }[] {
    const out: { queryId: string; docId: string }[] = [];
    for (const part of this.userPoolParts(keys, depth)) for (const p of part.items) out.push(p);
    return out;
  }

  /** The first `n` pairs of userPool(), its size and how many of it are unjudged, without building the whole list. */
  userPoolHead(keys: readonly string[], depth: number, n: number): { items: { queryId: string; docId: string }[]; size: number; unjudged: number } {
    const items: { queryId: string; docId: string }[] = [];
    let size = 0;
    let unjudged = 0;
    for (const part of this.userPoolParts(keys, depth)) {
      size += part.items.length;
      unjudged += part.unjudged;
      for (let i = 0; i < part.items.length && items.length < n; i++) items.push(part.items[i]);
    }
    return { items, size, unjudged };
  }

  private userPoolParts(keys: readonly string[], depth: number): { items: { queryId: string; docId: string }[]; unjudged: number }[] {
    const known = keys.filter((k) => this.runs.has(k));
    const cacheKey = `${depth}\n${known.join('\n')}`;
    let perQuery = this.userPools.get(cacheKey);
    if (!perQuery) this.userPools.set(cacheKey, (perQuery = new Map()));
    const runs = known.map((k) => this.entry(k).run);
    const keep = { has: (pair: string) => this.overlay.has(pair) };
    return this.original.queryIds().map((qid) => {
      let part = perQuery.get(qid);
      if (!part) {
        const items = this.poolOf(qid, runs, depth, keep);
        part = { items, unjudged: items.filter((p) => this.grade(qid, p.docId) === null).length };
        perQuery.set(qid, part);
      }
      return part;
    });
  }

  /** One query's pooled pairs (see pool()). */
  private poolOf(qid: string, runs: readonly Run[], depth: number, keep: { has(pair: string): boolean }): { queryId: string; docId: string }[] {
    const docs = new Set<string>();
    for (const run of runs) {
      for (const d of topDocs(run, qid, depth)) {
        if (this.grade(qid, d.docId) !== null && !keep.has(`${qid}\t${d.docId}`)) continue;
        docs.add(d.docId);
      }
    }
    return [...docs]
      .map((d) => [fnv1a(d), d] as const)
      .sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1))
      .map(([, docId]) => ({ queryId: qid, docId }));
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

  /** The effective judgements of one query: the original ones, superseded by the user's. */
  private mergedQuery(queryId: string): Map<string, number> {
    const grades = this.original.get(queryId) ?? new Map<string, number>();
    for (const j of this.overlay.values()) if (j.queryId === queryId) grades.set(j.docId, j.grade);
    return grades;
  }

  private judged(): IdTable {
    return (this.judgedDocs ??= judgedDocsTable(this.effectiveQrels));
  }

  private originalJudged(): IdTable {
    return (this.originalJudgedDocs ??= judgedDocsTable(this.original));
  }

  private judgedAnywhere(docId: string): boolean {
    const b = encodeId(docId);
    return this.judged().find(b, 0, b.length) >= 0;
  }

  /** Re-evaluates `queries` of a run on the effective qrels into `into`, then its summaries; false if a query is new to it. */
  private rescore(run: Run, into: Scores, queries: ReadonlySet<string>): boolean {
    const res = evaluate(this.effectiveQrels, run, {
      measures: this.measures,
      complete: this.complete,
      relevanceLevel: this.relevanceLevel,
      onlyQueries: queries,
      judgedDocs: this.judged(),
    });
    const rows = rowsOf(into.queries);
    const cols = columnsOf(res);
    for (const [qi, q] of res.queries.entries()) {
      const at = rows.get(q);
      if (at === undefined) return false;
      cols.forEach((c, ci) => (into.columns[ci][at] = c[qi]));
    }
    into.means = meansOf(into.columns, into.names, res.columns, this.effectiveQrels, this.complete, into.queries.length);
    return true;
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

  private evaluateRun(qrels: Qrels, run: Run, judgedDocs?: IdTable): Scores {
    return scoreRun(qrels, run, { complete: this.complete, relevanceLevel: this.relevanceLevel, measures: this.measures, judgedDocs });
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

  // Trust under holes (issue 15): ranges over every grading of the holes left; the mathematics is in
  // src/core/eval/holes, the per-query bookkeeping in trust.ts.
  private holeRangesCache: HoleRanges | undefined;
  private impactCache: ImpactJudging | undefined;

  /** A run's range of `column` over the holes (every query), if the background steps computed it already. */
  rangeIfKnown(key: string, column: string): ScoreRange | undefined {
    if (!this.runs.has(key) || !this.holeRangesFit()) return undefined;
    const h = this.holeRanges();
    return h.has(key, column) ? h.range(key, column) : undefined;
  }

  /** Whether the ranges kept are of this session's runs (else holeRanges() builds them anew). */
  private holeRangesFit(): boolean {
    return this.holeRangesCache?.fits(new Map([...this.runs].map(([k, e]) => [k, e.run] as const)), this.gradeScale(), this.relevanceLevel) ?? false;
  }

  /** Ranges under the holes of the top-10 pool of this session's runs, up to date (changed queries re-ranged). */
  holeRanges(): HoleRanges {
    const input = this.trustInput();
    if (this.holeRangesCache?.fits(input.runs, input.scale, input.relevanceLevel)) this.holeRangesCache.update(input.qrels);
    else this.holeRangesCache = new HoleRanges(input);
    return this.holeRangesCache;
  }

  private trustInput(): { qrels: Qrels; runs: Map<string, Run>; scale: number[]; relevanceLevel: number } {
    return { qrels: this.effectiveQrels, runs: new Map([...this.runs].map(([k, e]) => [k, e.run] as const)), scale: this.gradeScale(), relevanceLevel: this.relevanceLevel };
  }

  /**
   * Steps that compute, a slice at a time, the ranges the results table (against `baseline`) and the given
   * diffs ([a, b]) show; until they ran, the models leave the ranges out.
   */
  *trustSteps(baseline: string | undefined, diffs: readonly (readonly [string, string])[] = []): Generator<void, void, undefined> {
    // A new pool is built a slice at a time; holeRanges() then brings it to judgements made meanwhile (or, if the
    // runs changed meanwhile, builds it again at once).
    if (!this.holeRangesFit()) this.holeRangesCache = yield* HoleRanges.build(this.trustInput());
    const h = this.holeRanges();
    for (const [a, b] of this.trustNeeds(baseline, diffs)) yield* b === undefined ? h.fill(a[0], a[1]) : h.fillDeltas(a[0], b, a[1]);
  }

  /** Whether some range trustSteps() computes is still missing. */
  trustPending(baseline: string | undefined, diffs: readonly (readonly [string, string])[] = []): boolean {
    // Building the ranges' pools takes a while on a large split (0.3 s for 10,000 queries): that is trustSteps' work.
    if (!this.holeRangesFit()) return true;
    const h = this.holeRanges();
    return this.trustNeeds(baseline, diffs).some(([a, b]) => (b === undefined ? !h.has(a[0], a[1]) : !h.hasDeltas(a[0], b, a[1])));
  }

  /** ([run, column], undefined) for a run's ranges, ([a, column], b) for the ranges of a - b. */
  private trustNeeds(baseline: string | undefined, diffs: readonly (readonly [string, string])[]): [[string, string], string | undefined][] {
    const needs: [[string, string], string | undefined][] = [];
    const ndcg = RESULT_MEASURES[0].key;
    for (const [a, b] of diffs) needs.push([[a, ndcg], undefined], [[b, ndcg], undefined], [[b, ndcg], a]);
    for (const key of this.runs.keys()) for (const column of Object.keys(RANGED)) needs.push([[key, column], undefined]);
    if (baseline !== undefined && this.runs.has(baseline)) {
      for (const key of this.runs.keys()) {
        if (key !== baseline) for (const m of RESULT_MEASURES) if (m.tested && m.key in RANGED) needs.push([[key, m.key], baseline]);
      }
    }
    return needs;
  }

  /** A results row's ranges (with the user's judgements) and, against the baseline, settled or open (once computed). */
  private trustRow(key: string, baseline: string | undefined): Pick<ResultsRow, 'intervals' | 'settled'> {
    if (this.trustPending(baseline, [])) return {};
    const h = this.holeRanges();
    // Every query of the qrels (trec_eval -c, the usual case) is `undefined` to the ranges: no lookups.
    const all = this.original.queryIds().length;
    const own = this.scores(key, 'effective').queries;
    const queries = own.length === all ? undefined : own;
    const base = baseline === undefined || baseline === key ? undefined : this.scores(baseline, 'effective').queries;
    // The queries both runs were evaluated on (undefined: all of them); null without a baseline to compare with.
    let both: readonly string[] | undefined | null = null;
    if (base && queries === undefined && base.length === all) both = undefined;
    else if (base) {
      const inBase = new Set(base);
      both = own.filter((q) => inBase.has(q));
    }
    return {
      intervals: RESULT_MEASURES.map((m) => (m.key in RANGED ? h.range(key, m.key, queries) : null)),
      settled: both === null ? null : RESULT_MEASURES.map((m) => (m.tested && m.key in RANGED ? h.verdict(key, baseline!, m.key, both, SIGNIFICANCE.alpha) : null)),
    };
  }

  /** Per-query RBO of two runs, once similaritySteps() computed it (no judgements involved: kept until the runs change). */
  private similarity(aKey: string, bKey: string): ReadonlyMap<string, number> | undefined {
    return this.similarities.get(`${aKey}\n${bKey}`);
  }

  /** Computes the diff's RBO of two runs, a query a step (10,000 queries take a third of a second). */
  *similaritySteps(aKey: string, bKey: string): Generator<void, void, undefined> {
    const k = `${aKey}\n${bKey}`;
    if (this.similarities.has(k)) return;
    const sim = yield* runSimilaritySteps(this.entry(aKey).run, this.entry(bKey).run, 'rbo', SIMILARITY_DEPTH);
    if (this.runs.has(aKey) && this.runs.has(bKey)) this.similarities.set(k, sim.perQuery);
  }

  /** The diff's b - a under the holes: the range of the mean and the verdict, per query, and each mean's range (once computed). */
  private trustDiff(aKey: string, bKey: string, queries: string[], deltas: number[]): Pick<DiffModel, 'range' | 'perQuery' | 'intervalA' | 'intervalB'> {
    if (!this.holeRangesFit()) return {};
    const h = this.holeRanges();
    const column = RESULT_MEASURES[0].key;
    if (!h.hasDeltas(bKey, aKey, column) || !h.has(aKey, column) || !h.has(bKey, column)) return {};
    const ranged = h.deltasOf(bKey, aKey, column, queries);
    return {
      range: h.verdict(bKey, aKey, column, queries, SIGNIFICANCE.alpha),
      perQuery: { lo: ranged.map((d, i) => d?.lo ?? deltas[i]), hi: ranged.map((d, i) => d?.hi ?? deltas[i]) },
      intervalA: h.range(aKey, column, this.scores(aKey, 'effective').queries),
      intervalB: h.range(bKey, column, this.scores(bKey, 'effective').queries),
    };
  }

  /**
   * The pool of `keys` at `depth` in impact order: the unjudged holes of the first two runs by how much judging
   * them is expected to narrow their comparison on nDCG@10 (blind: no run, ties shuffled with a fixed seed),
   * then the other runs' holes in blind order; with the meter. Null with fewer than two runs.
   */
  impactQueue(keys: readonly string[], depth: number): { items: { queryId: string; docId: string }[]; meter: JudgingMeter } | null {
    const j = this.impactJudging(keys, depth);
    if (!j) return null;
    const items = j.items();
    const seen = new Set(items.map((p) => `${p.queryId}\t${p.docId}`));
    for (const p of this.pool(keys, depth)) if (!seen.has(`${p.queryId}\t${p.docId}`)) items.push(p);
    return { items, meter: this.meterOf(j) };
  }

  /** The impact order's meter alone (the Judge sidebar asks on every move). */
  impactMeter(keys: readonly string[], depth: number): JudgingMeter | null {
    const j = this.impactJudging(keys, depth);
    return j && this.meterOf(j);
  }

  private meterOf(j: ImpactJudging): JudgingMeter {
    return { a: this.ref(j.a), b: this.ref(j.b), measure: RESULT_MEASURES[0].label, verdict: j.verdict(SIGNIFICANCE.alpha), judged: j.judged };
  }

  /** The impact queue of the first two of `keys`, kept (and synced with the judgements) while they stay the same. */
  private impactJudging(keys: readonly string[], depth: number): ImpactJudging | null {
    const [a, b] = keys.filter((k) => this.runs.has(k));
    if (a === undefined || b === undefined) return null;
    const runs = [this.entry(a).run, this.entry(b).run] as const;
    const c = this.impactCache;
    if (c && c.a === a && c.b === b && c.depth === depth && c.runs[0] === runs[0] && c.runs[1] === runs[1]) c.sync(this.effectiveQrels);
    else this.impactCache = new ImpactJudging(this.effectiveQrels, a, b, runs, depth, this.gradeScale(), this.relevanceLevel);
    return this.impactCache!;
  }
}

/** RBO of the two runs per diff query (a query one run misses: 0, nothing shared) and its mean. */
function similarityDiff(sim: ReadonlyMap<string, number> | undefined, queries: string[]): Pick<DiffModel, 'rbo' | 'rboMean'> {
  if (!sim) return {};
  const rbo = queries.map((q) => sim.get(q) ?? 0);
  return { rbo, rboMean: rbo.length ? rbo.reduce((x, y) => x + y, 0) / rbo.length : 0 };
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

/** Each query's row in a Scores' queries (kept per array: the clones of a run's scores share it). */
const rowIndexes = new WeakMap<readonly string[], Map<string, number>>();

function rowsOf(queries: readonly string[]): Map<string, number> {
  let rows = rowIndexes.get(queries);
  if (!rows) rowIndexes.set(queries, (rows = new Map(queries.map((q, i) => [q, i]))));
  return rows;
}

function cloneScores(s: Scores): Scores {
  return { queries: s.queries, names: s.names, columns: s.columns.map((c) => c.slice()), means: [...s.means] };
}

/** The queries whose first `depth` documents in a run include `docId`. */
function queriesRanking(run: Run, docId: string, depth: number): string[] {
  const b = encodeId(docId);
  const out: string[] = [];
  // Entries (entry, query) whose id hashes as docId's, in run order: compare their bytes to tell collisions apart.
  const entries = topIndex(run, depth).get(hashBytes(b, 0, b.length)) ?? [];
  for (let k = 0; k < entries.length; k += 2) {
    const q = entries[k + 1];
    if (out[out.length - 1] !== run.qids[q] && run.docs.equalsBytes(run.docIds[entries[k]], b, 0, b.length)) out.push(run.qids[q]);
  }
  return out;
}

/**
 * Per run (runs do not change once read), the entries of the first `depth` documents of every query by the hash
 * of their id: built once, so a judgement looks its document up instead of scanning every ranking.
 */
const topIndexes = new WeakMap<Run, { depth: number; byHash: Map<number, number[]> }>();

function topIndex(run: Run, depth: number): Map<number, number[]> {
  const kept = topIndexes.get(run);
  if (kept?.depth === depth) return kept.byHash;
  const byHash = new Map<number, number[]>();
  for (let q = 0; q < run.qids.length; q++) {
    const s = run.offsets[q];
    for (let i = s; i < Math.min(run.offsets[q + 1], s + depth); i++) {
      const h = run.docs.hash(run.docIds[i]);
      const list = byHash.get(h);
      if (list) list.push(i, q);
      else byHash.set(h, [i, q]);
    }
  }
  topIndexes.set(run, { depth, byHash });
  return byHash;
}
