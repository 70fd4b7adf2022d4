import { existsSync, statSync, type Stats } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Database } from 'sql.js';
import { isInputError } from '../formats/errors';
import { importRunFile } from '../provenance/importRun';
import { AnnotationWriter, annotationPaths, validateJudgement } from '../judgements/annotations';
import { openDatabase, Snapshotter } from '../index/database';
import { exportJudgements } from '../judgements/exportJudgements';
import { isCurrent, recordedHash, recordOwnAppend } from '../index/fileState';
import { indexWorkspace } from './indexer';
import { evaluationOf, type EvaluationSettings } from './settings';
import { problemFrom, type Problem } from '../formats/problems';
import { PROTOCOL_VERSION, type HostMessage, type EngineRequests, type WorkerConfig, type WorkerMessage } from './protocol';
import { datasetId, datasetTree, readDocument, storedProblems } from '../index/queries';
import { gradeScale, judgementNotes, qrelsLineInfo, splitJudgements } from '../index/qrelsInfo';
import { RunParserThreads } from '../index/runParser';
import { SplitModels } from './splits';
import { SplitViews } from './splitViews';
import { ExplainRequests } from './explainRequests';
import { scalar } from '../index/sql';
import { trace } from './trace';

/**
 * The workspace engine, a worker thread: owns the sql.js index, every open split's qrels, judgements and
 * per-query scores, and the durable judgement path, so that parsing, hashing, SQL, evaluation and fsync never
 * run on the extension host's thread. Index requests run one at a time; judgements are answered as soon as
 * they are durable on disk, even while an indexing pass is under way.
 */
const port = parentPort;
if (!port) throw new Error('the store worker must run in a worker thread');
const config = workerData as WorkerConfig;

function send(m: WorkerMessage): void {
  port!.postMessage(m);
}

class Store {
  private readonly writers = new Map<string, AnnotationWriter>();
  private indexing: Promise<unknown> = Promise.resolve();
  /** The settings of the last indexing (kept in the database, so judgements made before the first index
   * request of a session are evaluated as the runs' other figures were). */
  private evaluation: Required<EvaluationSettings>;
  private readonly models: SplitModels;
  private readonly views: SplitViews;
  private readonly explains: ExplainRequests;
  /** Started with the engine, so that a first index of new runs does not wait for their threads to start. */
  private readonly runParsers = config.runParser ? new RunParserThreads(config.runParser) : undefined;

  constructor(
    private readonly db: Database,
    private readonly snapshot: Snapshotter,
  ) {
    const saved = scalar(db, "SELECT value FROM settings WHERE key = 'evaluation'");
    this.evaluation = typeof saved === 'string' ? (JSON.parse(saved) as Required<EvaluationSettings>) : evaluationOf({ measures: [] });
    this.models = new SplitModels(db, () => this.evaluation);
    this.views = new SplitViews(this.models, (key, info) => send({ kind: 'split', key, version: info.version, info }));
    this.explains = new ExplainRequests((dir, split) => {
      const s = this.models.state(dir, split);
      return (
        s && {
          qrels: () => s.qrels('annotated'),
          run: (k) => (s.hasRun(k) ? s.run(k) : undefined),
          relevanceLevel: s.relevanceLevel,
          qrelsAsRead: (path) => ({ qrels: s.qrels('original'), sha256: recordedHash(this.db, path) }),
        }
      );
    });
    this.runParsers?.startAhead();
  }

  async handle(m: HostMessage): Promise<unknown> {
    this.views.touch();
    switch (m.kind) {
      case 'index':
        return this.serial(async () => {
          const settingsBefore = JSON.stringify(this.evaluation);
          this.evaluation = evaluationOf(m.args);
          const open = this.models.keys();
          const summary = await indexWorkspace(this.db, m.args.roots, {
            ...m.args,
            models: this.models,
            runParsers: this.runParsers,
            onProgress: (message, fraction) => send({ kind: 'progress', id: m.id, message, fraction }),
          });
          this.snapshot.changed();
          // Files changed on disk (e.g. judgements appended by another window): views that read the store refresh.
          const read = summary.reindexed.length > 0 || summary.removed.length > 0;
          if (read) send({ kind: 'changed' });
          // Runs may have come or gone, or the settings changed every figure: the views of every open split ask
          // again (after this answer). A pass that found nothing new (the file events of the store's own append
          // and its lock file start one after every judgement) changes no view, so none is sent again.
          const again = read || JSON.stringify(this.evaluation) !== settingsBefore ? [...open, ...summary.changedSplits] : summary.changedSplits;
          setImmediate(() => {
            for (const key of new Set(again)) send({ kind: 'split', key, version: -1 });
          });
          return summary;
        });
      case 'tree': {
        const tree = datasetTree(this.db);
        for (const d of tree) for (const sp of d.splits) for (const r of sp.runs) r.ndcgRange = this.models.ndcgRange(d.dir, sp.split, r.path);
        return tree;
      }
      case 'problems':
        return storedProblems(this.db);
      case 'judge':
        return this.judge(m.args);
      case 'document':
        return readDocument(this.db, m.args.datasetDir, m.args.docId);
      case 'exportJudgements': {
        const id = this.requireDataset(m.args.datasetDir);
        return { lines: exportJudgements(this.db, { ...m.args, datasetId: id }) };
      }
      case 'importRun':
        return this.serial(() => importRunFile(m.args.source, m.args.targetDir, 'IR Workbench: Import TREC Run'));
      case 'openSplit':
        return this.serial(async () => this.views.open(m.args));
      case 'viewsOpen':
        this.models.pin(m.args.keys);
        return null;
      case 'results': {
        const model = await this.views.results(m.args);
        return { ...model, provenance: await this.explains.resultsProvenance(m.args.key, model.rows.map((r) => r.key)) };
      }
      case 'explain':
        return this.explains.explain(m.args);
      case 'explainPair':
        return this.explains.explainPair(m.args);
      case 'whatIf':
        return this.explains.whatIf(m.args);
      case 'saveWhatIf':
        return this.explains.saveWhatIf(m.args);
      case 'queryDeltas':
        return this.views.queryDeltas(m.args);
      case 'diff':
        return this.views.diff(m.args);
      case 'queryDetail':
        return this.views.queryDetail(m.args);
      case 'holes':
        return this.views.holes(m.args);
      case 'pool':
        return this.views.pool(m.args);
      case 'pair':
        return this.views.pair(m.args, (datasetDir, split, pairs) => judgementNotes(this.db, { datasetDir, split }, pairs));
      case 'runSummary':
        return this.views.runSummary(m.args);
      case 'qrelsLineInfo':
        return qrelsLineInfo(this.db, m.args);
      case 'splitJudgements':
        return splitJudgements(this.db, m.args);
      case 'isCurrent':
        return isCurrent(this.db, m.args.path);
      case 'memory':
        (globalThis as { gc?: () => void }).gc?.();
        return { ...memoryOf(process.memoryUsage()), splitsHeld: this.models.held().length, splitsShown: this.models.keys().length };
      case 'flush':
        this.snapshot.flush();
        return { bytes: this.snapshot.lastSize };
    }
  }

  /** Runs index-like work one at a time, in arrival order. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.indexing.then(work, work);
    this.indexing = next.catch(() => undefined);
    return next;
  }

  private requireDataset(dir: string): number {
    const id = datasetId(this.db, dir);
    if (id === undefined) throw new Error(`${dir} is not an indexed dataset: run IR Workbench: Re-index Workspace first.`);
    return id;
  }

  /**
   * Appends the judgement to qrels/<split>.annotations.tsv (durable before this returns), then records it in
   * the database. The database row is a cache of the file: if it is lost, the next indexing re-reads the file.
   */
  private judge(a: EngineRequests['judge']['args']): EngineRequests['judge']['result'] {
    const id = datasetId(this.db, a.datasetDir);
    // Before anything is created or opened; against the split's scale when its qrels are known.
    const scale = id === undefined ? undefined : gradeScale(this.db, id, a.split);
    validateJudgement(a, scale);
    const { writer, problems } = this.writer(a.datasetDir, a.split);
    const at = a.at ?? new Date().toISOString();
    // The file as the database may know it; absent when another program deleted it (the writer creates it again).
    const fileBefore = statIfAny(writer.path);
    problems.push(...writer.judge({ queryId: a.queryId, docId: a.docId, grade: a.grade, at, by: a.by, note: a.note }, scale));
    if (fileBefore) recordOwnAppend(this.db, writer.path, fileBefore);
    const after = statSync(writer.path);
    const file = { path: writer.path, size: after.size, mtimeMs: after.mtimeMs };
    if (problems.length > 0) this.addProblems(problems);
    if (id === undefined) return { superseded: null, file };
    const key = [id, a.split, a.queryId, a.docId];
    const before = scalar(this.db, 'SELECT grade FROM effective_qrels WHERE dataset_id = ? AND split = ? AND query_id = ? AND doc_id = ?', key);
    if (scalar(this.db, 'SELECT 1 FROM splits WHERE dataset_id = ? AND split = ?', [id, a.split]) === undefined) {
      this.db.run('INSERT INTO splits (dataset_id, split, qrels_path, annotations_path) VALUES (?, ?, NULL, ?)', [id, a.split, annotationPaths(a.datasetDir, a.split).tsv]);
    }
    this.db.run(
      'INSERT OR REPLACE INTO judgements (dataset_id, split, query_id, doc_id, grade, judged_at, judged_by, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [...key, a.grade, at, a.by ?? null, a.note ?? null],
    );
    const version = this.models.judged(a.datasetDir, a.split, a.queryId, a.docId, a.grade);
    this.snapshot.changed();
    // One update, after the answer: the tree (its means) and every open view of the split.
    setImmediate(() => {
      send({ kind: 'changed' });
      const info = version === undefined ? undefined : this.views.infoOf(a.datasetDir, a.split);
      if (info) send({ kind: 'split', key: info.key, version: info.version, info });
    });
    return { superseded: typeof before === 'number' ? before : null, file };
  }

  private writer(datasetDir: string, split: string): { writer: AnnotationWriter; problems: Problem[] } {
    const path = annotationPaths(datasetDir, split).tsv;
    const open = this.writers.get(path);
    if (open) return { writer: open, problems: [] };
    const isNew = !existsSync(path);
    const opened = AnnotationWriter.open(datasetDir, split);
    this.writers.set(path, opened.writer);
    // A file the store just created holds nothing the database lacks: track it from here (see recordOwnAppend).
    if (isNew) recordOwnAppend(this.db, path, undefined);
    return opened;
  }

  private addProblems(problems: Problem[]): void {
    for (const p of problems) this.db.run('INSERT INTO problems (file, line, severity, message) VALUES (?, ?, ?, ?)', [p.file, p.line, p.severity, p.message]);
    send({ kind: 'changed' });
  }
}

/** This thread's JavaScript heap, and what lives outside it (typed arrays of runs and scores, sql.js's memory). */
function memoryOf(m: NodeJS.MemoryUsage): { heapUsed: number; external: number } {
  return { heapUsed: m.heapUsed, external: m.external };
}

function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { db, discarded } = await openDatabase(config.dbPath);
  const snapshot = new Snapshotter(db, config.dbPath, config.snapshotDelayMs, (message) => send({ kind: 'warning', message }));
  const store = new Store(db, snapshot);
  port!.on('message', (m: HostMessage) => {
    const t0 = performance.now();
    const at = Date.now();
    store.handle(m).finally(() => trace(m.kind, at, performance.now() - t0, m.kind === 'judge' ? { query: m.args.queryId, doc: m.args.docId, grade: m.args.grade } : undefined)).then(
      (value) => send({ kind: 'result', id: m.id, ok: true, value }),
      (e: unknown) => {
        const error = isInputError(e) ? { message: e.format(), problem: problemFrom(e.file ?? '', e) } : { message: (e as Error).message ?? String(e) };
        send({ kind: 'result', id: m.id, ok: false, error });
      },
    );
  });
  send(discarded ? { kind: 'ready', protocol: PROTOCOL_VERSION, discarded } : { kind: 'ready', protocol: PROTOCOL_VERSION });
}

void main();
