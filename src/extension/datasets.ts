import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';

/** A BEIR-layout folder: corpus.jsonl, queries.jsonl and qrels/<split>.tsv. */
export interface DatasetFolder {
  path: string;
  name: string;
  splits: string[];
}

/** Original qrels splits of a dataset (qrels/<split>.tsv, not our <split>.annotations.tsv), test first. */
export function splitsOf(folder: string): string[] {
  const dir = join(folder, 'qrels');
  if (!existsSync(dir)) return [];
  const splits = readdirSync(dir)
    .filter((f) => f.endsWith('.tsv') && !f.endsWith('.annotations.tsv'))
    .map((f) => f.slice(0, -'.tsv'.length));
  return splits.sort((a, b) => (a === 'test' ? -1 : b === 'test' ? 1 : a.localeCompare(b)));
}

export async function findDatasets(): Promise<DatasetFolder[]> {
  const corpora = await vscode.workspace.findFiles('**/corpus.jsonl', '**/node_modules/**', 200);
  const out: DatasetFolder[] = [];
  for (const uri of corpora) {
    const path = dirname(uri.fsPath);
    const splits = splitsOf(path);
    if (existsSync(join(path, 'queries.jsonl')) && splits.length) out.push({ path, name: basename(path), splits });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
