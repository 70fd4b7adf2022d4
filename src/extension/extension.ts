import * as vscode from 'vscode';
import { downloadDataset, type DownloadDatasetArgs } from './commands/downloadDataset';
import { runBeirEval, type RunBeirEvalArgs } from './commands/runBeirEval';
import { registerRunActions } from './commands/runActions';
import { registerAnalysis } from './analysis/commands';
import type { DatasetNode } from '../core/index/nodes';
import { registerStore } from './engine/register';

/** What activate() returns: what the Datasets view shows, for the extension-host tests (and other extensions). */
export interface IrWorkbenchApi {
  datasets(): readonly DatasetNode[];
  /** The baseline an open split's views compare with (undefined when the split is not open). */
  baselineOf(datasetDir: string, split: string): string | undefined;
  /** Where the index snapshot is kept (a cache of the files, rebuilt from them when lost); undefined without a workspace. */
  snapshotPath: string | undefined;
}

export function activate(context: vscode.ExtensionContext): IrWorkbenchApi {
  const store = registerStore(context);
  const wb = registerAnalysis(context, store);
  registerRunActions(context, store, wb);
  const output = vscode.window.createOutputChannel('IR Workbench');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('irWorkbench.runBeirEval', (args?: RunBeirEvalArgs) => runBeirEval(context, wb, output, args)),
    vscode.commands.registerCommand('irWorkbench.downloadDataset', (args?: DownloadDatasetArgs) => downloadDataset(args)),
  );
  return { datasets: () => store.tree.data, baselineOf: (dir, split) => wb.baselineOf(dir, split), snapshotPath: store.snapshotPath };
}

export function deactivate(): void {}
