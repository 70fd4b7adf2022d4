/**
 * The one message protocol between the extension host and the webviews (results, diff, holes panels and the
 * annotation view). Shared by src/ and webview/: both sides import these types; no other postMessage
 * payloads exist.
 *
 * Every message carries `v` (WEBVIEW_PROTOCOL_VERSION, bumped whenever a shape changes). A webview sends
 * `request`s, each with an id; the host answers each with exactly one `response` of that id. The host pushes
 * state with `event`s (no id), and then, for the same kind, `patch`es: what changed since the one before
 * (src/protocol/jsonDiff.ts). Each carries a number (`seq`), a patch the number of the state it changes (`base`):
 * a page that does not have that state says `ready` again and gets every state whole. Requests and events are
 * typed per view: ViewRequests[view][method] and ViewEvents[view][kind].
 */
import type { PairExplanation } from '../core/engine/explainRequests';
import type { QueryEdit, WhatIfResult } from '../core/retrieval/bm25/whatIf';
import type { Explanation } from '../core/retrieval/explain';
import type { HoleEstimate } from '../core/eval/holes/estimate';
import type { Patch } from './jsonDiff';
export type { Explanation, PairExplanation, QueryEdit, WhatIfResult };

export const WEBVIEW_PROTOCOL_VERSION = 8;

export type ViewName = 'results' | 'diff' | 'holes' | 'annotate';

/** A measure column: `key` is the trec_eval value name (plus recip_rank_10, recip_rank on the top 10). */
export interface MeasureColumn {
  key: string;
  label: string;
  /** Effectiveness measures get significance tests; coverage measures (Judged@10, Hole@10) do not. */
  tested: boolean;
  /** Lower is better (Hole@10). */
  lowerIsBetter?: boolean;
  /** Averaged over the queries the run answers (coverage measures), not over the split's: shown with the coverage. */
  onAnswered?: boolean;
}

export interface RunRef {
  /** Stable key of the run within the panel (its file path). */
  key: string;
  label: string;
}

/** One comparison's tests, b - a (in the Results table: the run minus the baseline). */
export interface Comparison {
  delta: number;
  tP: number;
  tPHolm: number;
  randP: number;
  randPHolm: number;
  wins: number;
  ties: number;
  losses: number;
  /** The p-values adjusted by the model's `correction` over its family of comparisons (= the Holm ones under Holm). */
  tPAdj?: number;
  randPAdj?: number;
  /** Paired percentile bootstrap 95 % interval of delta (10,000 resamples, the model's seed). */
  ci?: { lo: number; hi: number };
}

/** Which comparisons the Results table tests: each run against the baseline, or every pair (irw compare --all-pairs). */
export type CompareMode = 'baseline' | 'all-pairs';
/** The correction over each measure's family of comparisons (src/core/eval/stats CORRECTIONS). */
export type CorrectionName = 'holm' | 'bh' | 'bonferroni';

/** All-pairs mode: runs a and b (keys), their tests b - a by measure index, and settled or open under the holes. */
export interface PairResult {
  a: string;
  b: string;
  tests: (Comparison | null)[] | null;
  settled: (HoleVerdict | null)[] | null;
  /** b - a estimated with the holes judged, by measure index (null where the pair's runs miss queries of the qrels). */
  estimates: (EstimateView | null)[] | null;
}

/** Per-query average length (words of title + text) of the top-10 documents, summarised as a box plot. */
export interface LengthSummary {
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
  mean: number;
  queries: number;
}

export interface ResultsRow extends RunRef {
  /** By measure, in `measures` order: with the original qrels (holes count as non-relevant). */
  means: number[];
  /** With the user's judgements merged in (null when there are none for this split). */
  annotated: number[] | null;
  /** Against the baseline, by measure index (null for the baseline itself and for untested measures). */
  vsBaseline: (Comparison | null)[] | null;
  lengths: LengthSummary;
  /**
   * By measure: the range the mean (with the user's judgements) can take over every grading of the holes left
   * in the run's own top 10 (null where no range is computed: coverage measures).
   */
  intervals?: (ScoreRange | null)[];
  /**
   * By measure, this run minus the baseline over the holes in either's top 10: settled or open (null for the
   * baseline, and for a measure deeper than the pool: R@100, MAP).
   */
  settled?: (HoleVerdict | null)[] | null;
  /** By measure, the run's estimate with its holes judged (null where none is computed yet). */
  estimates?: (EstimateView | null)[];
  /** By measure, this run minus the baseline estimated, with the verdict (null for the baseline). */
  compared?: (EstimateView | null)[] | null;
  /** Queries of the split the run ranks (answered) out of the split's queries averaged over (total). */
  coverage: { answered: number; total: number };
}

/** The range of a score over every grading of the remaining holes (holes: how many are left). */
export interface ScoreRange {
  lo: number;
  hi: number;
  /** False when the range is a sound bound, not the tightest (too many holes for an exact search). */
  exact: boolean;
  holes: number;
  /** The mean with unjudged documents dropped from the rankings (trec_eval -J), where known. */
  judgedOnly?: number;
}

/**
 * A comparison under holes: the range of the mean difference (this run minus the other) over every grading
 * of the holes, the same grading for both runs. Settled when no grading can change the sign.
 */
export interface HoleVerdict extends ScoreRange {
  delta: number;
  verdict: 'settled' | 'open';
  /** 1: this run better under every grading, -1: worse, 0: open (or a tie under every grading). */
  direction: 1 | -1 | 0;
  /** Queries, and their holes, that keep it open (0 when settled). */
  openQueries: number;
  openHoles: number;
  /** Paired t-test at alpha: significant now, and whether some grading loses it, or gains it. */
  significant: boolean;
  canLose: boolean;
  canGain: boolean;
}

/** How an estimate is made, in words for every view's tooltip. */
export const ESTIMATE_METHOD =
  'Estimate with every unjudged document of the top 100 judged: a relevance model (logistic, by the rank in each run and the number of relevant documents of the query; ' +
  'fitted to the holes judged so far, its uncertainty carried by 200 posterior draws) predicts what each hole adds, and the 95 % interval is of what the holes hide, ' +
  'on this set of queries (not a test over queries). Judging from the sampling queue also gives a design-based estimate.';

/** A comparison's verdict from its estimate's 95 % interval (b - a): a sign, "within" ±0.01, or undecided. */
export type EstimateVerdict = 'a better' | 'b better' | 'within' | 'undecided';

/**
 * What the holes hide (issue 23): the estimate of a run's mean (or of b - a) with every hole of the top
 * `depth` judged, from a relevance model fitted to the judgements, and its 95 % interval.
 */
export interface EstimateView extends HoleEstimate {
  /** The depth of the lists whose holes are estimated (the top 100). */
  depth: number;
  /** For a comparison. */
  verdict?: EstimateVerdict;
  /** The judgements it is of (an estimate is recomputed in the background after a judgement). */
  on: QrelsLabel;
}

/** The judging loop's meter: the comparison of two pooled runs the impact and sampling orders work on. */
export interface JudgingMeter {
  a: RunRef;
  b: RunRef;
  measure: string;
  /** b - a over the holes in either run's top 10: the figures the Diff and the Results table give this pair. */
  verdict: HoleVerdict;
  /** Holes of the two runs judged since the queue was made. */
  judged: number;
  qrels: QrelsLabel;
  /** With the sampling order: b - a estimated, its interval after each judgement since the queue was opened, and about how many more judgements give a verdict. */
  estimate?: EstimateView;
  history?: { judged: number; estimate: number; lo: number; hi: number }[];
  toDecide?: number;
}

/**
 * Which qrels a figure is computed on: the dataset's own ('original'), or with the user's judgements
 * ('annotated', once there are any); `version` changes with every judgement, so two figures of the same
 * version are of the same judgements.
 */
export interface QrelsLabel {
  state: 'original' | 'annotated';
  judgements: number;
  version: number;
}

export type QueueOrder = 'blind' | 'impact' | 'sample';

/**
 * One comparison of the Results table query by query (its per-query plot): b - a on `measure` with the queries
 * paired as the tests pair them, on the qrels in effect, in the split's query order (the page sorts: a
 * judgement then changes one query's entry, and the state pushed after it is patched by that entry). The mean
 * and its interval are the table's (Comparison), not repeated here.
 */
export interface QueryDeltas {
  a: string;
  b: string;
  /** The measure's key (a tested MeasureColumn). */
  measure: string;
  qrels: QrelsLabel;
  queries: string[];
  deltas: number[];
  /** Each query's range of b - a over every grading of the holes in either top 10, parallel to `queries`, where computed. */
  ranges?: { lo: number[]; hi: number[] };
  /** Queries where b beats, ties or loses to a (as the table counts them). */
  wins: number;
  ties: number;
  losses: number;
}

/** The comparison a Results panel plots query by query. */
export interface QueryPlot {
  a: string;
  b: string;
  measure: string;
}

/** The per-query plot's state, pushed as the model is: its deltas, or why they cannot be computed. */
export type QueryPlotState = { plot: QueryPlot; deltas: QueryDeltas } | { plot: QueryPlot; error: string };

export interface ResultsModel {
  dataset: string;
  split: string;
  /** Queries averaged over (the split's judged queries with -c). */
  numQueries: number;
  measures: MeasureColumn[];
  rows: ResultsRow[];
  baseline: string;
  /** Significance level and test settings, shown with the table. */
  alpha: number;
  trials: number;
  seed: number;
  /** The comparisons tested and the correction (absent: against the baseline, Holm). */
  compare?: CompareMode;
  correction?: CorrectionName;
  /** With compare 'all-pairs': every pair of runs in row order (vsBaseline is then null). */
  pairs?: PairResult[] | null;
  /**
   * The tests are being computed for the judgements in effect (after a judgement, or on a large split):
   * vsBaseline holds the last ones computed (on `significanceOn`), or null before the first.
   */
  significancePending: boolean;
  /** The qrels the tests in vsBaseline were computed on (null before the first). */
  significanceOn: QrelsLabel | null;
  /** The qrels of the annotated figures, the ranges and the verdicts (the current state). */
  qrels: QrelsLabel;
  judgements: number;
  /** Run files that could not be used, with why. */
  skipped: { file: string; reason: string }[];
  /** Restricted mode: shown as a note (no process or model is started). */
  untrusted: boolean;
  /** How a query a run does not answer is counted in means and tests: 'zero' = as 0 (trec_eval -c). */
  missingQueries: 'zero';
  /** What the figures were computed on, and runs made on other data (absent while it is computed). */
  provenance?: ResultsProvenance;
}

/** The qrels state the figures used (hash and counts), and warnings from the runs' recorded provenance. */
export interface ResultsProvenance {
  /**
   * The split's qrels file as the figures read it; null for a split of the user's judgements only. `now`: the
   * file as it is on disk, when it has changed since (the figures are those of the qrels as read until the
   * workspace index reads the file again).
   */
  qrels: { path: string; sha256: string; judgements: number; queries: number; now?: { sha256: string; judgements: number; queries: number } } | null;
  warnings: { run: string; message: string }[];
}

/** Setting irWorkbench.judging.gradeLabels: per dataset folder name ("*": any other), grade -> label. */
export type GradeLabels = Record<string, Record<string, string>>;

export type ExportFormat = 'markdown' | 'csv' | 'latex';

export type Move = 'up' | 'down' | 'same' | 'new' | 'dropped';

export interface DiffModel {
  dataset: string;
  split: string;
  a: RunRef;
  b: RunRef;
  measure: string;
  /** Parallel arrays over the split's queries, sorted by delta = b - a descending (then by query id). */
  queries: string[];
  deltas: number[];
  /** Queries with at least one unjudged document in either top 10: 1, else 0. */
  holes: number[];
  /** The queries' text, parallel to `queries`. */
  texts: string[];
  /** Means with the user's judgements merged in (the bars' figures). */
  meanA: number;
  meanB: number;
  /** The same on the original qrels. */
  originalA: number;
  originalB: number;
  /** The user's judgements in effect on the split (0: both figures are the original ones). */
  judgements: number;
  /** The qrels of the deltas, the means and the ranges. */
  qrels: QrelsLabel;
  /** b - a under the remaining holes; perQuery: the range of each query's delta, parallel to `queries`. */
  range?: HoleVerdict;
  perQuery?: { lo: number[]; hi: number[] };
  /** The range of each mean over the holes. */
  intervalA?: ScoreRange;
  intervalB?: ScoreRange;
  /** b - a estimated with the holes of both runs' top 100 judged, and the verdict. */
  estimate?: EstimateView;
  /**
   * Rank-biased overlap of the two top-100 lists per query (p = 0.9, extrapolated, equal scores as ties; no
   * judgements needed), parallel to `queries`, and its mean: the diff can sort by divergence (1 - RBO).
   */
  rbo?: number[];
  rboMean?: number;
}

export interface RankedDoc {
  docId: string;
  rank: number;
  score: number;
  /** Effective grade (annotations over qrels); null: unjudged (a hole). */
  grade: number | null;
  /** Position in the other run's list: up/down relative to it, new (absent there), same. */
  move: Move;
  /** 1-based rank in the other run, or null when absent from its list. */
  otherRank: number | null;
  title: string;
  snippet: string;
}

export interface QueryDetail {
  queryId: string;
  text: string;
  depth: number;
  a: RankedDoc[];
  b: RankedDoc[];
  /** In a's top `depth` but not in b's (for b: the reverse), i.e. dropped by b. */
  droppedFromA: string[];
  scoreA: number;
  scoreB: number;
  grades: number[];
}

export interface HoleRow extends RunRef {
  /** BEIR's definition: share of top-10 documents judged for no query at all. */
  holeBeir: number;
  /** Per query: unj.10, the share of the top 10 not judged for that query (1 - judged.10 for full lists). */
  holeQuery: number;
  /** The same after the user's judgements. */
  holeBeirAnnotated: number;
  holeQueryAnnotated: number;
  /** The figures are over the `answered` queries of the split's `total` (a query the run does not answer has no top 10). */
  coverage: { answered: number; total: number };
}

export interface HolesModel {
  dataset: string;
  split: string;
  depth: number;
  rows: HoleRow[];
  /** Runs whose top-`depth` unjudged documents are pooled (keys). */
  pooled: string[];
  /** Distinct unjudged (query, document) pairs in the pool, before and after judging. */
  poolSize: number;
  remaining: number;
  grades: number[];
  /** Queue order: blind (a hash of the document id), impact (what decides the first two pooled runs) or sample (drawn where it narrows their estimate). */
  order?: QueueOrder;
  /** With the impact order (two or more pooled runs): how open their comparison still is. */
  meter?: JudgingMeter | null;
  /** The qrels the figures are on (its version changes with every judgement). */
  qrels?: QrelsLabel;
}

/** One pair of the judging queue as the Judge sidebar shows it. No run names: the judge is blind to which run retrieved it. */
export interface AnnotationItem {
  queryId: string;
  queryText: string;
  docId: string;
  title: string;
  text: string;
  /** The grade in effect for the pair (pool pairs have none in the qrels: it is yours), null while it is a hole. */
  grade: number | null;
  /** The note of your judgement of the pair (the annotations journal), if it has one. */
  note?: string;
}

/** A document judged relevant for a query (in the qrels, or by you): listed beside a pair for reference. */
export interface ReferenceDoc {
  docId: string;
  title: string;
  grade: number;
  /** Your judgement, not the qrels'. */
  yours: boolean;
}

export interface AnnotationState {
  dataset: string;
  split: string;
  /** The dataset's grade scale, from its qrels (e.g. [0, 1] binary, [0, 1, 2] graded). */
  grades: number[];
  index: number;
  total: number;
  /** The user's judgements in effect for the split, as the Datasets tree and the Results panel count them. */
  judged: number;
  item: AnnotationItem | null;
  /** Per-run table, BEIR paper Table 4: original (with holes) vs annotated nDCG@10. */
  scores: { label: string; original: number; annotated: number }[];
  /** Why nothing can be judged, when nothing can. */
  message: string | null;
  order?: QueueOrder;
  meter?: JudgingMeter | null;
  /** The qrels the figures are on (its version changes with every judgement). */
  qrels?: QrelsLabel;
  /**
   * The queue `index` and `item` are of: another split, pool or order is another queue. The sidebar names it in
   * every request, and the host refuses a request of a queue it no longer holds.
   */
  queue?: number;
  /** Bumped when the host moved the position by itself (a command grading the pair shown): the sidebar then shows `index`. */
  jump?: number;
  /** The pairs after `item` (at index + 1, index + 2, …): the sidebar shows the next one at a keypress, before any answer. */
  ahead?: AnnotationItem[];
  /** For each query of `item` and `ahead`: its documents judged relevant, best first (`more`: how many are not listed). */
  references?: { queryId: string; docs: ReferenceDoc[]; more: number }[];
}

export interface ViewRequests {
  results: {
    setBaseline: { params: { key: string }; result: null };
    /** Which comparisons are tested and how they are corrected (the panel keeps it across reloads). */
    setTesting: { params: { compare: CompareMode; correction: CorrectionName }; result: null };
    export: { params: { format: ExportFormat }; result: { path: string | null } };
    openDiff: { params: { a: string; b: string }; result: null };
    openHoles: { params: Record<string, never>; result: null };
    /** The comparison (b - a) and tested measure of the per-query plot: its `queries` come now and after every change. */
    plot: { params: QueryPlot; result: null };
  };
  diff: {
    query: { params: { queryId: string; depth: number }; result: QueryDetail };
    /** Why each run ranks the document where it does; a run that cannot be explained gets why. */
    explain: { params: { queryId: string; docId: string }; result: DiffExplanation };
    /** The query edited and re-run with run `side`'s own settings, evaluated on the current qrels beside a and b. */
    whatIf: { params: { queryId: string; side: 'a' | 'b'; edit: QueryEdit }; result: WhatIfResult };
    /** Saves the what-if edits of run `side` as a queries file (a save dialog); null when cancelled. */
    saveWhatIf: { params: { side: 'a' | 'b' }; result: { path: string; command: string } | null };
    judge: { params: { queryId: string; docId: string; grade: number }; result: null };
  };
  holes: {
    setPool: { params: { runs: string[]; depth: number; order?: QueueOrder }; result: null };
    annotate: { params: Record<string, never>; result: null };
    judge: { params: { queryId: string; docId: string; grade: number }; result: null };
  };
  annotate: {
    /**
     * Grades the pair the sidebar shows, named in full (queue, its index there, query and document), never another
     * one. Grade -1 is "unsure": recorded as pooled but not judged (what undo records), with the note, so no
     * figure changes. `note` goes to the annotations journal with the grade.
     */
    judge: { params: { queue: number; index: number; queryId: string; docId: string; grade: number; note?: string }; result: null };
    /** The sidebar shows the pair at `index` (moved with n, s or p): the host keeps the position and sends what follows. */
    show: { params: { queue: number; index: number; queryId?: string; docId?: string }; result: null };
    /** Undoes the last judgement of the queue; answers the index of the pair it was of. */
    undo: { params: { queue: number }; result: { index: number } };
    /** The same pool in another order (impact: what decides the first two pooled runs; sample: drawn where it narrows their estimate). */
    setOrder: { params: { order: QueueOrder }; result: null };
    /** The blind explanation of the pair on screen (named by the page, as a grade is): the query terms the document holds (BM25 defaults), no run. */
    explain: { params: { queryId: string; docId: string }; result: PairExplanation };
  };
}

/** One run's explanation of a document, or why there is none. */
export type RunExplanation = Explanation | { error: string };

export interface DiffExplanation {
  queryId: string;
  docId: string;
  a: RunExplanation;
  b: RunExplanation;
}

export interface ViewEvents {
  results: { model: ResultsModel; queries: QueryPlotState };
  diff: { model: DiffModel };
  /** queue: the pool's first pairs; `title`: the document's title ('' when it has none or is not in the corpus). */
  holes: { model: HolesModel & { queue: { queryId: string; docId: string; queryText: string; grade: number | null; title?: string }[] } };
  annotate: { state: AnnotationState };
}

export type RequestMessage<V extends ViewName> = {
  [M in keyof ViewRequests[V] & string]: { v: number; type: 'request'; id: number; method: M; params: ParamsOf<V, M> };
}[keyof ViewRequests[V] & string];

export type ParamsOf<V extends ViewName, M extends keyof ViewRequests[V]> = ViewRequests[V][M] extends { params: infer P } ? P : never;
export type ResultOf<V extends ViewName, M extends keyof ViewRequests[V]> = ViewRequests[V][M] extends { result: infer R } ? R : never;

export type ResponseMessage =
  | { v: number; type: 'response'; id: number; ok: true; result: unknown }
  | { v: number; type: 'response'; id: number; ok: false; error: string };

export type EventMessage<V extends ViewName> = {
  [K in keyof ViewEvents[V] & string]: { v: number; type: 'event'; kind: K; seq: number; payload: ViewEvents[V][K] };
}[keyof ViewEvents[V] & string];

/** The state of `kind` numbered `base` changed by `patch` is the one numbered `seq` (a state unchanged is not sent). */
export type PatchMessage<V extends ViewName> = {
  [K in keyof ViewEvents[V] & string]: { v: number; type: 'patch'; kind: K; base: number; seq: number; patch: Patch };
}[keyof ViewEvents[V] & string];

/**
 * The webview announces itself once loaded; the host sends state only after this. Said again (a reload, or a
 * patch of a state the page does not have), the host sends every state whole.
 */
export interface ReadyMessage {
  v: number;
  type: 'ready';
}

export type FromView<V extends ViewName> = RequestMessage<V> | ReadyMessage;
export type ToView<V extends ViewName> = ResponseMessage | EventMessage<V> | PatchMessage<V>;

export function isFromView(m: unknown): m is { v: number; type: string } {
  return typeof m === 'object' && m !== null && (m as { v?: unknown }).v === WEBVIEW_PROTOCOL_VERSION && typeof (m as { type?: unknown }).type === 'string';
}

/**
 * What a panel is of, put in its page by the host and kept by the page in VS Code's view state, so that a window
 * reload brings the panel back (a WebviewPanelSerializer per panel): the split, and per panel what it shows.
 * The page adds what the person chose in it (`restore`): the Results panel's comparisons, the Holes panel's
 * pool and order; sort, scroll and selection stay the page's own.
 */
export interface PanelIdentity {
  datasetDir: string;
  split: string;
  /** Diff: the two runs (b - a). */
  a?: string;
  b?: string;
}

/** The view state key of the identity, and of what the page chose. */
export const PANEL_STATE = 'irwPanel';
export const RESTORE_STATE = 'irwRestore';

/** What the Results and Holes pages record of the person's choices, for the host to apply on a reload. */
export interface PanelChoices {
  compare?: CompareMode;
  correction?: CorrectionName;
  pooled?: string[];
  depth?: number;
  order?: QueueOrder;
}

/** The commands a page may run through `command:` links (its empty states); webviewOptions allows no others. */
export const PAGE_COMMANDS: readonly string[] = ['irWorkbench.judgeHoles', 'irWorkbench.showHoles'];
