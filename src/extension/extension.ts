import * as vscode from 'vscode';
import { registerStore } from './store/register';

export function activate(context: vscode.ExtensionContext): void {
  registerStore(context);
  context.subscriptions.push(
    vscode.commands.registerCommand('irWorkbench.runBeirEval', async () => {
      await vscode.window.showInformationMessage('IR Workbench: Run BEIR Eval');
    }),
  );
}

export function deactivate(): void {}
