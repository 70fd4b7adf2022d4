import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import type { PairExplanation } from '../../protocol/webview';
import type { RequestHandlers } from '../webview/channel';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

/**
 * The Diff's and the Judge sidebar's explanation and what-if requests, answered by the engine
 * (core/engine/explainRequests.ts). The Diff explains a document in both runs; the sidebar explains the
 * current pair blind (the query terms the document holds, never which run retrieved it).
 */
export function diffExplainHandlers(wb: AnalysisWorkbench, split: OpenSplit, a: string, b: string): Pick<RequestHandlers<'diff'>, 'explain' | 'whatIf' | 'saveWhatIf'> {
  const run = (side: 'a' | 'b') => (side === 'a' ? a : b);
  return {
    explain: async ({ queryId, docId }) => {
      const engine = await wb.engine();
      const one = (r: string) => engine.request('explain', { key: split.key, run: r, queryId, docId }).catch((e: Error) => ({ error: e.message }));
      const [ea, eb] = await Promise.all([one(a), one(b)]);
      return { queryId, docId, a: ea, b: eb };
    },
    whatIf: async ({ queryId, side, edit }) => (await wb.engine()).request('whatIf', { key: split.key, run: run(side), queryId, edit, compare: [a, b] }),
    saveWhatIf: async ({ side }) => {
      const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? split.datasetDir;
      const uri = await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.file(join(root, `queries.${split.split}.what-if.jsonl`)),
        filters: { 'BEIR queries (JSONL)': ['jsonl'] },
        title: 'Save the what-if queries (the whole split, edited queries included)',
      });
      if (!uri) return null;
      const r = await (await wb.engine()).request('saveWhatIf', { key: split.key, run: run(side), out: uri.fsPath });
      const command = `irw run --dataset ${quote(split.datasetDir)} --queries ${quote(r.path)} --out ${quote(join(split.datasetDir, 'runs', `${basename(r.path, '.jsonl')}.trec`))}`;
      void vscode.window.showInformationMessage(`IR Workbench: saved ${r.queries} queries (${r.edited} edited) to ${basename(r.path)}. Run the split with them: ${command}`, 'Copy Command').then((c) => {
        if (c) return vscode.env.clipboard.writeText(command);
      });
      return { path: r.path, command };
    },
  };
}

/** The sidebar's explain request: the current pair, blind. */
export async function explainPair(wb: AnalysisWorkbench, split: OpenSplit, pair: { queryId: string; docId: string } | undefined): Promise<PairExplanation> {
  if (!pair) throw new Error('no pair to explain');
  return (await wb.engine()).request('explainPair', { key: split.key, ...pair });
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
