import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { EngineClient } from '../../core/engine/client';
import type { DatasetNode, SplitNode } from '../../core/index/nodes';
import type { DatasetsElement, DatasetsTreeProvider } from '../views/datasetsTree';
import { openLocation } from '../ui/openLocation';

async function pickDataset(tree: DatasetsTreeProvider, e?: DatasetsElement): Promise<DatasetNode | undefined> {
  if (e) return e.dataset;
  const all = tree.data;
  if (all.length <= 1) {
    if (all.length === 0) void vscode.window.showWarningMessage('IR Workbench: no dataset is indexed. Open a folder with a dataset (BEIR corpus.jsonl, or an MS MARCO/TREC-style collection.tsv with queries.<split>.tsv and qrels.<split>.tsv) and run Re-index Workspace.');
    return all[0];
  }
  const pick = await vscode.window.showQuickPick(all.map((d) => ({ label: d.name, description: d.dir, d })), { title: 'Dataset' });
  return pick?.d;
}

/**
 * Import TREC Run: copies the file to <workspace>/<runs folder>/<dataset>/, re-indexes, and says what the index
 * made of it, as for a file dropped into a runs folder (one path for both): imported, or left out with every bad
 * line in the Problems panel, Open File at the first. Returns the copy's path.
 */
export async function importRunCommand(c: EngineClient, tree: DatasetsTreeProvider, runsFolder: string, reindex: () => Promise<void>, e?: DatasetsElement): Promise<string | undefined> {
  const dataset = await pickDataset(tree, e);
  if (!dataset) return undefined;
  const files = await vscode.window.showOpenDialog({ canSelectMany: false, title: `Import a TREC run for ${dataset.name}`, openLabel: 'Import Run' });
  if (!files?.[0]) return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(dataset.dir)) ?? vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  let path: string;
  try {
    ({ path } = await c.request('importRun', { source: files[0].fsPath, targetDir: join(folder.uri.fsPath, runsFolder, dataset.name) }));
  } catch (err) {
    void vscode.window.showErrorMessage(`IR Workbench: cannot import the run: ${(err as Error).message}`);
    return undefined;
  }
  await reindex();
  const left = tree.data.find((d) => d.dir === dataset.dir)?.splits.flatMap((s) => s.leftOut).find((r) => r.path === path);
  if (left) {
    const open = 'Open File';
    const problems = 'Show Problems';
    void vscode.window.showErrorMessage(`IR Workbench: imported ${basename(path)} for ${dataset.name}, but it is left out until fixed: ${left.reason}`, open, problems).then((choice) => {
      if (choice === open) return openLocation(path, left.line || undefined);
      if (choice === problems) return vscode.commands.executeCommand('workbench.actions.view.problems');
    });
  } else {
    void vscode.window.showInformationMessage(`IR Workbench: imported ${basename(path)} for ${dataset.name}.`);
  }
  return path;
}

/** Export Judgements: the user's judgements of a split as TREC or BEIR qrels, alone or merged with the originals. */
export async function exportJudgementsCommand(c: EngineClient, tree: DatasetsTreeProvider, e?: DatasetsElement): Promise<void> {
  const dataset = await pickDataset(tree, e);
  if (!dataset) return;
  let split: SplitNode | undefined = e && e.kind !== 'dataset' ? e.split : undefined;
  if (!split) {
    const pick = await vscode.window.showQuickPick(
      dataset.splits.map((s) => ({ label: s.split, description: `${s.judgementCount} judgements of yours`, s })),
      { title: 'Split' },
    );
    split = pick?.s;
  }
  if (!split) return;
  const format = await vscode.window.showQuickPick(
    [
      { label: 'TREC qrels', description: 'qid 0 docid grade', value: 'trec' as const },
      { label: 'BEIR qrels', description: 'query-id<TAB>corpus-id<TAB>score, with header', value: 'beir' as const },
    ],
    { title: 'Format' },
  );
  if (!format) return;
  const scope = await vscode.window.showQuickPick(
    [
      { label: 'Merged with the original qrels', description: 'your judgements win where both exist', merge: true },
      { label: 'Your judgements alone', merge: false },
    ],
    { title: 'Which judgements' },
  );
  if (!scope) return;
  const ext = format.value === 'trec' ? 'qrels' : 'tsv';
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(join(dataset.dir, `${dataset.name}.${split.split}.${scope.merge ? 'merged' : 'judgements'}.${ext}`)),
    title: 'Export judgements',
  });
  if (!target) return;
  try {
    const { lines } = await c.request('exportJudgements', { datasetDir: dataset.dir, split: split.split, format: format.value, merge: scope.merge, out: target.fsPath });
    void vscode.window.showInformationMessage(`IR Workbench: wrote ${lines} judgements to ${basename(target.fsPath)}.`);
  } catch (err) {
    void vscode.window.showErrorMessage(`IR Workbench: export failed: ${(err as Error).message}`);
  }
}
