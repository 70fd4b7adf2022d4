import type { Database } from 'sql.js';
import { countWords } from '../formats/text';
import { forEachDatasetDoc, readDatasetQueries } from '../formats/datasetFolder';
import { readQrels } from '../formats/qrels';
import { readAnnotations } from '../judgements/annotations';
import type { DiscoveredDataset } from './discovery';
import { checkFile, forgetFile, recordFile, type FileState } from './fileState';
import { badLineProblems, MAX_BAD_LINES, problemFrom, type Problem } from '../formats/problems';
import { scalar, transaction, transactionAsync } from './sql';

/** What an indexing pass shares between its steps. */
export interface IndexContext {
  problems: Problem[];
  progress(message: string, fraction?: number): void;
  signal?: AbortSignal;
  /** Files (re-)read in this pass, for the summary. */
  reindexed: string[];
  skippedLines: number;
}

export interface IndexedDataset {
  id: number;
  /** Splits whose original qrels or annotations changed: their runs' metrics must be recomputed. */
  changedSplits: Set<string>;
}

/** Brings one dataset's rows up to date with its files, re-reading only the files that changed. */
export async function indexDataset(db: Database, d: DiscoveredDataset, ctx: IndexContext): Promise<IndexedDataset> {
  let id = scalar(db, 'SELECT id FROM datasets WHERE path = ?', [d.dir]) as number | undefined;
  const isNew = id === undefined;
  if (isNew) {
    db.run(
      `INSERT INTO datasets (path, name, corpus_hash, queries_hash, doc_count, query_count, skipped_lines, indexed_at)
       VALUES (?, ?, '', '', 0, 0, 0, ?)`,
      [d.dir, d.name, new Date().toISOString()],
    );
    id = scalar(db, 'SELECT id FROM datasets WHERE path = ?', [d.dir]) as number;
  }
  const datasetId = id as number;

  const corpus = await checkFile(db, d.corpus);
  if (corpus && (corpus.changed || isNew)) await indexCorpus(db, datasetId, corpus.state, ctx);
  const queryFiles: FileState[] = [];
  let queriesChanged = isNew;
  for (const path of d.queries) {
    const q = await checkFile(db, path);
    if (q) {
      queryFiles.push(q.state);
      queriesChanged ||= q.changed;
      continue;
    }
    // Attached to the missing file itself, so that it is replaced on every pass and goes once the file exists.
    forgetFile(db, path);
    ctx.problems.push({
      file: path,
      line: 0,
      severity: 'warning',
      message: `dataset ${d.name} has no queries.jsonl beside its corpus.jsonl; add one ({"_id": "q1", "text": "…"} per line) to judge or evaluate it.`,
    });
  }
  // Also when the set of files changed (a split's queries file added or gone): the table is all of them.
  const queriesHash = queryFiles.map((f) => f.hash).join(',');
  if (queryFiles.length > 0 && (queriesChanged || scalar(db, 'SELECT queries_hash FROM datasets WHERE id = ?', [datasetId]) !== queriesHash)) {
    transaction(db, () => indexQueries(db, datasetId, queryFiles, queriesHash, ctx));
  }

  const changedSplits = new Set<string>();
  const present = new Set(d.splits.map((s) => s.split));
  for (const [split, qrels, annotations] of db.exec('SELECT split, qrels_path, annotations_path FROM splits WHERE dataset_id = ?', [datasetId])[0]?.values ?? []) {
    if (present.has(String(split))) continue;
    db.run('DELETE FROM splits WHERE dataset_id = ? AND split = ?', [datasetId, split]);
    for (const p of [qrels, annotations]) if (typeof p === 'string') forgetFile(db, p);
  }
  for (const s of d.splits) {
    // An upsert, not INSERT OR REPLACE: replacing the row would cascade-delete the split's qrels and judgements.
    db.run(
      `INSERT INTO splits (dataset_id, split, qrels_path, annotations_path) VALUES (?, ?, ?, ?)
       ON CONFLICT (dataset_id, split) DO UPDATE SET qrels_path = excluded.qrels_path, annotations_path = excluded.annotations_path`,
      [datasetId, s.split, s.qrels ?? null, s.annotations],
    );
    if (s.qrels) {
      const q = await checkFile(db, s.qrels);
      if (q && (q.changed || isNew || !hasRows(db, 'qrels', datasetId, s.split))) {
        transaction(db, () => indexQrels(db, datasetId, s.split, q.state, ctx));
        changedSplits.add(s.split);
      }
    }
    const a = await checkFile(db, s.annotations);
    if (a && (a.changed || isNew)) {
      transaction(db, () => indexAnnotations(db, datasetId, s.split, a.state, ctx));
      changedSplits.add(s.split);
    } else if (!a && hasRows(db, 'judgements', datasetId, s.split)) {
      db.run('DELETE FROM judgements WHERE dataset_id = ? AND split = ?', [datasetId, s.split]);
      forgetFile(db, s.annotations);
      changedSplits.add(s.split);
    }
  }
  return { id: datasetId, changedSplits };
}

const spaced = (t: string) => t.replace(/\s+/g, ' ').trim();

function hasRows(db: Database, table: 'qrels' | 'judgements', datasetId: number, split: string): boolean {
  return scalar(db, `SELECT EXISTS (SELECT 1 FROM ${table} WHERE dataset_id = ? AND split = ?)`, [datasetId, split]) === 1;
}

async function indexCorpus(db: Database, datasetId: number, file: FileState, ctx: IndexContext): Promise<void> {
  ctx.progress(`Indexing ${file.path}`, 0);
  forgetFile(db, file.path);
  let count = 0;
  const bad: Problem[] = [];
  await transactionAsync(db, async () => {
    db.run('DELETE FROM documents WHERE dataset_id = ?', [datasetId]);
    const insert = db.prepare('INSERT INTO documents (dataset_id, doc_id, offset, length, words) VALUES (?, ?, ?, ?, ?)');
    let nextReport = 0;
    try {
      await forEachDatasetDoc(
        file.path,
        (doc) => {
          insert.run([datasetId, doc.id, doc.offset, doc.length, countWords(doc.title) + countWords(doc.text)]);
          count++;
          if (doc.offset >= nextReport) {
            ctx.progress(`Indexing ${file.path}: ${count.toLocaleString('en-US')} documents`, doc.offset / Math.max(1, file.size));
            nextReport = doc.offset + file.size / 100;
          }
        },
        ctx.signal,
        { onBadLine: (e) => bad.push(problemFrom(file.path, e)), onNotice: (message) => ctx.problems.push({ file: file.path, line: 1, severity: 'info', message }) },
      );
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      ctx.problems.push(problemFrom(file.path, e));
    } finally {
      insert.free();
    }
    db.run('UPDATE datasets SET corpus_hash = ?, doc_count = ?, indexed_at = ? WHERE id = ?', [file.hash, count, new Date().toISOString(), datasetId]);
  });
  reportSkipped(ctx, bad, 'document', count);
  recordFile(db, file);
  ctx.reindexed.push(file.path);
}

/**
 * Reads the dataset's queries files into one table. MS MARCO's splits share query ids (dev.small is part of
 * dev): an id in several files is kept once, and said when its texts differ (by more than white space: TREC topic
 * readers collapse it, so SciFact's TSV queries and topics of the same queries differ there).
 */
function indexQueries(db: Database, datasetId: number, files: FileState[], queriesHash: string, ctx: IndexContext): void {
  db.run('DELETE FROM queries WHERE dataset_id = ?', [datasetId]);
  const texts = new Map<string, { text: string; file: string }>();
  const insert = db.prepare('INSERT INTO queries (dataset_id, query_id, text) VALUES (?, ?, ?)');
  try {
    for (const file of files) {
      ctx.progress(`Indexing ${file.path}`);
      forgetFile(db, file.path);
      const bad: Problem[] = [];
      let count = 0;
      try {
        for (const q of readDatasetQueries(file.path, { onBadLine: (e) => bad.push(problemFrom(file.path, e)), onNotice: (message) => ctx.problems.push({ file: file.path, line: 1, severity: 'info', message }) }).values()) {
          count++;
          const first = texts.get(q.id);
          if (!first) {
            texts.set(q.id, { text: q.text, file: file.path });
            insert.run([datasetId, q.id, q.text]);
          } else if (spaced(first.text) !== spaced(q.text)) {
            ctx.problems.push({ file: file.path, line: q.line, severity: 'warning', message: `query ${q.id} is also in ${first.file} with another text; the editor shows that one.` });
          }
        }
      } catch (e) {
        ctx.problems.push(problemFrom(file.path, e));
      }
      reportSkipped(ctx, bad, 'query', count);
      recordFile(db, file);
      ctx.reindexed.push(file.path);
    }
  } finally {
    insert.free();
  }
  db.run('UPDATE datasets SET queries_hash = ?, query_count = ? WHERE id = ?', [queriesHash, texts.size, datasetId]);
}

function indexQrels(db: Database, datasetId: number, split: string, file: FileState, ctx: IndexContext): void {
  ctx.progress(`Indexing ${file.path}`);
  forgetFile(db, file.path);
  db.run('DELETE FROM qrels WHERE dataset_id = ? AND split = ?', [datasetId, split]);
  try {
    const insert = db.prepare('INSERT INTO qrels (dataset_id, split, query_id, doc_id, grade) VALUES (?, ?, ?, ?, ?)');
    try {
      for (const j of readQrels(file.path).entries()) insert.run([datasetId, split, j.qid, j.docid, j.grade]);
    } finally {
      insert.free();
    }
  } catch (e) {
    // Not safe to go on with part of a qrels file: every figure computed from it would be silently off.
    db.run('DELETE FROM qrels WHERE dataset_id = ? AND split = ?', [datasetId, split]);
    ctx.problems.push(...badLineProblems(file.path, e, (onBadLine) => readQrels(file.path, { onBadLine }), ' This split is not evaluated until the file is fixed.'));
  }
  recordFile(db, file);
  ctx.reindexed.push(file.path);
}

function indexAnnotations(db: Database, datasetId: number, split: string, file: FileState, ctx: IndexContext): void {
  forgetFile(db, file.path);
  db.run('DELETE FROM judgements WHERE dataset_id = ? AND split = ?', [datasetId, split]);
  const read = readAnnotations(file.path);
  const insert = db.prepare(
    'INSERT OR REPLACE INTO judgements (dataset_id, split, query_id, doc_id, grade, judged_at, judged_by, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  try {
    for (const j of read.judgements) {
      insert.run([datasetId, split, j.queryId, j.docId, j.grade, j.at ?? null, j.by ?? null, j.note ?? null]);
    }
  } finally {
    insert.free();
  }
  ctx.problems.push(...read.problems);
  ctx.skippedLines += read.problems.length;
  recordFile(db, file);
  ctx.reindexed.push(file.path);
}

/**
 * Bad corpus/queries lines are skipped (the rest is indexed); each is a problem saying so, with the count,
 * the first MAX_BAD_LINES of them, then one problem on the file with the total (as for runs and qrels).
 */
function reportSkipped(ctx: IndexContext, bad: Problem[], what: 'document' | 'query', indexed: number): void {
  const counts = `${bad.length} bad line${bad.length === 1 ? '' : 's'} in the file; ${indexed} ${what === 'query' ? 'queries' : 'documents'} indexed`;
  for (const p of bad.slice(0, MAX_BAD_LINES)) {
    p.message += ` This line is skipped (${counts}): fix it and the file is re-indexed.`;
    ctx.problems.push(p);
  }
  if (bad.length > MAX_BAD_LINES) {
    ctx.problems.push({ file: bad[0].file, line: 0, severity: 'error', message: `${counts}; the first ${MAX_BAD_LINES} are listed. Bad lines are skipped until the file is fixed.` });
  }
}
