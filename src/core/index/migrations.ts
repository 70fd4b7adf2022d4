/**
 * The store's schema, as an ordered list of migrations. Version N is reached by applying migrations 1..N in
 * order; the version lives in SQLite's `user_version`. Never edit a released migration: add the next one.
 *
 * The database is an index of files (datasets, runs, annotation qrels), which stay the source of truth, so a
 * snapshot from a newer, unknown version is discarded and rebuilt rather than guessed at.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: settings, indexed files, datasets, documents (offsets into corpus.jsonl), queries, qrels, runs, results, metrics, judgements.
  `
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL               -- JSON
  ) WITHOUT ROWID;
  CREATE TABLE files (
    path TEXT PRIMARY KEY,            -- absolute path of an indexed file
    size INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    hash TEXT NOT NULL                -- sha256 of the content, hex
  );
  CREATE TABLE datasets (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,        -- the folder holding corpus.jsonl
    name TEXT NOT NULL,
    corpus_hash TEXT NOT NULL,
    queries_hash TEXT NOT NULL,
    doc_count INTEGER NOT NULL,
    query_count INTEGER NOT NULL,
    skipped_lines INTEGER NOT NULL,   -- bad corpus/queries lines left out
    indexed_at TEXT NOT NULL
  );
  CREATE TABLE documents (
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    offset INTEGER NOT NULL,          -- byte offset of the JSON line in corpus.jsonl
    length INTEGER NOT NULL,          -- bytes, line ending excluded
    title TEXT NOT NULL,
    PRIMARY KEY (dataset_id, doc_id)
  ) WITHOUT ROWID;
  CREATE TABLE queries (
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (dataset_id, query_id)
  ) WITHOUT ROWID;
  CREATE TABLE splits (
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    split TEXT NOT NULL,
    qrels_path TEXT,                  -- qrels/<split>.tsv; NULL when only annotations exist
    annotations_path TEXT NOT NULL,   -- qrels/<split>.annotations.tsv (may not exist yet)
    PRIMARY KEY (dataset_id, split)
  ) WITHOUT ROWID;
  -- Original judgements, as read from qrels/<split>.tsv (never written by the extension).
  CREATE TABLE qrels (
    dataset_id INTEGER NOT NULL,
    split TEXT NOT NULL,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    grade INTEGER NOT NULL,
    PRIMARY KEY (dataset_id, split, query_id, doc_id),
    FOREIGN KEY (dataset_id, split) REFERENCES splits(dataset_id, split) ON DELETE CASCADE
  ) WITHOUT ROWID;
  -- The user's judgements: the last line of qrels/<split>.annotations.tsv for each (query, doc).
  CREATE TABLE judgements (
    dataset_id INTEGER NOT NULL,
    split TEXT NOT NULL,
    query_id TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    grade INTEGER NOT NULL,
    judged_at TEXT,                   -- ISO time; NULL when the journal has no record of it
    judged_by TEXT,
    note TEXT,
    PRIMARY KEY (dataset_id, split, query_id, doc_id),
    FOREIGN KEY (dataset_id, split) REFERENCES splits(dataset_id, split) ON DELETE CASCADE
  ) WITHOUT ROWID;
  -- What evaluation uses: annotations supersede the original grade of the same (query, doc).
  CREATE VIEW effective_qrels AS
    SELECT dataset_id, split, query_id, doc_id, grade, 'annotation' AS source FROM judgements
    UNION ALL
    SELECT q.dataset_id, q.split, q.query_id, q.doc_id, q.grade, 'original' AS source FROM qrels q
    WHERE NOT EXISTS (SELECT 1 FROM judgements j WHERE j.dataset_id = q.dataset_id AND j.split = q.split
                      AND j.query_id = q.query_id AND j.doc_id = q.doc_id);
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
    tag TEXT NOT NULL,
    config TEXT,                      -- JSON from a sidecar <run>.json, when there is one
    created_at TEXT NOT NULL,         -- the file's modification time
    query_count INTEGER NOT NULL,
    result_count INTEGER NOT NULL
  );
  CREATE TABLE results (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    rank INTEGER NOT NULL,            -- 1-based, in trec_eval's order (score desc, docno desc)
    doc_id TEXT NOT NULL,
    score REAL NOT NULL,
    PRIMARY KEY (run_id, query_id, rank)
  ) WITHOUT ROWID;
  -- Per-query values by trec_eval measure name; split says which qrels they were computed against.
  CREATE TABLE metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    split TEXT NOT NULL,
    query_id TEXT NOT NULL,
    measure TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (run_id, split, measure, query_id)
  ) WITHOUT ROWID;
  CREATE TABLE run_means (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    split TEXT NOT NULL,
    measure TEXT NOT NULL,
    value REAL NOT NULL,
    query_count INTEGER NOT NULL,     -- queries averaged over
    PRIMARY KEY (run_id, split, measure)
  ) WITHOUT ROWID;
  -- Problems found in the files at the last indexing, for the Problems panel.
  CREATE TABLE problems (
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    severity TEXT NOT NULL,
    message TEXT NOT NULL
  );
  CREATE INDEX problems_file ON problems(file);
  `,
  // 2: drop what no view reads: the per-line copy of every run (the run files are read where scores are needed)
  // and the documents' titles (a document is read from corpus.jsonl by offset, title included).
  `
  DROP TABLE results;
  ALTER TABLE documents DROP COLUMN title;
  `,
  // 3: the engine keeps per-query values in memory (the views and in-place re-scoring read them there), so the
  // per-query table was write-only; means keep both figures (original qrels, and with the user's judgements)
  // for the tree; documents keep their length in words (the results panel's box plot). Every file is re-read.
  `
  DROP TABLE metrics;
  DROP TABLE run_means;
  CREATE TABLE run_means (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    split TEXT NOT NULL,
    measure TEXT NOT NULL,
    original REAL NOT NULL,           -- on qrels/<split>.tsv as it is
    annotated REAL NOT NULL,          -- with the user's judgements merged in (= original when there are none)
    query_count INTEGER NOT NULL,     -- queries averaged over
    PRIMARY KEY (run_id, split, measure)
  ) WITHOUT ROWID;
  ALTER TABLE documents ADD COLUMN words INTEGER NOT NULL DEFAULT -1;
  DELETE FROM files;
  DELETE FROM settings WHERE key = 'evaluation';
  `,
  // 4: runs left out because their file is bad, with why, so the Datasets tree can show them (runs holds only good runs).
  `
  CREATE TABLE left_out_runs (
    path TEXT PRIMARY KEY,
    dataset_id INTEGER REFERENCES datasets(id) ON DELETE CASCADE,  -- NULL: no dataset folder holds it
    reason TEXT NOT NULL,             -- the first problem, and the count of bad lines when there are more
    first_line INTEGER NOT NULL,      -- 1-based line of the first problem; 0 = the whole file
    splits TEXT                       -- JSON array of the splits its good lines answer; NULL = not known (all)
  );
  `,
  // 5: how many of the split's queries a run answers, beside the figures (the tree shows Hole@10 with its
  // coverage, not the file's own query count). Every file is re-read to fill it.
  `
  ALTER TABLE run_means ADD COLUMN answered INTEGER NOT NULL DEFAULT 0;
  DELETE FROM files;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
