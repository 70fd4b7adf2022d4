import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('irWorkbench.runBeirEval', async () => {
      await vscode.window.showInformationMessage('IR Workbench: Run BEIR Eval');
    }),
  );
}

export function deactivate(): void {}
