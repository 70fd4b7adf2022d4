import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { CORPUS_FILES } from '../core/formats/datasetFolder';
import { discover } from '../core/index/discovery';

/** A dataset folder (BEIR or MS MARCO/TREC-style) with the splits that have original qrels, test first. */
export interface DatasetFolder {
  path: string;
  name: string;
  splits: string[];
}

/** The dataset at `dir` as the store's discovery sees it, or undefined if it is not a dataset folder. */
export function datasetAt(dir: string): DatasetFolder | undefined {
  const d = discover([dir], { runsFolder: 'runs', maxDepth: 0 }).datasets[0];
  if (!d) return undefined;
  const splits = d.splits.filter((s) => s.qrels).map((s) => s.split);
  splits.sort((a, b) => (a === 'test' ? -1 : b === 'test' ? 1 : a.localeCompare(b)));
  return splits.length ? { path: d.dir, name: d.name, splits } : undefined;
}

/** Every corpus file name a dataset folder may hold (corpus.jsonl, collection.tsv, … and their .gz), as one glob. */
export const CORPUS_GLOB = `**/{${CORPUS_FILES.flatMap((f) => [f, `${f}.gz`]).join(',')}}`;

/** Dataset folders of the workspace, found through VS Code's file search (async, honours files.exclude). */
export async function findDatasets(): Promise<DatasetFolder[]> {
  const corpora = await vscode.workspace.findFiles(CORPUS_GLOB, '**/node_modules/**', 200);
  const dirs = [...new Set(corpora.map((uri) => dirname(uri.fsPath)))]; // a folder may hold two corpus names
  return dirs
    .map((dir) => datasetAt(dir))
    .filter((d): d is DatasetFolder => d !== undefined)
    .sort((a, b) => a.path.localeCompare(b.path));
}
