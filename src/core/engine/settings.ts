
/** What the tree shows for every run, whatever the measures setting says. */
export const REQUIRED_MEASURES = ['ndcg_cut.10', 'hole.10'] as const;

/** How runs are evaluated (settings irWorkbench.evaluation.*). */
export interface EvaluationSettings {
  /** trec_eval measure names, e.g. ndcg_cut.10; REQUIRED_MEASURES are always added. */
  measures: readonly string[];
  /** trec_eval -c (default true: BEIR's and Anserini's convention). */
  complete?: boolean;
  /** trec_eval -l (default 1). */
  relevanceLevel?: number;
}

/** The settings with defaults filled in and the required measures added, in a stable form to compare. */
export function evaluationOf(s: EvaluationSettings): Required<EvaluationSettings> {
  return {
    measures: [...new Set([...REQUIRED_MEASURES, ...s.measures])],
    complete: s.complete ?? true,
    relevanceLevel: s.relevanceLevel ?? 1,
  };
}
