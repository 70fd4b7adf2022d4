import type { Database } from 'sql.js';
import { evaluate } from '../eval';
import { Qrels } from '../formats/qrels';
import { problemFrom, type Problem } from './problems';
import { runCache } from './runCache';
import { rows, transaction } from './sql';

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

/** A split's qrels as evaluation sees them: the originals, superseded by the user's judgements. */
export function effectiveQrels(db: Database, datasetId: number, split: string): Qrels {
  const stmt = db.prepare('SELECT query_id, doc_id, grade FROM effective_qrels WHERE dataset_id = ? AND split = ?');
  const judgements: { qid: string; docid: string; grade: number }[] = [];
  try {
    stmt.bind([datasetId, split]);
    while (stmt.step()) {
      const [qid, docid, grade] = stmt.get() as [string, string, number];
      judgements.push({ qid, docid, grade });
    }
  } finally {
    stmt.free();
  }
  return Qrels.fromJudgements(judgements);
}

/**
 * Evaluates runs of a dataset against one split (by default as trec_eval -c: queries of the qrels missing
 * from a run score 0) and stores per-query values and means. A run that retrieves for none of the split's queries gets no
 * figures for it, so the tree does not list it under that split.
 */
export function evaluateRunsOnSplit(
  db: Database,
  datasetId: number,
  split: string,
  runIds: readonly number[],
  evaluation: Required<EvaluationSettings>,
  problems: Problem[],
): void {
  const qrels = effectiveQrels(db, datasetId, split);
  for (const { id, path } of rows<{ id: number; path: string }>(db, `SELECT id, path FROM runs WHERE id IN (${runIds.map(() => '?').join(',')})`, [...runIds])) {
    db.run('DELETE FROM metrics WHERE run_id = ? AND split = ?', [id, split]);
    db.run('DELETE FROM run_means WHERE run_id = ? AND split = ?', [id, split]);
    let run;
    try {
      run = runCache.get(path);
    } catch (e) {
      problems.push(problemFrom(path, e));
      continue;
    }
    if (qrels.size === 0 || !run.qids.some((q) => qrels.has(q))) continue;
    const result = evaluate(qrels, run, evaluation);
    transaction(db, () => {
      const width = result.columns.length;
      const perQuery = db.prepare('INSERT INTO metrics (run_id, split, query_id, measure, value) VALUES (?, ?, ?, ?, ?)');
      try {
        result.queries.forEach((qid, q) => {
          result.columns.forEach((c, i) => perQuery.run([id, split, qid, c.name, result.values[q * width + i]]));
        });
      } finally {
        perQuery.free();
      }
      result.columns.forEach((c, i) => {
        db.run('INSERT INTO run_means (run_id, split, measure, value, query_count) VALUES (?, ?, ?, ?, ?)', [id, split, c.name, result.summary[i], result.numQ]);
      });
    });
  }
}
