import type { Database } from 'sql.js';
import { BEIR_QRELS_HEADER } from './annotations';
import { writeFileAtomic } from '../durableFs';

export interface ExportOptions {
  datasetId: number;
  split: string;
  /** 'trec': `qid 0 docid grade`; 'beir': BEIR's header and `query-id\tcorpus-id\tscore`. */
  format: 'trec' | 'beir';
  /** true: the original qrels with the user's judgements superseding them; false: the judgements alone. */
  merge: boolean;
  out: string;
}

/**
 * Writes a split's judgements as a qrels file, sorted by query then document id in byte order (trec_eval's
 * order; SQLite's BINARY collation compares UTF-8 bytes). Written atomically, so `out` is never left
 * half-written. Returns the number of judgement lines.
 */
export function exportJudgements(db: Database, o: ExportOptions): number {
  const source = o.merge ? 'effective_qrels' : 'judgements';
  const stmt = db.prepare(`SELECT query_id, doc_id, grade FROM ${source} WHERE dataset_id = ? AND split = ? ORDER BY query_id, doc_id`);
  const parts: string[] = o.format === 'beir' ? [BEIR_QRELS_HEADER] : [];
  let lines = 0;
  try {
    stmt.bind([o.datasetId, o.split]);
    while (stmt.step()) {
      const [q, d, g] = stmt.get() as [string, string, number];
      parts.push(o.format === 'beir' ? `${q}\t${d}\t${g}\n` : `${q} 0 ${d} ${g}\n`);
      lines++;
    }
  } finally {
    stmt.free();
  }
  writeFileAtomic(o.out, parts.join(''));
  return lines;
}
