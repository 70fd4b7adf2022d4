import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { writeFileAtomic } from '../../core/durableFs';
import { isInputError } from '../../core/formats/errors';

/**
 * Saves an export (a table for a paper or notes): the dialog starts in the workspace's `results/` folder (an
 * output folder, not the dataset's, whose files are inputs), made before the dialog opens (a dialog cannot
 * start in a folder that does not exist: code-server's fell back to its own) and removed again, empty, when the
 * dialog is cancelled; the "Saved" message offers Open and Reveal. Without a workspace folder the dialog starts
 * in `fallbackDir`. Returns the path, or null; throws, naming the file, when it cannot be written.
 */
export async function saveExport(opts: { fileName: string; fallbackDir: string; filters: Record<string, string[]>; title: string; content: () => Promise<string> }): Promise<string | null> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const folder = root ? join(root, 'results') : opts.fallbackDir;
  const made = !existsSync(folder);
  mkdirSync(folder, { recursive: true });
  const uri = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.file(join(folder, opts.fileName)), filters: opts.filters, title: opts.title });
  if (made && (!uri || dirname(uri.fsPath) !== folder) && readdirSync(folder).length === 0) rmdirSync(folder);
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
