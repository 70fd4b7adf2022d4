import type { Database } from 'sql.js';
import { datasetId, readDocument } from './queries';
import { rows } from './sql';

/** One judgement pair as the qrels editor shows it: the original grade, the user's (superseding it), and when. */
export interface QrelsLineInfo {
  /** Grade in the split's original qrels (qrels/<split>.tsv), or null when it has none. */
  original: number | null;
  /** The user's grade (last line of qrels/<split>.annotations.tsv; -1 = back to unjudged), or null. */
  yours: number | null;
  /** When the user judged it (ISO time), when the annotations file records it. */
  at: string | null;
  query: string | null;
  /** The document's title; null when corpus.jsonl has no such document. */
  title: string | null;
  /** Grades to offer: 0 and every grade the original qrels use, ascending. */
  scale: number[];
}

/** The user's judgement of one pair of a split, as QrelsLineInfo's `yours` and `at`. */
export interface UserJudgement {
  queryId: string;
  docId: string;
  grade: number;
  at: string | null;
}

/** What the qrels editor's hover says about a line, from the store's tables (the corpus read by offset). */
export async function qrelsLineInfo(db: Database, a: { datasetDir: string; split: string; queryId: string; docId: string }): Promise<QrelsLineInfo> {
  const id = datasetId(db, a.datasetDir);
  if (id === undefined) return { original: null, yours: null, at: null, query: null, title: null, scale: [0, 1] };
  const key = [id, a.split, a.queryId, a.docId];
  const original = rows<{ grade: number }>(db, 'SELECT grade FROM qrels WHERE dataset_id = ? AND split = ? AND query_id = ? AND doc_id = ?', key)[0];
  const yours = rows<{ grade: number; judged_at: string | null }>(
    db,
    'SELECT grade, judged_at FROM judgements WHERE dataset_id = ? AND split = ? AND query_id = ? AND doc_id = ?',
    key,
  )[0];
  const query = rows<{ text: string }>(db, 'SELECT text FROM queries WHERE dataset_id = ? AND query_id = ?', [id, a.queryId])[0];
  return {
    original: original?.grade ?? null,
    yours: yours?.grade ?? null,
    at: yours?.judged_at ?? null,
    query: query?.text ?? null,
    title: (await readDocument(db, a.datasetDir, a.docId))?.title ?? null,
    scale: gradeScale(db, id, a.split) ?? [0, 1],
  };
}

/**
 * A split's grade scale: 0, 1 and every grade its original qrels use, ascending; undefined when it has no
 * original qrels (the scale is then not known). Judgements are checked against it, whoever sends them.
 */
export function gradeScale(db: Database, datasetId: number, split: string): number[] | undefined {
  const grades = rows<{ grade: number }>(db, 'SELECT DISTINCT grade FROM qrels WHERE dataset_id = ? AND split = ? AND grade >= 0', [datasetId, split]).map((r) => r.grade);
  return grades.length === 0 ? undefined : [...new Set([0, 1, ...grades])].sort((x, y) => x - y);
}

/** Every judgement of the user on a split (the lines a qrels editor marks as overridden). */
export function splitJudgements(db: Database, a: { datasetDir: string; split: string }): UserJudgement[] {
  const id = datasetId(db, a.datasetDir);
  if (id === undefined) return [];
  return rows<{ query_id: string; doc_id: string; grade: number; judged_at: string | null }>(
    db,
    'SELECT query_id, doc_id, grade, judged_at FROM judgements WHERE dataset_id = ? AND split = ?',
    [id, a.split],
  ).map((r) => ({ queryId: r.query_id, docId: r.doc_id, grade: r.grade, at: r.judged_at }));
}

/** The note of the user's judgement of each pair (the journal's, as indexed), undefined where it has none. */
export function judgementNotes(db: Database, a: { datasetDir: string; split: string }, pairs: readonly { queryId: string; docId: string }[]): (string | undefined)[] {
  const id = datasetId(db, a.datasetDir);
  if (id === undefined || pairs.length === 0) return pairs.map(() => undefined);
  const stmt = db.prepare('SELECT note FROM judgements WHERE dataset_id = ? AND split = ? AND query_id = ? AND doc_id = ?');
  try {
    return pairs.map((p) => {
      stmt.bind([id, a.split, p.queryId, p.docId]);
      const note = stmt.step() ? stmt.get()[0] : null;
      stmt.reset();
      return typeof note === 'string' ? note : undefined;
    });
  } finally {
    stmt.free();
  }
}
