/** What the store answers the UI with: plain data, cloneable across the worker boundary. */

export interface DatasetNode {
  id: number;
  dir: string;
  name: string;
  docCount: number;
  queryCount: number;
  splits: SplitNode[];
}

export interface SplitNode {
  split: string;
  qrelsPath: string | null;
  annotationsPath: string;
  /** Judged queries and judgements in the original qrels. */
  qrelsQueries: number;
  qrelsCount: number;
  /** The user's judgements (after supersession). */
  /** The user's judgements in effect: a pair undone back to unjudged (grade -1) is not counted. */
  judgementCount: number;
  runs: RunNode[];
  /** Run files of the dataset that are not indexed because they are bad (see the Problems panel). */
  leftOut: LeftOutRun[];
}

export interface LeftOutRun {
  path: string;
  /** The first problem, and how many bad lines the file has when there are more. */
  reason: string;
  /** 1-based line of the first problem; 0 = the whole file. */
  line: number;
}

export interface RunNode {
  id: number;
  path: string;
  tag: string;
  createdAt: string;
  queryCount: number;
  resultCount: number;
  /** Mean over the split's queries by trec_eval measure name (e.g. ndcg_cut_10, hole_10), on the original qrels. */
  means: Record<string, number>;
  /** The same with the user's judgements merged in (equal to `means` when there are none). */
  annotated: Record<string, number>;
  /** Queries of the split the run answers, of the split's queries averaged over (queryCount is the file's). */
  coverage: { answered: number; total: number };
  /** nDCG@10's range over every grading of the holes (with the user's judgements), once the engine computed it. */
  ndcgRange?: { lo: number; hi: number; exact: boolean; holes: number };
}

export interface DocumentText {
  id: string;
  title: string;
  text: string;
}

export interface IndexSummary {
  datasets: number;
  runs: number;
  /** Files read again in this pass (changed or new). */
  reindexed: string[];
  /** Datasets and runs that disappeared from disk and were dropped. */
  removed: string[];
  problems: number;
  /** Bad lines left out where going on was safe. */
  skippedLines: number;
  /** Open splits whose qrels or judgements changed on disk (their views must be refreshed): `${datasetDir}\t${split}`. */
  changedSplits: string[];
  ms: number;
}
