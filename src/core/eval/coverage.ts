import { InputError } from '../formats/errors';
import type { Run } from '../formats/run';

/**
 * Whether a run and qrels belong together, the rule `irw eval` and `irw compare` share: a run that answers no
 * query of the qrels is refused (trec_eval refuses it too; with -c every mean would be a plausible 0), and one
 * that answers fewer than half of them gets a warning (a run often covers more queries than one split's qrels,
 * rarely fewer).
 */
export function checkCoverage(qrels: { queryIds(): readonly string[] }, run: Run, qrelsPath: string, runPath: string, complete: boolean): { shared: number; warning?: string } {
  const qids = qrels.queryIds();
  let shared = 0;
  for (const q of qids) if (run.queryIndex(q) >= 0) shared++;
  if (shared === 0) {
    throw new InputError({
      code: 'unknown-id',
      message: `no query is in both ${qrelsPath} and ${runPath}`,
      file: runPath,
      hint: "Check that the run's query ids (column 1) match the qrels' (the run may be for another dataset or split).",
    });
  }
  if (shared * 2 >= qids.length) return { shared };
  return {
    shared,
    warning:
      `only ${shared} ${shared === 1 ? 'query is' : 'queries are'} in both files (${qids.length} in the qrels, ${run.qids.length} in the run): ` +
      `check that they belong together${complete ? '; the queries the run lacks score 0' : ''}.`,
  };
}
