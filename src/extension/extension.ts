import * as vscode from 'vscode';
import { downloadDataset, type DownloadDatasetArgs } from './commands/downloadDataset';
import { runBeirEval, type RunBeirEvalArgs } from './commands/runBeirEval';
import { registerRunActions } from './commands/runActions';
import { registerAnalysis } from './analysis/commands';
import { connectQrelsEditor } from './analysis/qrelsEditor';
import { registerStore } from './store/register';

export function activate(context: vscode.ExtensionContext): void {
  const store = registerStore(context);
  connectQrelsEditor(store); // before registerAnalysis registers the qrels editor
  registerAnalysis(context, store);
  registerRunActions(context, store);
  const output = vscode.window.createOutputChannel('IR Workbench');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('irWorkbench.runBeirEval', (args?: RunBeirEvalArgs) => runBeirEval(context, output, args)),
    vscode.commands.registerCommand('irWorkbench.downloadDataset', (args?: DownloadDatasetArgs) => downloadDataset(args)),
  );
}

export function deactivate(): void {}
