import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { discover } from '../core/store/discovery';

/** A BEIR-layout folder with the splits that have original qrels (qrels/<split>.tsv), test first. */
export interface DatasetFolder {
  path: string;
  name: string;
  splits: string[];
}

/** The dataset at `dir` as the store's discovery sees it, or undefined if it is not BEIR-layout. */
export function datasetAt(dir: string): DatasetFolder | undefined {
  const d = discover([dir], { runsFolder: 'runs', maxDepth: 0 }).datasets[0];
  if (!d) return undefined;
  const splits = d.splits.filter((s) => s.qrels).map((s) => s.split);
  splits.sort((a, b) => (a === 'test' ? -1 : b === 'test' ? 1 : a.localeCompare(b)));
  return splits.length ? { path: d.dir, name: d.name, splits } : undefined;
}

/** Dataset folders of the workspace, found through VS Code's file search (async, honours files.exclude). */
export async function findDatasets(): Promise<DatasetFolder[]> {
  const corpora = await vscode.workspace.findFiles('**/corpus.jsonl', '**/node_modules/**', 200);
  return corpora
    .map((uri) => datasetAt(dirname(uri.fsPath)))
    .filter((d): d is DatasetFolder => d !== undefined)
    .sort((a, b) => a.path.localeCompare(b.path));
}
