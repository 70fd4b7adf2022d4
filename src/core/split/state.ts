import { evaluate } from '../eval';
import { judgedDocsTable } from '../eval/judgementTable';
import { encodeId, type IdTable } from '../formats/idTable';
import type { BeirQuery } from '../formats/beir';
import { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import type { QrelsLabel, RunRef } from '../../protocol/webview';
import { queriesRanking } from './rankings';
import { columnsOf, meansOf, scoreRun, sessionMeasures, type Scores } from './scores';

/** Where the views read documents: by offset from the corpus file (the store's index, or a CorpusIndex). */
export interface DocumentSource {
  /** Title and text, or null when the document is not in the corpus (read from the file: asynchronous). */
  read(docId: string): Promise<{ title: string; text: string } | null>;
  /** Words in title + text, or -1 for a document not in the corpus. */
  words(docId: string): number;
}

/** The two qrels a split's figures are computed on: the dataset's own, and with the user's judgements. */
export type QrelsState = 'original' | 'annotated';

export interface Judgement {
  queryId: string;
  docId: string;
  grade: number;
}

/** hole.k looks this deep: a judgement can move the hole figures of other queries ranking the document this high. */
const HOLE_DEPTH = 10;

/** How many judgements changedSince() remembers; a view synced longer ago than that rebuilds what it keeps. */
const CHANGE_LOG = 256;

export interface SplitOptions {
  datasetDir: string;
  datasetName: string;
  split: string;
  qrels: Qrels;
  queries: Map<string, BeirQuery>;
  corpus: DocumentSource;
  /** trec_eval measures evaluated besides the views' (irWorkbench.evaluation.measures), e.g. ['ndcg_cut.20']. */
  measures?: readonly string[];
  /** The user's judgements recorded so far (annotation files): they override the qrels. */
  judgements?: Iterable<Judgement>;
  /** trec_eval -c (default true, as BEIR reports). */
  complete?: boolean;
  relevanceLevel?: number;
}

interface RunEntry extends RunRef {
  run: Run;
  scores: Partial<Record<QrelsState, Scores>>;
}

/**
 * One dataset split as every view sees it: its qrels, the user's judgements over them, the runs and their
 * per-query scores on each qrels state, kept in step by one judge(). Views derive their models from it with
 * pure functions (results.ts, diff.ts, holes.ts, ...); what makes a judgement cheap for them is kept here by
 * `keep`, keyed by the runs it was computed from, and brought up to date from `changedSince`.
 */
export class SplitState {
  readonly datasetDir: string;
  readonly datasetName: string;
  readonly split: string;
  readonly queries: Map<string, BeirQuery>;
  readonly corpus: DocumentSource;
  readonly complete: boolean;
  readonly relevanceLevel: number;
  /** trec_eval -m arguments evaluated for every run: the views' and the settings'. */
  readonly measures: readonly string[];
  private readonly original: Qrels;
  private annotated: Qrels;
  /** The user's judgements, `${qid}\t${docid}` -> grade (a negative grade restores "unjudged"), in the order given. */
  private readonly overlay = new Map<string, Judgement>();
  private readonly runs = new Map<string, RunEntry>();
  /** Documents judged (grade >= 0) for some query of each qrels state (hole.k), kept across judgements. */
  private readonly judgedDocs: Partial<Record<QrelsState, IdTable>> = {};
  /** Values derived from some runs, by name and run keys (see keep()). */
  private readonly derived = new Map<string, { runs: readonly Run[]; value: unknown }>();
  /** The queries each recent judgement changed, by the version it made (null: every query, judgements replaced). */
  private readonly changes: { version: number; queryId: string | null }[] = [];
  private scale: number[] | undefined;
  /** Bumped on each change of the judgements: views use it to know their figures are stale. */
  version = 0;

  constructor(o: SplitOptions) {
    this.datasetDir = o.datasetDir;
    this.datasetName = o.datasetName;
    this.split = o.split;
    this.original = o.qrels;
    this.queries = o.queries;
    this.corpus = o.corpus;
    this.complete = o.complete ?? true;
    this.relevanceLevel = o.relevanceLevel ?? 1;
    this.measures = sessionMeasures(o.measures);
    for (const j of o.judgements ?? []) this.overlay.set(`${j.queryId}\t${j.docId}`, { queryId: j.queryId, docId: j.docId, grade: j.grade });
    this.annotated = this.merge();
  }

  /** The qrels of a state: the dataset's own, or with the user's judgements merged in (theirs win). */
  qrels(state: QrelsState): Qrels {
    return state === 'original' ? this.original : this.annotated;
  }

  /** The user's judgements in effect, counted as the Datasets tree counts them (an undo to unjudged is not one). */
  get judgementCount(): number {
    let n = 0;
    for (const j of this.overlay.values()) if (j.grade >= 0) n++;
    return n;
  }

  /** The qrels state the views' current figures are on, in words: with the user's judgements once there are any. */
  label(): QrelsLabel {
    const judgements = this.judgementCount;
    return { state: this.overlay.size > 0 ? 'annotated' : 'original', judgements, version: this.version };
  }

  // Runs.

  /** Adds (or replaces) a run; `original` are its scores on the original qrels when already computed. */
  addRun(key: string, label: string, run: Run, original?: Scores): void {
    const old = this.runs.get(key);
    this.runs.set(key, { key, label, run, scores: { original } });
    if (old && old.run !== run) this.forgetDerived(old.run);
  }

  /** Names the runs as the store's discovery does (runLabels), so every view and the tree agree. */
  relabel(labels: ReadonlyMap<string, string>): void {
    for (const e of this.runs.values()) e.label = labels.get(e.key) ?? e.label;
  }

  removeRun(key: string): void {
    const e = this.runs.get(key);
    if (!e) return;
    this.runs.delete(key);
    this.forgetDerived(e.run);
  }

  hasRun(key: string): boolean {
    return this.runs.has(key);
  }

  runKeys(): string[] {
    return [...this.runs.keys()];
  }

  runRefs(): RunRef[] {
    return [...this.runs.values()].map(({ key, label }) => ({ key, label }));
  }

  ref(key: string): RunRef {
    const { label } = this.entry(key);
    return { key, label };
  }

  run(key: string): Run {
    return this.entry(key).run;
  }

  // Judgements.

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
    const before = this.annotated;
    this.annotated = before.withQuery(queryId, this.mergedQuery(queryId));
    const judged = this.judgedDocs.annotated;
    if (judged) {
      if (grade >= 0) judged.internString(docId);
      else if (wasJudged) this.judgedDocs.annotated = undefined; // rare (an undo): rebuilt when next needed
    }
    const hadQuery = before.has(queryId);
    const holeMoved = wasJudged !== this.judgedAnywhere(docId);
    for (const r of this.runs.values()) {
      if (!r.scores.annotated) r.scores.annotated = cloneScores(this.scores(r.key, 'original'));
      const affected = new Set([queryId]);
      if (holeMoved) for (const q of queriesRanking(r.run, docId, HOLE_DEPTH)) affected.add(q);
      if (!hadQuery || !this.rescore(r.run, r.scores.annotated, affected)) r.scores.annotated = undefined;
    }
    this.changed(hadQuery ? queryId : null);
  }

  /**
   * Takes the user's judgements as now on disk (the annotations file changed outside this view: another
   * window, an edit, a deleted file). Returns false, changing nothing, when they are the ones already held.
   */
  replaceJudgements(judgements: Iterable<Judgement>): boolean {
    const next = new Map<string, Judgement>();
    for (const j of judgements) next.set(`${j.queryId}\t${j.docId}`, { queryId: j.queryId, docId: j.docId, grade: j.grade });
    if (next.size === this.overlay.size && [...next].every(([k, j]) => this.overlay.get(k)?.grade === j.grade)) return false;
    this.overlay.clear();
    for (const [k, j] of next) this.overlay.set(k, j);
    this.annotated = this.merge();
    this.judgedDocs.annotated = undefined;
    for (const r of this.runs.values()) r.scores.annotated = undefined;
    this.changed(null);
    return true;
  }

  /**
   * The queries whose judgements changed since `version` (what a view synced then must redo), or 'all' when
   * the judgements were replaced meanwhile or the change is older than the log.
   */
  changedSince(version: number): ReadonlySet<string> | 'all' {
    if (version === this.version) return new Set();
    const first = this.changes[0];
    if (!first || first.version > version + 1) return 'all';
    const out = new Set<string>();
    for (const c of this.changes) {
      if (c.version <= version) continue;
      if (c.queryId === null) return 'all';
      out.add(c.queryId);
    }
    return out;
  }

  /** The effective grade, or null when the document is not judged (>= 0) for the query. */
  grade(queryId: string, docId: string): number | null {
    const g = this.annotated.grade(queryId, docId);
    return g === undefined || g < 0 ? null : g;
  }

  /** The user's grade for (query, document), if they gave one (a negative one: undone to unjudged). */
  userGrade(queryId: string, docId: string): number | undefined {
    return this.overlay.get(`${queryId}\t${docId}`)?.grade;
  }

  /** The user's judgements in effect, in the order given (an undo to unjudged included, with grade -1). */
  userJudgements(): readonly Judgement[] {
    return [...this.overlay.values()];
  }

  /** `${qid}\t${docid}` of every pair the user judged (pools keep these, so they do not shrink as one judges). */
  userJudged(): { has(pair: string): boolean } {
    return { has: (pair) => this.overlay.has(pair) };
  }

  /** The grade scale of the dataset: the non-negative grades of its qrels (0 always included). */
  gradeScale(): number[] {
    // Of the original qrels, which never change: every view asks on every update.
    if (!this.scale) {
      const seen = new Set<number>([0]);
      for (const qid of this.original.queryIds()) for (const g of this.original.judgements(qid)!.grades) if (g >= 0) seen.add(g);
      this.scale = [...seen].sort((a, b) => a - b);
    }
    return [...this.scale];
  }

  // Scores.

  /** Builds what scoring a first run needs, ahead of it (while its file is still being read elsewhere). */
  prepareScoring(): void {
    this.judged('original');
  }

  /** A run's per-query scores on a qrels state (the annotated ones are the original ones until a judgement). */
  scores(key: string, state: QrelsState): Scores {
    const e = this.entry(key);
    if (state === 'original') return (e.scores.original ??= this.evaluateRun('original', e.run));
    if (this.overlay.size === 0) return this.scores(key, 'original');
    return (e.scores.annotated ??= this.evaluateRun('annotated', e.run));
  }

  /**
   * A run's summary figures by trec_eval value name (e.g. ndcg_cut_10), with the original qrels and with the
   * user's judgements; `queries` averaged over, of which the run answers `answered`.
   */
  summary(key: string): { original: Record<string, number>; annotated: Record<string, number>; queries: number; answered: number } {
    const o = this.scores(key, 'original');
    const a = this.scores(key, 'annotated');
    const byName = (s: Scores) => Object.fromEntries(s.names.map((n, i) => [n, s.means[i]]));
    return { original: byName(o), annotated: byName(a), queries: o.queries.length, answered: o.answered };
  }

  // Derived values.

  /**
   * A value derived from the runs `runKeys` (in that order), built once and kept while those runs are the
   * same (a run re-read or removed drops it). Values that also depend on the judgements keep the version
   * they are synced to and catch up with changedSince().
   */
  keep<T>(name: string, runKeys: readonly string[], build: (runs: readonly Run[]) => T): T {
    const runs = runKeys.map((k) => this.entry(k).run);
    const key = `${name}\n${runKeys.join('\n')}`;
    const hit = this.derived.get(key);
    if (hit && hit.runs.length === runs.length && hit.runs.every((r, i) => r === runs[i])) return hit.value as T;
    const value = build(runs);
    this.derived.set(key, { runs, value });
    return value;
  }

  /** What keep() holds for these runs, without building it. */
  kept<T>(name: string, runKeys: readonly string[]): T | undefined {
    if (!runKeys.every((k) => this.runs.has(k))) return undefined;
    const hit = this.derived.get(`${name}\n${runKeys.join('\n')}`);
    return hit && hit.runs.every((r, i) => r === this.runs.get(runKeys[i])!.run) ? (hit.value as T) : undefined;
  }

  /** Documents judged for some query of a state's qrels (hole.k's question), kept across judgements. */
  judged(state: QrelsState): IdTable {
    return (this.judgedDocs[state] ??= judgedDocsTable(this.qrels(state)));
  }

  private forgetDerived(run: Run): void {
    for (const [k, d] of this.derived) if (d.runs.includes(run)) this.derived.delete(k);
  }

  private changed(queryId: string | null): void {
    this.version++;
    this.changes.push({ version: this.version, queryId });
    if (this.changes.length > CHANGE_LOG) this.changes.shift();
  }

  private entry(key: string): RunEntry {
    const e = this.runs.get(key);
    if (!e) throw new Error(`no run ${key} in ${this.datasetName} (${this.split})`);
    return e;
  }

  /** The effective judgements of one query: the original ones, superseded by the user's. */
  private mergedQuery(queryId: string): Map<string, number> {
    const grades = this.original.get(queryId) ?? new Map<string, number>();
    for (const j of this.overlay.values()) if (j.queryId === queryId) grades.set(j.docId, j.grade);
    return grades;
  }

  private judgedAnywhere(docId: string): boolean {
    const b = encodeId(docId);
    return this.judged('annotated').find(b, 0, b.length) >= 0;
  }

  /** Re-evaluates `queries` of a run on the annotated qrels into `into`, then its summaries; false if a query is new to it. */
  private rescore(run: Run, into: Scores, queries: ReadonlySet<string>): boolean {
    const res = evaluate(this.annotated, run, {
      measures: this.measures,
      complete: this.complete,
      relevanceLevel: this.relevanceLevel,
      onlyQueries: queries,
      judgedDocs: this.judged('annotated'),
    });
    const rows = rowsOf(into.queries);
    const cols = columnsOf(res);
    for (const [qi, q] of res.queries.entries()) {
      const at = rows.get(q);
      if (at === undefined) return false;
      cols.forEach((c, ci) => (into.columns[ci][at] = c[qi]));
    }
    into.means = meansOf(into.columns, into.names, res.columns, this.annotated, this.complete, into.queries.length, into.answered);
    return true;
  }

  private merge(): Qrels {
    if (this.overlay.size === 0) return this.original;
    return this.original.withJudgements([...this.overlay.values()].map((j) => ({ qid: j.queryId, docid: j.docId, grade: j.grade })));
  }

  private evaluateRun(state: QrelsState, run: Run): Scores {
    return scoreRun(this.qrels(state), run, { complete: this.complete, relevanceLevel: this.relevanceLevel, measures: this.measures, judgedDocs: this.judged(state) });
  }
}

/** Each query's row in a Scores' queries (kept per array: the clones of a run's scores share it). */
const rowIndexes = new WeakMap<readonly string[], Map<string, number>>();

export function rowsOf(queries: readonly string[]): Map<string, number> {
  let rows = rowIndexes.get(queries);
  if (!rows) rowIndexes.set(queries, (rows = new Map(queries.map((q, i) => [q, i]))));
  return rows;
}

function cloneScores(s: Scores): Scores {
  return { queries: s.queries, names: s.names, columns: s.columns.map((c) => c.slice()), means: [...s.means], answered: s.answered };
}
