import { existsSync, statSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import { basename } from 'node:path';
import type { Database } from 'sql.js';
import { SplitState, type DocumentSource } from '../split/state';
import { runRange } from '../split/underHoles';
import { isInputError } from '../formats/errors';
import { Qrels } from '../formats/qrels';
import type { BeirQuery } from '../formats/beir';
import { runLabels } from '../index/discovery';
import type { EvaluationSettings } from './settings';
import { problemFrom, type Problem } from '../formats/problems';
import { datasetId, readDocument } from '../index/queries';
import type { DocumentText } from '../index/nodes';
import { runCache } from '../index/runCache';
import { fileStamp } from '../index/fileState';
import { corpusFile } from '../formats/datasetFolder';
import { rows, transaction } from '../index/sql';

/** A split as the engine and its clients name it: `${datasetDir}\t${split}`. */
export type SplitKey = string;

export function splitKey(datasetDir: string, split: string): SplitKey {
  return `${datasetDir}\t${split}`;
}

/** Characters of document text the engine keeps per open split (a few MB: a sidebar's pairs many times over). */
const DOCUMENT_CACHE_CHARS = 4_000_000;

/** Documents of an indexed dataset: read from its corpus file at the offsets the index holds. */
class IndexedCorpus implements DocumentSource {
  private wordCounts: Map<string, number> | undefined;

  constructor(
    private readonly db: Database,
    private readonly id: number,
    private readonly dir: string,
  ) {}

  /**
   * Documents read lately, by the corpus file's stamp and id, sized by their text: after every judgement the
   * Judge sidebar asks again for the pairs ahead and their queries' relevant titles (about 170 documents, each
   * a query and two file opens before). A changed corpus file has another stamp, so nothing stale is served.
   */
  private readonly docs = new LRUCache<string, DocumentText | { missing: true }>({
    maxSize: DOCUMENT_CACHE_CHARS,
    sizeCalculation: (d) => ('missing' in d ? 1 : d.id.length + d.title.length + d.text.length + 1),
  });
  /** Reads under way, shared by the requests that ask for the same document meanwhile. */
  private readonly reading = new Map<string, Promise<DocumentText | null>>();

  read(docId: string): Promise<DocumentText | null> {
    let stamp: string;
    try {
      stamp = fileStamp(statSync(corpusFile(this.dir)));
    } catch {
      return readDocument(this.db, this.dir, docId); // no corpus file: readDocument says what is wrong
    }
    const key = `${stamp}\t${docId}`;
    const hit = this.docs.get(key);
    if (hit) return Promise.resolve('missing' in hit ? null : hit);
    let pending = this.reading.get(key);
    if (!pending) {
      pending = readDocument(this.db, this.dir, docId).then((d) => {
        this.docs.set(key, d ?? { missing: true });
        return d;
      }).finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
    }
    return pending;
  }

  words(docId: string): number {
    this.wordCounts ??= new Map(rows<{ doc_id: string; words: number }>(this.db, 'SELECT doc_id, words FROM documents WHERE dataset_id = ?', [this.id]).map((r) => [r.doc_id, r.words]));
    return this.wordCounts.get(docId) ?? -1;
  }
}

/** Names a split's runs by the one rule the tree uses (runLabels), after runs came or went. */
function relabel(state: SplitState): void {
  state.relabel(runLabels(state.runRefs().map((r) => r.key)));
}

interface Entry {
  datasetId: number;
  state: SplitState;
  /** Run files named by the user that could not be added, with why. */
  skipped: Map<string, string>;
  /** Run files added by name beyond the split's indexed runs (a run evaluated from elsewhere). */
  extras: Set<string>;
  /** Built by prepare() without the runs being parsed: the indexed ones among them are added when next used. */
  deferred: boolean;
}

/**
 * The engine's split states, built from the index: it alone evaluates runs, so the tree's means (kept in
 * run_means) and every view's figures come from the same scores, and a judgement re-scores in place. It keeps
 * the splits some view shows (`pin`) and the one used last; the others are built again when asked, so a
 * workspace of many datasets holds only what is on screen.
 */
export class SplitModels {
  private readonly entries = new Map<SplitKey, Entry>();
  private pinned = new Set<SplitKey>();
  /** The split used last, kept although no view shows it (a run of edits in its qrels file, an index pass). */
  private recent: SplitKey | undefined;

  constructor(
    private readonly db: Database,
    private readonly settings: () => Required<EvaluationSettings>,
  ) {}

  /** The split's state, built from the index when first asked (or after its inputs changed, or once released). */
  state(datasetDir: string, split: string): SplitState | undefined {
    return this.entry(datasetDir, split)?.state;
  }

  /** The splits some view shows (the host's whole list, each time it changes): kept; the others may be released. */
  pin(keys: readonly SplitKey[]): void {
    this.pinned = new Set(keys);
    this.release();
  }

  /** Forgets every split's state (the settings changed): each is built again when next asked. */
  clear(): void {
    this.entries.clear();
  }

  /** The split's qrels or the user's judgements changed on disk (the index re-read them): rebuild it when next asked. */
  forget(datasetDir: string, split: string): boolean {
    return this.entries.delete(splitKey(datasetDir, split));
  }

  /** nDCG@10's range over a run's own holes on a split, where the split's state computed it (never computed here). */
  ndcgRange(datasetDir: string, split: string, run: string): { lo: number; hi: number; exact: boolean; holes: number } | undefined {
    const state = this.entries.get(splitKey(datasetDir, split))?.state;
    const r = state?.hasRun(run) ? runRange(state, run, 'ndcg_cut_10') : undefined;
    return r && { lo: r.lo, hi: r.hi, exact: r.exact, holes: r.holes };
  }

  /** Keys of the splits views show. */
  keys(): SplitKey[] {
    return [...this.pinned];
  }

  /** Keys of the split states held now (the pinned ones, and what was built since the last release). */
  held(): SplitKey[] {
    return [...this.entries.keys()];
  }

  /**
   * Scores runs (indexed run ids of the dataset) on a split and stores their means for the tree. A run that
   * ranks none of the split's judged queries gets no figures there, so the tree does not list it under it.
   */
  scoreRuns(datasetDir: string, split: string, runIds: readonly number[], problems: Problem[]): void {
    const entry = this.entry(datasetDir, split);
    if (!entry) return;
    const { state } = entry;
    const placeholders = runIds.map(() => '?').join(',');
    for (const { id, path } of rows<{ id: number; path: string }>(this.db, `SELECT id, path FROM runs WHERE id IN (${placeholders})`, [...runIds])) {
      this.db.run('DELETE FROM run_means WHERE run_id = ? AND split = ?', [id, split]);
      state.removeRun(path);
      try {
        this.addRun(state, path);
      } catch (e) {
        problems.push(problemFrom(path, e));
        continue;
      }
      if (state.hasRun(path)) this.storeMeans(id, split, state, path);
    }
    relabel(state);
    this.release();
  }

  /**
   * After indexing: each split keeps only the runs the index still lists under it, plus the runs added by name
   * whose file is still there (a deleted or moved run leaves every view, as it leaves the tree); the splits no
   * view shows are released.
   */
  prune(): void {
    this.release();
    for (const [key, entry] of this.entries) {
      const split = key.slice(key.lastIndexOf('\t') + 1);
      const indexed = new Set(
        rows<{ path: string }>(this.db, 'SELECT DISTINCT r.path FROM runs r JOIN run_means m ON m.run_id = r.id WHERE r.dataset_id = ? AND m.split = ?', [entry.datasetId, split]).map((r) => r.path),
      );
      for (const { key: run } of entry.state.runRefs()) {
        if (!indexed.has(run) && !(entry.extras.has(run) && existsSync(run))) entry.state.removeRun(run);
      }
      relabel(entry.state);
    }
  }

  /** Adds a run file that is not (or not yet) indexed under the split; false, with the reason kept, if it cannot be. */
  addExtraRun(datasetDir: string, split: string, path: string): boolean {
    const entry = this.entry(datasetDir, split);
    if (!entry || entry.state.hasRun(path)) return entry !== undefined;
    try {
      this.addRun(entry.state, path);
      if (!entry.state.hasRun(path)) entry.skipped.set(path, `ranks no query judged in the ${split} qrels`);
      else entry.extras.add(path);
    } catch (e) {
      entry.skipped.set(path, isInputError(e) ? e.format() : (e as Error).message);
    }
    relabel(entry.state);
    return entry.state.hasRun(path);
  }

  skipped(datasetDir: string, split: string): { file: string; reason: string }[] {
    return [...(this.entry(datasetDir, split)?.skipped ?? [])].map(([file, reason]) => ({ file, reason }));
  }

  /**
   * Applies a judgement already durable on disk to the split (in place) and updates the tree's annotated
   * means of its runs. Returns the split's new version, or undefined when the dataset is not indexed.
   */
  judged(datasetDir: string, split: string, queryId: string, docId: string, grade: number): number | undefined {
    const entry = this.entry(datasetDir, split);
    if (!entry) return undefined;
    entry.state.judge(queryId, docId, grade);
    const ids = new Map(rows<{ id: number; path: string }>(this.db, 'SELECT id, path FROM runs WHERE dataset_id = ?', [entry.datasetId]).map((r) => [r.path, r.id]));
    transaction(this.db, () => {
      for (const { key } of entry.state.runRefs()) {
        const id = ids.get(key);
        if (id === undefined) continue;
        const { annotated } = entry.state.summary(key);
        for (const [measure, value] of Object.entries(annotated)) {
          this.db.run('UPDATE run_means SET annotated = ? WHERE run_id = ? AND split = ? AND measure = ?', [value, id, split, measure]);
        }
      }
    });
    const version = entry.state.version;
    this.release();
    return version;
  }

  private addRun(state: SplitState, path: string): void {
    const run = runCache.get(path);
    if (!state.qrels('original').queryIds().some((q) => run.queryIndex(q) >= 0)) return;
    state.addRun(path, basename(path), run);
  }

  private storeMeans(runId: number, split: string, state: SplitState, path: string): void {
    const { original, annotated, queries, answered } = state.summary(path);
    const insert = this.db.prepare('INSERT INTO run_means (run_id, split, measure, original, annotated, query_count, answered) VALUES (?, ?, ?, ?, ?, ?, ?)');
    try {
      for (const [measure, value] of Object.entries(original)) insert.run([runId, split, measure, value, annotated[measure], queries, answered]);
    } finally {
      insert.free();
    }
  }

  /**
   * Builds the states of these datasets' splits ahead of scoring, while new run files are parsed on other
   * threads (the engine's own is idle then). The runs in `pending` (being parsed) are left out until the split
   * is next used: by then the index has re-read them, and those it still scores on the split (a touched but
   * unchanged file) are added back from the parse the workers left in the run cache.
   */
  prepare(datasetDirs: Iterable<string>, pending: ReadonlySet<string>): void {
    for (const dir of new Set(datasetDirs)) {
      const id = datasetId(this.db, dir);
      if (id === undefined) continue;
      for (const { split } of rows<{ split: string }>(this.db, 'SELECT split FROM splits WHERE dataset_id = ?', [id])) {
        if (this.entries.has(splitKey(dir, split))) continue;
        const entry = this.build(dir, split);
        if (!entry) continue;
        this.addIndexed(entry, pending);
        entry.deferred = true;
        entry.state.prepareScoring();
      }
    }
  }

  /** Drops the states no view shows, but the one used last. */
  private release(): void {
    for (const key of this.entries.keys()) if (!this.pinned.has(key) && key !== this.recent) this.entries.delete(key);
  }

  /** Adds the runs the index scores on the entry's split (but those in `skip`), read from their files. */
  private addIndexed(e: Entry, skip?: ReadonlySet<string>): void {
    const { state } = e;
    for (const { path } of rows<{ path: string }>(
      this.db,
      'SELECT DISTINCT r.path FROM runs r JOIN run_means m ON m.run_id = r.id WHERE r.dataset_id = ? AND m.split = ? ORDER BY r.path',
      [e.datasetId, state.split],
    )) {
      if (skip?.has(path) || state.hasRun(path)) continue;
      try {
        this.addRun(state, path);
      } catch (err) {
        e.skipped.set(path, isInputError(err) ? err.format() : (err as Error).message);
      }
    }
    relabel(state);
  }

  private entry(datasetDir: string, split: string): Entry | undefined {
    const key = splitKey(datasetDir, split);
    this.recent = key;
    const hit = this.entries.get(key);
    if (hit?.deferred) {
      hit.deferred = false;
      this.addIndexed(hit);
    }
    if (hit) return hit;
    const entry = this.build(datasetDir, split);
    // The runs the index already scored on this split (a snapshot from an earlier session).
    if (entry) this.addIndexed(entry);
    return entry;
  }

  /** A split's state from the index, without runs. */
  private build(datasetDir: string, split: string): Entry | undefined {
    const key = splitKey(datasetDir, split);
    const id = datasetId(this.db, datasetDir);
    if (id === undefined) return undefined;
    const known = rows<{ name: string }>(this.db, 'SELECT d.name FROM splits s JOIN datasets d ON d.id = s.dataset_id WHERE s.dataset_id = ? AND s.split = ?', [id, split])[0];
    if (!known) return undefined;
    const s = this.settings();
    const qrels = Qrels.fromJudgements(
      rows<{ query_id: string; doc_id: string; grade: number }>(this.db, 'SELECT query_id, doc_id, grade FROM qrels WHERE dataset_id = ? AND split = ?', [id, split]).map((r) => ({
        qid: r.query_id,
        docid: r.doc_id,
        grade: r.grade,
      })),
      'error',
    );
    const queries = new Map<string, BeirQuery>(
      rows<{ query_id: string; text: string }>(this.db, 'SELECT query_id, text FROM queries WHERE dataset_id = ?', [id]).map((r, i) => [r.query_id, { id: r.query_id, text: r.text, line: i + 1 }]),
    );
    const judgements = rows<{ query_id: string; doc_id: string; grade: number }>(
      this.db,
      'SELECT query_id, doc_id, grade FROM judgements WHERE dataset_id = ? AND split = ?',
      [id, split],
    ).map((r) => ({ queryId: r.query_id, docId: r.doc_id, grade: r.grade }));
    const state = new SplitState({
      datasetDir,
      datasetName: known.name,
      split,
      qrels,
      queries,
      corpus: new IndexedCorpus(this.db, id, datasetDir),
      judgements,
      complete: s.complete,
      relevanceLevel: s.relevanceLevel,
      measures: s.measures,
    });
    const entry: Entry = { datasetId: id, state, skipped: new Map(), extras: new Set(), deferred: false };
    this.entries.set(key, entry);
    return entry;
  }
}
