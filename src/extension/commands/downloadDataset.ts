import * as vscode from 'vscode';
import { join } from 'node:path';
import { BEIR_DATASETS } from '../../core/datasets/catalog';
import { isDatasetError } from '../../core/datasets/errors';
import { getDataset, type GetProgress } from '../../core/datasets/get';
import { formatTransfer } from '../../core/progress/format';

/** Arguments that skip the pickers (keybindings, tasks, tests). `baseUrl` defaults to $IRW_BEIR_BASE_URL, then BEIR's server. */
export interface DownloadDatasetArgs {
  name?: string;
  dir?: string;
  baseUrl?: string;
  md5?: string;
}

/**
 * "IR Workbench: Download BEIR Dataset…": pick a dataset and a folder, then download (md5-checked, resumable) and
 * unpack it with a cancellable progress notification. Resolves to the dataset folder, or undefined.
 */
export async function downloadDataset(args: DownloadDatasetArgs = {}): Promise<string | undefined> {
  const name = args.name ?? (await pickDataset());
  if (!name) return undefined;
  const dir = args.dir ?? (await pickFolder());
  if (!dir) return undefined;
  const baseUrl = args.baseUrl ?? (process.env.IRW_BEIR_BASE_URL || undefined);
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Downloading ${name}`, cancellable: true }, async (progress, token) => {
    const controller = new AbortController();
    token.onCancellationRequested(() => controller.abort());
    const start = Date.now();
    let last = 0;
    let shown = 0;
    const onProgress = (p: GetProgress) => {
      const now = Date.now();
      if (p.phase === 'download') {
        if (now - last < 250) return;
        last = now;
        const percent = p.total ? (p.received / p.total) * 100 : 0;
        progress.report({ message: formatTransfer(p.received, p.total, p.received - p.resumedFrom, now - start), increment: percent - shown });
        shown = percent;
      } else if (p.phase === 'verify') progress.report({ message: 'checking the md5…' });
      else if (p.phase === 'wait') progress.report({ message: `waiting for another download of ${name} (process ${p.pid}) to finish…` });
      else progress.report({ message: `unpacking ${p.entries} of ${p.totalEntries} files…` });
    };
    try {
      const r = await getDataset({ name, dir, baseUrl, md5: args.md5 }, { signal: controller.signal, onProgress });
      void vscode.window.showInformationMessage(r.downloaded ? `IR Workbench: ${name} is in ${r.folder} (md5 checked).` : `IR Workbench: ${name} is already in ${r.folder}.`);
      return r.folder;
    } catch (e) {
      if (controller.signal.aborted) {
        void vscode.window.showInformationMessage(`IR Workbench: download of ${name} cancelled; run the command again to resume it.`);
      } else {
        void vscode.window.showErrorMessage(`IR Workbench: ${isDatasetError(e) ? e.format() : String((e as Error).message ?? e)}`);
      }
      return undefined;
    }
  });
}

async function pickDataset(): Promise<string | undefined> {
  const items = BEIR_DATASETS.filter((d) => d.md5).map((d) => ({
    label: d.name,
    description: d.title,
    detail: `${d.testQueries.toLocaleString()} test queries, ${d.corpus} documents; licence: ${d.licence}`,
  }));
  return (await vscode.window.showQuickPick(items, { title: 'Download BEIR Dataset', placeHolder: 'Dataset (BEIR zip, md5-checked)', matchOnDescription: true }))?.label;
}

async function pickFolder(): Promise<string | undefined> {
  const ws = vscode.workspace.workspaceFolders?.[0];
  if (ws) {
    const into = join(ws.uri.fsPath, 'datasets');
    const choice = await vscode.window.showQuickPick([{ label: `Into ${into}`, dir: into }, { label: 'Choose a folder…', dir: '' }], { title: 'Download BEIR Dataset: where to' });
    if (!choice) return undefined;
    if (choice.dir) return choice.dir;
  }
  const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Download Here', title: 'Folder that receives the dataset folder' });
  return picked?.[0]?.fsPath;
}
