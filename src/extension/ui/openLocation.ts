import { statSync } from 'node:fs';
import * as vscode from 'vscode';

/**
 * Where an error points: a folder is revealed in the Explorer (it cannot open as a text document), a file
 * opens with the cursor on its 1-based `line`.
 */
export async function openLocation(path: string, line?: number): Promise<void> {
  const uri = vscode.Uri.file(path);
  let folder: boolean;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    void vscode.window.showWarningMessage(`IR Workbench: ${path} no longer exists.`);
    return;
  }
  if (folder) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
    return;
  }
  const editor = await vscode.window.showTextDocument(uri);
  if (line) {
    const pos = new vscode.Position(line - 1, 0);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }
}
