import { join } from 'node:path';
import * as vscode from 'vscode';
import { EngineClient } from '../../core/engine/client';
import { datasetFilePatterns, isDatasetFile } from '../../core/formats/datasetFolder';
import { isRunFileName } from '../../core/index/discovery';
import type { DatasetNode, IndexSummary } from '../../core/index/nodes';
import { baselineKey } from '../baseline';
import { DatasetsTreeProvider, type DatasetsElement } from '../views/datasetsTree';
import { exportJudgementsCommand, importRunCommand } from './commands';
import { showProblems } from './diagnostics';
import { DatasetFolderWatchers } from './folderWatchers';
import { settled } from './settled';

/** The split events' quiet time before the tree follows them, and the longest it lags behind a stream of them. */
const TREE_SETTLE_MS = 400;
const TREE_MAX_WAIT_MS = 2000;

/** The store as the rest of the extension sees it: resolves once the worker is up. */
export interface EngineHandle {
  client: Promise<EngineClient>;
  /** Re-indexes (incrementally) and refreshes the tree and the Problems panel. */
  reindex(): Promise<void>;
  tree: DatasetsTreeProvider;
  /** The Datasets view's selected row while the view is shown (commands take their split from it). */
  selection(): DatasetsElement | undefined;
  /** Called after the engine was restarted (it had stopped) and has indexed again: open splits must be opened again. */
  onRestarted(listener: () => void): vscode.Disposable;
  /** Where the index snapshot is kept (the workspace storage); undefined without a workspace. */
  snapshotPath: string | undefined;
}

const SNAPSHOT_DELAY_MS = 5000;

/**
 * Wires the workspace store into VS Code: starts its worker (database in the workspace storage), the
 * Datasets view, diagnostics, file watchers and the Re-index / Import Run / Export Judgements commands.
 */
export function registerStore(context: vscode.ExtensionContext): EngineHandle {
  const dbPath = context.storageUri ? join(context.storageUri.fsPath, 'store.sqlite') : undefined;
  const client = EngineClient.start(join(context.extensionPath, 'dist', 'engine.js'), {
    dbPath,
    snapshotDelayMs: SNAPSHOT_DELAY_MS,
    runParser: join(context.extensionPath, 'dist', 'run-parser.js'),
  });
  const tree = new DatasetsTreeProvider((datasetDir, split) => context.workspaceState.get<string>(baselineKey(datasetDir, split)));
  const diagnostics = vscode.languages.createDiagnosticCollection('irWorkbench');
  const output = vscode.window.createOutputChannel('IR Workbench Store');
  const view = vscode.window.createTreeView('irWorkbench.datasets', { treeDataProvider: tree });
  context.subscriptions.push(diagnostics, output, view);
  context.subscriptions.push({ dispose: () => void client.then((c) => c.close()).catch(() => undefined) });

  let problemCount = 0;
  let last: IndexSummary | undefined;
  // The engine's split events come in bursts while it computes in the background.
  const refresh = coalesced(async () => {
    const c = await client;
    tree.setData(await c.request('tree', {}));
    watchDatasets(tree.data.map((d) => d.dir));
    const problems = await c.request('problems', {});
    problemCount = problems.length;
    showProblems(diagnostics, problems);
  });

  // A failed refresh is logged: the tree keeps what it showed.
  const refreshQuietly = () => refresh().catch((e: Error) => output.appendLine(`refresh failed: ${e.message}`));
  // The engine's events (a judgement: 'changed' and the split's; then its figures computed) come while the open
  // views redraw: the tree's counts and tooltips follow once they stop, so its rows are not drawn on the same
  // thread meanwhile. An index pass refreshes the tree itself when it ends (reindex).
  const refreshSoon = settled(refreshQuietly, TREE_SETTLE_MS, TREE_MAX_WAIT_MS);
  context.subscriptions.push(refreshSoon);

  const reindex = coalesced(async () => {
    last = undefined;
    last = await indexOnce(await client, tree, output).catch((e: Error) => {
      output.appendLine(`indexing failed: ${e.message}`);
      void vscode.window.showErrorMessage(`IR Workbench: indexing failed: ${e.message}`);
      return undefined;
    });
    await refreshQuietly();
  });

  const restarted = new vscode.EventEmitter<void>();
  context.subscriptions.push(restarted);
  // Said once until it clears: a snapshot that cannot be saved is retried every minute.
  const warned = new Set<string>();
  void client.then(
    (c) => {
      if (c.discarded) output.appendLine(`The previous database snapshot was not used (${c.discarded}); rebuilding it from the files.`);
      // A split's figures changed (e.g. its ranges under the holes are computed): the tree's tooltips follow.
      context.subscriptions.push(
        c.onChanged(() => refreshSoon.schedule()),
        c.onSplitChanged(() => refreshSoon.schedule()),
        c.onWarning((message) => {
          output.appendLine(message);
          if (warned.has(message)) return;
          warned.add(message);
          void vscode.window.showWarningMessage(`IR Workbench: ${message}`);
        }),
        // The worker stopped (a crash, out of memory): the client started another; it indexes, then the views reopen.
        c.onRestarted(({ why, running }) => {
          output.appendLine(running ? `${why}; restarted it.` : why);
          if (!running) {
            void vscode.window.showErrorMessage(`IR Workbench: ${why}`);
            return;
          }
          void vscode.window.showWarningMessage(`IR Workbench: ${why}. It was restarted; your judgements are safe in the annotation files.`);
          void reindex().then(() => restarted.fire());
        }),
      );
      return refresh().then(reindex);
    },
    (e: Error) => void vscode.window.showErrorMessage(`IR Workbench: the workspace store could not start: ${e.message}`),
  );

  let timer: NodeJS.Timeout | undefined;
  const soon = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void reindex(), 1000);
  };
  const runsFolder = () => vscode.workspace.getConfiguration('irWorkbench').get<string>('runs.folder', 'runs');
  // The store's own judgement appends are already in the database (recordOwnAppend): an event for a file
  // that is as the store left it must not start a re-index of the workspace.
  const changed = (uri: vscode.Uri) =>
    void client
      .then((c) => c.request('isCurrent', { path: uri.fsPath }))
      .then((current) => current || soon(), soon);
  const watch = (glob: vscode.GlobPattern) => {
    const w = vscode.workspace.createFileSystemWatcher(glob);
    w.onDidCreate(changed);
    w.onDidChange(changed);
    w.onDidDelete(soon);
    return w;
  };
  let runWatcher = watch(`**/${runsFolder()}/**`);
  // Each dataset folder, its qrels/ and its runs folder also have Node's watchers (folderWatchers.ts). Only names
  // the index reads (isDatasetFile, isRunFileName): each judgement creates and removes a lock file and appends to
  // its journal beside the annotations, and an event for those started a pass per judgement.
  const datasetWatchers = new DatasetFolderWatchers(
    { dataset: isDatasetFile, qrels: (name) => isDatasetFile(`qrels/${name}`), run: isRunFileName },
    (folder, name) => changed(vscode.Uri.file(join(folder, name))),
    soon,
  );
  const watchDatasets = (dirs: string[]) => datasetWatchers.update(dirs, runsFolder());
  context.subscriptions.push(datasetWatchers);
  // A folder created with its files at once (an unzipped or copied dataset) can fill before the watcher watches
  // it, and then no file event comes: a new folder is worth a pass of its own.
  const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, true);
  folders.onDidCreate((uri) => void vscode.workspace.fs.stat(uri).then((s) => s.type & vscode.FileType.Directory && soon(), () => undefined));
  context.subscriptions.push(
    folders,
    // Every file a dataset folder's splits may use, by the resolver's own names (datasetFolder.ts).
    ...datasetWatchGlobs().map(watch),
    { dispose: () => runWatcher.dispose() },
    vscode.workspace.onDidChangeWorkspaceFolders(soon),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('irWorkbench.runs.folder')) {
        runWatcher.dispose();
        runWatcher = watch(`**/${runsFolder()}/**`);
      }
      if (e.affectsConfiguration('irWorkbench.runs.folder') || e.affectsConfiguration('irWorkbench.evaluation')) soon();
    }),
    // Asked for by the user: say what the pass found (a failed pass has already said why).
    vscode.commands.registerCommand('irWorkbench.reindexWorkspace', async () => {
      await reindex();
      if (last) await reindexed(last, tree.data, problemCount);
    }),
    vscode.commands.registerCommand('irWorkbench.importRun', async (e?: DatasetsElement) => {
      await importRunCommand(await client, tree, runsFolder(), reindex, e);
    }),
    vscode.commands.registerCommand('irWorkbench.exportJudgements', async (e?: DatasetsElement) => exportJudgementsCommand(await client, tree, e)),
  );
  return { client, reindex, tree, selection: () => (view.visible ? view.selection[0] : undefined), onRestarted: (listener) => restarted.event(listener), snapshotPath: dbPath };
}

/**
 * `work` one call at a time: a call while one runs asks for at most one more run after it, for whatever changed
 * meanwhile, and waits for that.
 */
function coalesced(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await work();
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  };
}

// datasetFilePatterns() as watcher globs, one per folder (qrels/ has its own): a glob group holds plain names.
function datasetWatchGlobs(): string[] {
  const byFolder = new Map<string, string[]>();
  for (const p of datasetFilePatterns()) {
    const i = p.lastIndexOf('/');
    const folder = p.slice(0, i + 1);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), p.slice(i + 1)]);
  }
  return [...byFolder].map(([folder, names]) => `**/${folder}{${names.join(',')}}`);
}

/** The Re-index Workspace message: what is indexed now, what this pass re-read, and the problems (with a way to them). */
async function reindexed(summary: IndexSummary, datasets: readonly DatasetNode[], problems: number): Promise<void> {
  const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const leftOut = new Set(datasets.flatMap((d) => d.splits.flatMap((s) => s.leftOut.map((r) => r.path)))).size;
  const parts = [
    `${plural(summary.datasets, 'dataset')}, ${plural(summary.runs, 'run')}${leftOut > 0 ? ` (${plural(leftOut, 'run')} left out: bad file)` : ''}`,
    summary.reindexed.length > 0 ? `${plural(summary.reindexed.length, 'file')} re-read` : 'nothing changed',
    ...(summary.removed.length > 0 ? [`${plural(summary.removed.length, 'file')} gone`] : []),
    problems > 0 ? plural(problems, 'problem') : 'no problems',
  ];
  const message = `IR Workbench: indexed ${parts.join(' · ')} (${summary.ms.toLocaleString('en-US')} ms).`;
  if (problems === 0) {
    void vscode.window.showInformationMessage(message);
    return;
  }
  const show = 'Show Problems';
  if ((await vscode.window.showWarningMessage(message, show)) === show) await vscode.commands.executeCommand('workbench.actions.view.problems');
}

async function indexOnce(c: EngineClient, tree: DatasetsTreeProvider, output: vscode.OutputChannel): Promise<IndexSummary> {
  const config = vscode.workspace.getConfiguration('irWorkbench');
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  return vscode.window.withProgress(
    { location: tree.data.length === 0 ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window, title: 'IR Workbench: indexing' },
    async (progress) => {
      let last = 0;
      const summary = await c.request(
        'index',
        {
          roots,
          runsFolder: config.get<string>('runs.folder', 'runs'),
          measures: config.get<string[]>('evaluation.measures', []),
          complete: config.get<boolean>('evaluation.completeQueries', true),
          relevanceLevel: config.get<number>('evaluation.relevanceLevel', 1),
        },
        (message, fraction) => {
          const increment = fraction === undefined ? undefined : Math.max(0, fraction * 100 - last);
          if (fraction !== undefined) last = fraction * 100;
          progress.report({ message, increment });
        },
      );
      output.appendLine(
        `indexed ${summary.datasets} datasets and ${summary.runs} runs in ${summary.ms} ms: ${summary.reindexed.length} files re-read, ` +
          `${summary.removed.length} removed, ${summary.problems} problems, ${summary.skippedLines} lines skipped`,
      );
      return summary;
    },
  );
}
