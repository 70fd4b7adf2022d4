import { basename } from 'node:path';
import * as vscode from 'vscode';
import { exportResults } from '../../core/split/exportTable';
import type { EngineClient } from '../../core/engine/client';
import type { SplitInfo, EngineRequests } from '../../core/engine/protocol';
import type { CompareMode, CorrectionName, ExportFormat, PanelIdentity, ResultsModel, ViewName } from '../../protocol/webview';
import { baselineKey } from '../baseline';
import type { EngineHandle } from '../engine/register';
import type { DatasetsElement } from '../views/datasetsTree';
import { ViewChannel, type RequestHandlers } from '../webview/channel';
import { HeldSends, refreshTogether } from '../webview/heldSends';
import { saveExport } from '../ui/saveExport';
import { viewHtml, webviewOptions } from '../webview/html';

/**
 * Why a split's views are refreshed: 'computed' when only figures computed in the background came (tests,
 * ranges: the judgements and runs are as they were), so a view that shows none of them may skip it.
 */
export type SplitChange = 'computed';

/** How long views' models may wait for each other after a change (refreshViews); the engine answers a view's first model in ~10-90 ms. */
const HOLD_MAX_MS = 150;

/** A panel or view showing one split; refresh() asks the engine for its model again and sends it (resolved once sent). */
export interface SplitView {
  refresh(change?: SplitChange): Promise<void>;
}

/** An open split as the host keeps it: what the engine said of it, the chosen baseline, and the views showing it. */
export interface OpenSplit extends SplitInfo {
  baseline: string;
  /** The Results panel's comparisons and correction (one Results panel per split). */
  testing: { compare: CompareMode; correction: CorrectionName };
  views: Set<SplitView>;
}

/**
 * The analysis side of the extension host: a thin translator between VS Code and the engine (the store
 * worker), which alone reads, merges judgements and scores. The host keeps, per open split, only what the
 * engine said of it, the baseline picked and the views to refresh when the engine says the split changed.
 */
export class AnalysisWorkbench implements vscode.Disposable {
  private readonly splits = new Map<string, OpenSplit>();
  /** The views' sends while a change reaches them all (refreshViews). */
  readonly held = new HeldSends(HOLD_MAX_MS);
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** The panels open, with the split each shows (the active one gives commands their split). */
  private readonly panels = new Map<vscode.WebviewPanel, OpenSplit>();

  constructor(
    readonly context: vscode.ExtensionContext,
    private readonly store: EngineHandle | undefined,
  ) {
    void store?.client.then(
      (c) => this.subscriptions.push(c.onSplitChanged((key, info) => void this.changed(key, info))),
      () => undefined,
    );
    // A restarted engine has no split open: each one with views is opened again, and its views ask again.
    if (store) this.subscriptions.push(store.onRestarted(() => [...this.splits.keys()].forEach((key) => void this.changed(key, undefined))));
  }

  /** The engine, or an error saying why there is none. */
  async engine(): Promise<EngineClient> {
    if (!this.store) throw new Error('the workspace store is not running (no folder is open?), so nothing can be analysed');
    return this.store.client;
  }

  /** The engine, or undefined when there is none (no folder open). */
  engineIfAny(): Promise<EngineClient> | undefined {
    return this.store?.client;
  }

  /** Asks the engine a question about a split. */
  async ask<K extends 'results' | 'queryDeltas' | 'diff' | 'queryDetail' | 'holes' | 'pool' | 'pair' | 'runSummary'>(kind: K, args: EngineRequests[K]['args']): Promise<EngineRequests[K]['result']> {
    return (await this.engine()).request(kind, args);
  }

  /**
   * Opens (or returns) the split with the runs the Datasets tree lists under it, plus `extraRuns`. The index
   * is brought up to date first (incremental: only what changed is read), so a run written just before is
   * there; `reindex: false` skips that for a split already open (hovers).
   */
  async open(datasetDir: string, split: string, extraRuns: readonly string[] = [], options: { reindex?: boolean } = {}): Promise<OpenSplit> {
    const known = this.splits.get(`${datasetDir}\t${split}`);
    if (known && options.reindex === false && extraRuns.length === 0) return known;
    await this.store?.reindex();
    const info = await (await this.engine()).request('openSplit', { datasetDir, split, extraRuns: [...extraRuns] });
    return this.take(info);
  }

  splitOf(datasetDir: string, split: string): OpenSplit | undefined {
    return this.splits.get(`${datasetDir}\t${split}`);
  }

  /**
   * Makes `run` the split's baseline everywhere, for this workspace: the tree's mark and, when the split is open,
   * its views at once (from the Results panel or the tree's Set as Baseline alike).
   */
  async setBaseline(datasetDir: string, split: string, run: string): Promise<void> {
    await this.context.workspaceState.update(baselineKey(datasetDir, split), run);
    this.store?.tree.refresh();
    const open = this.splitOf(datasetDir, split);
    if (!open || !open.runs.some((r) => r.key === run)) return;
    open.baseline = run;
    this.refreshViews(open);
  }

  /**
   * Every view of the split asks for its model again, and the new models go to the workbench in one message (its
   * renderer reads each message apart, on the thread that draws every view); a view that takes long holds the
   * others back HOLD_MAX_MS at most.
   */
  refreshViews(split: OpenSplit, change?: SplitChange): void {
    void refreshTogether(this.held, [...split.views].map((v) => () => v.refresh(change)));
  }

  /** The baseline the open split's views compare with (undefined when the split is not open). */
  baselineOf(datasetDir: string, split: string): string | undefined {
    return this.splitOf(datasetDir, split)?.baseline;
  }

  /** Records a judgement durably (the engine appends and fsyncs); the engine's one update then refreshes every view. */
  async judge(split: OpenSplit, queryId: string, docId: string, grade: number, note?: string): Promise<number | null> {
    const { superseded } = await (await this.engine()).request('judge', { datasetDir: split.datasetDir, split: split.split, queryId, docId, grade, ...(note ? { note } : {}) });
    return superseded;
  }

  /**
   * Creates a webview panel for `name` with the strict page and a typed channel; `restored`: the panel VS Code
   * brings back after a window reload (its serializer's), given the page again.
   */
  panel<V extends ViewName>(
    name: V,
    title: string,
    split: OpenSplit,
    handlers: RequestHandlers<V>,
    refresh: (channel: ViewChannel<V>, change?: SplitChange) => Promise<void>,
    identity: Omit<PanelIdentity, 'datasetDir' | 'split'> = {},
    restored?: vscode.WebviewPanel,
  ): { panel: vscode.WebviewPanel; channel: ViewChannel<V>; view: SplitView } {
    const panel = restored ?? vscode.window.createWebviewPanel(`irWorkbench.${name}`, title, vscode.ViewColumn.Active, {
      ...webviewOptions(this.context.extensionUri),
      retainContextWhenHidden: true,
    });
    if (restored) {
      panel.webview.options = webviewOptions(this.context.extensionUri);
      panel.title = title;
    }
    panel.webview.html = viewHtml(panel.webview, this.context.extensionUri, name, title, { datasetDir: split.datasetDir, split: split.split, ...identity });
    const view: SplitView = {
      refresh: (change) => refresh(channel, change).catch((e: Error) => void vscode.window.showErrorMessage(`IR Workbench: ${e.message}`)),
    };
    const channel: ViewChannel<V> = new ViewChannel<V>(panel.webview, handlers, () => void view.refresh(), this.held);
    this.attach(split, view);
    this.panels.set(panel, split);
    panel.onDidDispose(() => {
      this.panels.delete(panel);
      this.detach(split, view);
      channel.dispose();
    });
    view.refresh();
    return { panel, channel, view };
  }

  /** The split of the IR Workbench panel in the active editor, if one is (a Results, Diff or Holes panel). */
  activeSplit(): OpenSplit | undefined {
    for (const [panel, split] of this.panels) if (panel.active) return split;
    return undefined;
  }

  /** The Datasets view's selected row, while it is shown. */
  treeSelection(): DatasetsElement | undefined {
    return this.store?.selection();
  }

  /** A view starts showing the split: it is refreshed with it, and the engine keeps the split's state. */
  attach(split: OpenSplit, view: SplitView): void {
    split.views.add(view);
    this.viewsChanged();
  }

  /** A view no longer shows the split: once none does, the engine may drop its state (built again when asked). */
  detach(split: OpenSplit, view: SplitView): void {
    if (split.views.delete(view)) this.viewsChanged();
  }

  private viewsChanged(): void {
    const keys = [...this.splits.values()].filter((s) => s.views.size > 0).map((s) => s.key);
    void this.store?.client.then((c) => c.request('viewsOpen', { keys })).catch(() => undefined);
  }

  async exportResults(split: OpenSplit, format: ExportFormat): Promise<string | null> {
    const ext = { markdown: 'md', csv: 'csv', latex: 'tex' }[format];
    return saveExport({
      fileName: `${split.datasetName}.${split.split}.${ext}`,
      fallbackDir: split.datasetDir,
      filters: { [format]: [ext] },
      title: `Export the results table (${format})`,
      content: async () => exportResults(await this.completeResultsModel(split), format),
    });
  }

  /** The results table now (significance not yet known follows in a later model). */
  async resultsModel(split: OpenSplit): Promise<ResultsModel> {
    const model = await this.ask('results', { key: split.key, baseline: split.baseline, ...split.testing });
    return { ...model, untrusted: !vscode.workspace.isTrusted };
  }

  /** The results table with its significance (waits for the engine to compute it). */
  async completeResultsModel(split: OpenSplit): Promise<ResultsModel> {
    for (;;) {
      const next = new Promise<void>((resolve) => this.waiting.set(split.key, [...(this.waiting.get(split.key) ?? []), resolve]));
      const model = await this.resultsModel(split);
      if (!model.significancePending) return model;
      await next;
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.splits.clear();
  }

  /** Keeps what the engine said of a split, in the one OpenSplit object its views hold. */
  private take(info: SplitInfo): OpenSplit {
    let s = this.splits.get(info.key);
    if (!s) {
      s = { ...info, baseline: '', testing: { compare: 'baseline', correction: 'holm' }, views: new Set() };
      this.splits.set(info.key, s);
    } else {
      Object.assign(s, info);
    }
    // The run chosen with Set as Baseline (tree or Results panel), kept per split in the workspace state.
    const chosen = this.context.workspaceState.get<string>(baselineKey(s.datasetDir, s.split));
    if (chosen !== undefined && s.runs.some((r) => r.key === chosen)) s.baseline = chosen;
    else if (!s.runs.some((r) => r.key === s.baseline)) s.baseline = defaultBaseline(s.runs.map((r) => r.key));
    return s;
  }

  /** The engine says a split changed (a judgement, its files, significance computed): its views ask again. */
  private async changed(key: string, info: SplitInfo | undefined): Promise<void> {
    const s = this.splits.get(key);
    if (s) {
      // Only background figures when the event carries the split as the views last had it (same judgements).
      const change: SplitChange | undefined = info !== undefined && info.version === s.version ? 'computed' : undefined;
      try {
        // After a judgement the event carries the split's state; after indexing (runs may have come or gone) ask.
        this.take(info ?? (await (await this.engine()).request('openSplit', { datasetDir: s.datasetDir, split: s.split, extraRuns: [] })));
      } catch {
        return; // the split is gone from the index: its views keep what they show
      }
      this.refreshViews(s, change);
    }
    for (const w of this.waiting.get(key) ?? []) w();
    this.waiting.delete(key);
  }
}

/** A BM25 run if there is one (the usual baseline), else the first. */
function defaultBaseline(keys: string[]): string {
  return keys.find((k) => /bm25/i.test(basename(k))) ?? keys[0] ?? '';
}
