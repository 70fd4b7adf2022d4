import { corpusFile } from '../formats/datasetFolder';
import { readDocumentAt } from '../formats/documentAt';
import type { Database } from 'sql.js';
import type { DatasetNode, DocumentText, LeftOutRun, RunNode, SplitNode } from './nodes';
import type { Problem } from '../formats/problems';
import { rows } from './sql';

/** The questions the UI asks the store; each is one or a few indexed lookups. */

export function datasetTree(db: Database): DatasetNode[] {
  const datasets = rows<{ id: number; path: string; name: string; doc_count: number; query_count: number }>(
    db,
    'SELECT id, path, name, doc_count, query_count FROM datasets ORDER BY name, path',
  );
  const splits = rows<{
    dataset_id: number;
    split: string;
    qrels_path: string | null;
    annotations_path: string;
    qrels_queries: number;
    qrels_count: number;
    judgement_count: number;
  }>(
    db,
    `SELECT s.dataset_id, s.split, s.qrels_path, s.annotations_path,
       (SELECT COUNT(DISTINCT query_id) FROM qrels q WHERE q.dataset_id = s.dataset_id AND q.split = s.split) AS qrels_queries,
       (SELECT COUNT(*) FROM qrels q WHERE q.dataset_id = s.dataset_id AND q.split = s.split) AS qrels_count,
       (SELECT COUNT(*) FROM judgements j WHERE j.dataset_id = s.dataset_id AND j.split = s.split AND j.grade >= 0) AS judgement_count
     FROM splits s`,
  );
  const runs = rows<{ id: number; path: string; dataset_id: number; tag: string; created_at: string; query_count: number; result_count: number }>(
    db,
    'SELECT id, path, dataset_id, tag, created_at, query_count, result_count FROM runs WHERE dataset_id IS NOT NULL ORDER BY path',
  );
  const leftOut = rows<{ path: string; dataset_id: number; reason: string; first_line: number; splits: string | null }>(
    db,
    'SELECT path, dataset_id, reason, first_line, splits FROM left_out_runs WHERE dataset_id IS NOT NULL ORDER BY path',
  ).map((r) => ({ ...r, in: r.splits === null ? null : new Set(JSON.parse(r.splits) as string[]) }));
  const means = rows<{ run_id: number; split: string; measure: string; original: number; annotated: number; query_count: number; answered: number }>(
    db,
    'SELECT run_id, split, measure, original, annotated, query_count, answered FROM run_means',
  );
  const meansOf = new Map<string, { original: Record<string, number>; annotated: Record<string, number>; coverage: { answered: number; total: number } }>();
  for (const m of means) {
    const key = `${m.run_id}\t${m.split}`;
    const rec = meansOf.get(key) ?? { original: {}, annotated: {}, coverage: { answered: m.answered, total: m.query_count } };
    rec.original[m.measure] = m.original;
    rec.annotated[m.measure] = m.annotated;
    meansOf.set(key, rec);
  }
  const order = (s: string) => (s === 'test' ? 0 : s === 'dev' ? 1 : s === 'train' ? 2 : 3);
  return datasets.map((d) => ({
    id: d.id,
    dir: d.path,
    name: d.name,
    docCount: d.doc_count,
    queryCount: d.query_count,
    splits: splits
      .filter((s) => s.dataset_id === d.id)
      .sort((a, b) => order(a.split) - order(b.split) || (a.split < b.split ? -1 : 1))
      .map(
        (s): SplitNode => ({
          split: s.split,
          qrelsPath: s.qrels_path,
          annotationsPath: s.annotations_path,
          qrelsQueries: s.qrels_queries,
          qrelsCount: s.qrels_count,
          judgementCount: s.judgement_count,
          runs: runs
            .filter((r) => r.dataset_id === d.id && meansOf.has(`${r.id}\t${s.split}`))
            .map(
              (r): RunNode => ({
                id: r.id,
                path: r.path,
                tag: r.tag,
                createdAt: r.created_at,
                queryCount: r.query_count,
                resultCount: r.result_count,
                means: meansOf.get(`${r.id}\t${s.split}`)!.original,
                annotated: meansOf.get(`${r.id}\t${s.split}`)!.annotated,
                coverage: meansOf.get(`${r.id}\t${s.split}`)!.coverage,
              }),
            ),
          leftOut: leftOut.filter((r) => r.dataset_id === d.id && (r.in === null || r.in.has(s.split))).map((r): LeftOutRun => ({ path: r.path, reason: r.reason, line: r.first_line })),
        }),
      ),
  }));
}

export function storedProblems(db: Database): Problem[] {
  return rows<Problem>(db, 'SELECT file, line, severity, message FROM problems ORDER BY file, line');
}

/**
 * Reads one document from the dataset's corpus file (corpus.jsonl, a TSV collection, either maybe gzipped: the
 * file `irw` reads, see corpusFile) at its stored offset: text never lives in the database. A gzipped corpus
 * is decompressed up to the document (see readDocumentAt).
 */
export async function readDocument(db: Database, datasetDir: string, docId: string): Promise<DocumentText | null> {
  const hit = rows<{ offset: number; length: number }>(
    db,
    'SELECT d.offset, d.length FROM documents d JOIN datasets s ON s.id = d.dataset_id WHERE s.path = ? AND d.doc_id = ?',
    [datasetDir, docId],
  )[0];
  if (!hit) return null;
  const corpus = corpusFile(datasetDir);
  const doc = await readDocumentAt(corpus, hit.offset, hit.length);
  if (doc?.id !== docId) {
    throw new Error(`${corpus} changed since it was indexed: re-index the workspace (IR Workbench: Re-index Workspace).`);
  }
  return { id: docId, title: doc.title, text: doc.text };
}

export function datasetId(db: Database, datasetDir: string): number | undefined {
  return rows<{ id: number }>(db, 'SELECT id FROM datasets WHERE path = ?', [datasetDir])[0]?.id;
}

