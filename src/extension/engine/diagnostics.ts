import * as vscode from 'vscode';
import type { Problem } from '../../core/formats/problems';

const SEVERITY: Record<Problem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/** Shows the store's problems in the Problems panel: one diagnostic per {file, line}, line 0 = the file. */
export function showProblems(collection: vscode.DiagnosticCollection, problems: readonly Problem[]): void {
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const p of problems) {
    const line = Math.max(0, p.line - 1);
    const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), p.message, SEVERITY[p.severity]);
    d.source = 'IR Workbench';
    byFile.set(p.file, [...(byFile.get(p.file) ?? []), d]);
  }
  collection.clear();
  for (const [file, diags] of byFile) collection.set(vscode.Uri.file(file), diags);
}
