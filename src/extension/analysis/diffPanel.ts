import type * as vscode from 'vscode';
import type { DiffModel } from '../../protocol/webview';
import { diffExplainHandlers } from './explainHandlers';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

/**
 * A run diff panel for runs a and b of a split (one per pair); the engine computes the diff and each query's
 * detail. `restored`: the panel a window reload brought back.
 */
export async function showDiff(wb: AnalysisWorkbench, split: OpenSplit, a: string, b: string, restored?: vscode.WebviewPanel): Promise<DiffModel> {
  const label = (k: string) => split.runs.find((r) => r.key === k)?.label;
  for (const k of [a, b]) if (!label(k)) throw new Error(`no run ${k} in ${split.datasetName} (${split.split})`);
  const model = await wb.ask('diff', { key: split.key, a, b });
  wb.panel<'diff'>(
    'diff',
    `Diff: ${label(b)} vs ${label(a)}`,
    split,
    {
      query: ({ queryId, depth }) => wb.ask('queryDetail', { key: split.key, a, b, queryId, depth }),
      judge: async ({ queryId, docId, grade }) => {
        await wb.judge(split, queryId, docId, grade);
        return null;
      },
      ...diffExplainHandlers(wb, split, a, b),
    },
    async (channel) => channel.send('model', await wb.ask('diff', { key: split.key, a, b })),
    { a, b },
    restored,
  );
  return model;
}
