/**
 * Tuning's options and their defaults, apart from the tuning code (the editor's Run BEIR Eval step names them
 * without loading it).
 */
export interface TuneOptions {
  /** One trec_eval value, e.g. ndcg_cut.10. */
  measure: string;
  folds: number;
  seed: number;
  relevanceLevel: number;
  resamples: number;
  /** Paired test of the held-out gain (PAIRED_TESTS). */
  test: string;
}

export const TUNE_DEFAULTS: TuneOptions = { measure: 'ndcg_cut.10', folds: 5, seed: 1, relevanceLevel: 1, resamples: 10_000, test: 't' };
