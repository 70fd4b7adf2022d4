import { basename } from 'node:path';
import * as vscode from 'vscode';
import { runLabels } from '../../core/index/discovery';
import type { EngineHandle } from '../engine/register';
import type { DatasetsElement } from '../views/datasetsTree';

/** A run row of the Datasets tree (a good run, or one left out because its file is bad). */
export type RunRow = DatasetsElement & { kind: 'run' | 'leftOut' };

/** Diff with…: the other runs of the split in a quick pick, then the Run Diff panel with this run as a. */
export async function diffWith(e: RunRow): Promise<void> {
  const others = e.split.runs.filter((r) => r.path !== e.run.path);
  if (others.length === 0) {
    void vscode.window.showInformationMessage(`IR Workbench: ${e.split.split} of ${e.dataset.name} has no other run to compare with.`);
    return;
  }
  const labels = runLabels(e.split.runs.map((r) => r.path));
  const pick = await vscode.window.showQuickPick(
    others.map((r) => ({ label: labels.get(r.path) ?? basename(r.path), description: vscode.workspace.asRelativePath(r.path), path: r.path })),
    { title: `Diff ${labels.get(e.run.path) ?? basename(e.run.path)} with…`, placeHolder: 'the run to compare with (b)' },
  );
  if (!pick) return;
  await vscode.commands.executeCommand('irWorkbench.showRunDiff', { dataset: e.dataset.dir, split: e.split.split, a: e.run.path, b: pick.path });
}

/** Who keeps the baselines (the analysis workbench: the workspace state, the tree's mark, the open views). */
export interface Baselines {
  setBaseline(datasetDir: string, split: string, run: string): Promise<void>;
}

/** Set as Baseline: the run becomes the split's baseline at once in the tree and every open view of the split. */
export async function setBaseline(baselines: Baselines, e: RunRow): Promise<void> {
  await baselines.setBaseline(e.dataset.dir, e.split.split, e.run.path);
  void vscode.window.showInformationMessage(`IR Workbench: ${basename(e.run.path)} is the baseline of ${e.dataset.name} (${e.split.split}).`);
}

export async function copyPath(e: RunRow): Promise<void> {
  await vscode.env.clipboard.writeText(e.run.path);
}

export async function revealRun(e: RunRow): Promise<void> {
  await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(e.run.path));
}

/**
 * Delete: after a modal confirmation naming the file, to the trash (with its `<run>.json` sidecar) where there
 * is one: a desktop window on local files. A browser or remote window (code-server, SSH) has none, so its
 * confirmation says the file is deleted for good and promises no trash; should the trash still fail, a second
 * confirmation says so in words (not the file system's URI). Returns whether the run was deleted (the file
 * watcher then drops it from the tree).
 */
export async function deleteRun(e: RunRow): Promise<boolean> {
  const uri = vscode.Uri.file(e.run.path);
  const trash = vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined;
  const go = trash ? 'Move to Trash' : 'Delete Permanently';
  const answer = await vscode.window.showWarningMessage(
    `Delete the run ${basename(e.run.path)}?`,
    {
      modal: true,
      detail: `${e.run.path}\n\n${trash ? 'It goes to the trash' : 'This window has no trash: the file is deleted for good'}; its figures leave the Datasets view and the panels.`,
    },
    go,
  );
  if (answer !== go) return false;
  const sidecar = vscode.Uri.file(`${e.run.path}.json`);
  const hasSidecar = await vscode.workspace.fs.stat(sidecar).then(
    () => true,
    () => false,
  );
  const remove = async (useTrash: boolean) => {
    await vscode.workspace.fs.delete(uri, { useTrash });
    if (hasSidecar) await vscode.workspace.fs.delete(sidecar, { useTrash });
  };
  if (!trash) {
    await remove(false);
    return true;
  }
  try {
    await remove(true);
    return true;
  } catch {
    const forGood = 'Delete Permanently';
    const again = await vscode.window.showWarningMessage(
      `${basename(e.run.path)} cannot go to the trash: delete it permanently?`,
      { modal: true, detail: `The trash of this system did not take it.\n\n${e.run.path}` },
      forGood,
    );
    if (again !== forGood) return false;
    await remove(false);
    return true;
  }
}

/** The context menu of run rows in the Datasets tree (package.json: menus view/item/context, viewItem irw.run / irw.leftOutRun). */
export function registerRunActions(context: vscode.ExtensionContext, store: EngineHandle, baselines: Baselines): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('irWorkbench.run.diffWith', (e: RunRow) => diffWith(e)),
    vscode.commands.registerCommand('irWorkbench.run.setBaseline', (e: RunRow) => setBaseline(baselines, e)),
    vscode.commands.registerCommand('irWorkbench.run.reveal', (e: RunRow) => revealRun(e)),
    vscode.commands.registerCommand('irWorkbench.run.copyPath', (e: RunRow) => copyPath(e)),
    vscode.commands.registerCommand('irWorkbench.run.delete', async (e: RunRow) => {
      if (await deleteRun(e)) await store.reindex();
    }),
  );
}
