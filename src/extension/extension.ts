import * as vscode from 'vscode';
import { runBeirEval, type RunBeirEvalArgs } from './commands/runBeirEval';
import { registerStore } from './store/register';

export function activate(context: vscode.ExtensionContext): void {
  registerStore(context);
  const output = vscode.window.createOutputChannel('IR Workbench');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('irWorkbench.runBeirEval', (args?: RunBeirEvalArgs) => runBeirEval(context, output, args)),
  );
}

export function deactivate(): void {}
