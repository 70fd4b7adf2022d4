import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { writeFileAtomic } from '../../core/durableFs';
import { isInputError } from '../../core/formats/errors';

/**
 * Saves an export (a table for a paper or notes): the dialog starts in the workspace's `results/` folder (an
 * output folder, not the dataset's, whose files are inputs), made on save; the "Saved" message offers Open
 * and Reveal. Without a workspace folder the dialog starts in `fallbackDir`. Returns the path, or null; throws,
 * naming the file, when it cannot be written.
 */
export async function saveExport(opts: { fileName: string; fallbackDir: string; filters: Record<string, string[]>; title: string; content: () => Promise<string> }): Promise<string | null> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const uri = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(join(root ? join(root, 'results') : opts.fallbackDir, opts.fileName)),
    filters: opts.filters,
    title: opts.title,
  });
  if (!uri) return null;
  // Whole or not at all: a full disk leaves the previous export as it was and says so, naming the file.
  try {
    writeFileAtomic(uri.fsPath, await opts.content());
  } catch (e) {
    throw isInputError(e) ? new Error(e.format()) : e;
  }
  void vscode.window.showInformationMessage(`IR Workbench: saved ${basename(uri.fsPath)}`, 'Open', 'Reveal').then((choice) => {
    if (choice === 'Open') return vscode.window.showTextDocument(uri);
    if (choice === 'Reveal') return vscode.commands.executeCommand('revealInExplorer', uri);
  });
  return uri.fsPath;
}
