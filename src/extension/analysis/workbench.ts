import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { CorpusIndex } from '../../core/analysis/corpusIndex';
import { exportResults } from '../../core/analysis/exportTable';
import { readQueries, type BeirQuery } from '../../core/formats/beir';
import { annotationPaths, readAnnotationsAsync } from '../../core/store/annotations';
import { addRunFiles, loadSession } from '../../core/analysis/load';
import { runLabels } from '../../core/store/discovery';
import { addRunFilesInWorkers } from '../../core/analysis/runReader';
import type { AnalysisSession } from '../../core/analysis/session';
import type { ExportFormat, ResultsModel, ViewName } from '../../protocol/webview';
import type { StoreHandle } from '../store/register';
import { ViewChannel, type RequestHandlers } from '../webview/channel';
import { saveExport } from '../ui/saveExport';
import { viewHtml, webviewOptions } from '../webview/html';

/** A panel or view showing one split; refresh() recomputes its model from the session and sends it. */
export interface SplitView {
  refresh(): void;
}

export interface OpenSplit {
  key: string;
  session: AnalysisSession;
  baseline: string;
  skipped: { file: string; reason: string }[];
  views: Set<SplitView>;
  /** Size and mtime of each run file when read. */
  stamps: Map<string, string>;
}

function settings() {
  const c = vscode.workspace.getConfiguration('irWorkbench');
  return {
    complete: c.get<boolean>('evaluation.completeQueries', true),
    relevanceLevel: c.get<number>('evaluation.relevanceLevel', 1),
  };
}

/**
 * The analysis side of the extension: one AnalysisSession per open dataset split, the panels showing it,
 * and judgements (durable through the store first, then applied and pushed to every open view of the split).
 */
export class AnalysisWorkbench implements vscode.Disposable {
  private readonly corpusCache = new Map<string, CorpusIndex>();
  private readonly splits = new Map<string, OpenSplit>();
  private readonly stepping = new Map<string, Promise<void>>();
  private readonly queryCache = new Map<string, { stamp: string; queries: Map<string, BeirQuery> }>();
  private readonly corpusLoads = new Map<string, Promise<CorpusIndex>>();
  /** Each annotations file as our last judgement left it: a watcher event for that state is our own append. */
  private readonly ownAppends = new Map<string, { size: number; mtimeMs: number }>();

  constructor(
    readonly context: vscode.ExtensionContext,
    private readonly store: StoreHandle | undefined,
  ) {}

  /**
   * The corpus offset index of a dataset, read once while the file is unchanged, in chunks that yield to
   * the event loop (a large corpus takes a while; the extension host stays responsive), with progress.
   */
  private corpus(datasetDir: string): Promise<CorpusIndex> {
    const path = join(datasetDir, 'corpus.jsonl');
    const cached = this.corpusCache.get(path);
    if (cached && cached.stamp === CorpusIndex.stampOf(path)) return Promise.resolve(cached);
    let loading = this.corpusLoads.get(path);
    if (!loading) {
      loading = Promise.resolve(
        vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `IR Workbench: reading ${basename(datasetDir)}/corpus.jsonl` }, () =>
          CorpusIndex.buildAsync(path),
        ),
      )
        .then((c) => {
          this.corpusCache.set(path, c);
          return c;
        })
        .finally(() => this.corpusLoads.delete(path));
      this.corpusLoads.set(path, loading);
    }
    return loading;
  }

  /** Opens (or returns) the split, with the runs in its runs folder plus `extraRuns`. */
  async open(datasetDir: string, split: string, extraRuns: readonly string[] = []): Promise<OpenSplit> {
    const key = `${datasetDir}\t${split}`;
    if (!this.splits.has(key)) await this.corpus(datasetDir);
    let s = this.splits.get(key);
    if (!s) {
      const cfg = settings();
      const session = loadSession({ datasetDir, split, complete: cfg.complete, relevanceLevel: cfg.relevanceLevel, corpusCache: this.corpusCache });
      s = { key, session, baseline: '', skipped: [], views: new Set(), stamps: new Map() };
      this.splits.set(key, s);
    }
    const files = [...new Set([...(await this.discoveredRuns(datasetDir, split)), ...extraRuns])];
    // Runs whose file changed or went since they were read are read again or dropped.
    for (const { key } of s.session.runRefs()) {
      const now = existsSync(key) ? CorpusIndex.stampOf(key) : undefined;
      if (now !== s.stamps.get(key)) s.session.removeRun(key);
    }
    for (const f of files) if (!s.session.hasRun(f) && existsSync(f)) s.stamps.set(f, CorpusIndex.stampOf(f));
    const skipped = await this.readRuns(s.session, files);
    s.skipped = [...s.skipped.filter((x) => !files.includes(x.file)), ...skipped];
    s.session.relabel(runLabels(s.session.runRefs().map((r) => r.key)));
    if (!s.session.hasRun(s.baseline)) s.baseline = defaultBaseline(s.session.runRefs().map((r) => r.key));
    return s;
  }

  /**
   * The split's runs as the store discovered them: the runs the Datasets tree lists under the split (one
   * discovery, one set of rules). The index is brought up to date first (incremental: only what changed is
   * read), so a run written just before is there.
   */
  private async discoveredRuns(datasetDir: string, split: string): Promise<string[]> {
    if (!this.store) return [];
    await this.store.reindex();
    return this.store.tree.data.find((d) => d.dir === datasetDir)?.splits.find((x) => x.split === split)?.runs.map((r) => r.path) ?? [];
  }

  /**
   * Reads and scores run files in worker threads, two at a time (the editor's thread only receives the
   * columns); falls back to reading here, in chunks that yield, if the worker cannot start.
   */
  private async readRuns(session: AnalysisSession, files: readonly string[]): Promise<{ file: string; reason: string }[]> {
    try {
      return await addRunFilesInWorkers(session, files, join(this.context.extensionPath, 'dist', 'run-reader.js'));
    } catch {
      return addRunFiles(session, files);
    }
  }

  /** A dataset's queries and corpus offsets (for hovers), read once while the files are unchanged. */
  async datasetText(datasetDir: string): Promise<{ queries: Map<string, BeirQuery>; corpus: CorpusIndex }> {
    const corpus = await this.corpus(datasetDir);
    const queriesPath = join(datasetDir, 'queries.jsonl');
    const stamp = CorpusIndex.stampOf(queriesPath);
    let q = this.queryCache.get(queriesPath);
    if (!q || q.stamp !== stamp) {
      q = { stamp, queries: readQueries(queriesPath) };
      this.queryCache.set(queriesPath, q);
    }
    return { queries: q.queries, corpus };
  }

  /**
   * The annotations file of a split changed on disk: open views take what it now holds. Our own appends
   * (the file is as the store wrote it) are already in the sessions, so they cost no re-read.
   */
  async annotationsChanged(file: string): Promise<void> {
    const own = this.ownAppends.get(file);
    const now = await stat(file).catch(() => undefined);
    if (own && now && now.size === own.size && now.mtimeMs === own.mtimeMs) return;
    const splits = [...this.splits.values()].filter((s) => annotationPaths(s.session.datasetDir, s.session.split).tsv === file);
    if (splits.length === 0) return;
    const judgements = now ? (await readAnnotationsAsync(file)).judgements : [];
    for (const split of splits) if (split.session.replaceJudgements(judgements)) for (const v of split.views) v.refresh();
  }

  /** Records a judgement durably (store: appended and fsynced), then updates every view of the split. */
  async judge(split: OpenSplit, queryId: string, docId: string, grade: number): Promise<void> {
    if (!this.store) throw new Error('the workspace store is not running, so judgements cannot be saved');
    const client = await this.store.client;
    const { file } = await client.request('judge', { datasetDir: split.session.datasetDir, split: split.session.split, queryId, docId, grade });
    this.ownAppends.set(file.path, file);
    split.session.judge(queryId, docId, grade);
    for (const v of split.views) v.refresh();
  }

  /** Creates a webview panel for `name` with the strict page and a typed channel. */
  panel<V extends ViewName>(
    name: V,
    title: string,
    split: OpenSplit,
    handlers: RequestHandlers<V>,
    refresh: (channel: ViewChannel<V>) => void,
  ): { panel: vscode.WebviewPanel; channel: ViewChannel<V>; view: SplitView } {
    const panel = vscode.window.createWebviewPanel(`irWorkbench.${name}`, title, vscode.ViewColumn.Active, {
      ...webviewOptions(this.context.extensionUri),
      retainContextWhenHidden: true,
    });
    panel.webview.html = viewHtml(panel.webview, this.context.extensionUri, name, title);
    const view: SplitView = { refresh: () => refresh(channel) };
    const channel: ViewChannel<V> = new ViewChannel<V>(panel.webview, handlers, view.refresh);
    split.views.add(view);
    panel.onDidDispose(() => {
      split.views.delete(view);
      channel.dispose();
    });
    view.refresh();
    return { panel, channel, view };
  }

  splitOf(datasetDir: string, split: string): OpenSplit | undefined {
    return this.splits.get(`${datasetDir}\t${split}`);
  }

  async exportResults(split: OpenSplit, format: ExportFormat): Promise<string | null> {
    const ext = { markdown: 'md', csv: 'csv', latex: 'tex' }[format];
    const { datasetDir, datasetName, split: name } = split.session;
    return saveExport({
      fileName: `${datasetName}.${name}.${ext}`,
      fallbackDir: datasetDir,
      filters: { [format]: [ext] },
      title: `Export the results table (${format})`,
      content: async () => exportResults(await this.completeResultsModel(split), format),
    });
  }

  /** The results table now; significance not yet known is computed in the background and pushed after. */
  resultsModel(split: OpenSplit): ResultsModel {
    const model = split.session.results(split.baseline, { skipped: split.skipped, untrusted: !vscode.workspace.isTrusted }, { pending: true });
    if (model.significancePending) void this.significance(split);
    return model;
  }

  /** The results table with its significance (waits for it). */
  async completeResultsModel(split: OpenSplit): Promise<ResultsModel> {
    for (;;) {
      const model = this.resultsModel(split);
      if (!model.significancePending) return model;
      await this.significance(split);
    }
  }

  /**
   * Runs the significance steps of the split's baseline one at a time, yielding to the event loop between
   * them (a large split takes seconds; the extension host stays responsive), then refreshes its views.
   */
  private significance(split: OpenSplit): Promise<void> {
    const running = this.stepping.get(split.key);
    if (running) return running;
    const work = (async () => {
      const steps = split.session.significanceSteps(split.baseline);
      while (!steps.next().done) await new Promise((r) => setImmediate(r));
    })().finally(() => {
      this.stepping.delete(split.key);
      for (const v of split.views) v.refresh();
    });
    this.stepping.set(split.key, work);
    return work;
  }

  dispose(): void {
    this.splits.clear();
  }
}

/** A BM25 run if there is one (the usual baseline), else the first. */
function defaultBaseline(keys: string[]): string {
  return keys.find((k) => /bm25/i.test(basename(k))) ?? keys[0] ?? '';
}
