import * as vscode from 'vscode';
import type { ResultsModel } from '../../protocol/webview';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

/** The results panel of a split (one per split: opening it again reveals it). */
const open = new Map<string, { panel: vscode.WebviewPanel; refresh(): void }>();

/**
 * Resolves to the model with its significance (the panel shows the table at once, significance when known);
 * `restored`: the panel a window reload brought back.
 */
export function showResults(wb: AnalysisWorkbench, split: OpenSplit, openDiff: (a: string, b: string) => void, openHoles: () => void, restored?: vscode.WebviewPanel): Promise<ResultsModel> {
  const existing = open.get(split.key);
  if (existing && !restored) {
    existing.refresh();
    existing.panel.reveal();
    return wb.completeResultsModel(split);
  }
  const { panel, view }: { panel: vscode.WebviewPanel; view: { refresh(): void } } = wb.panel<'results'>(
    'results',
    `Results: ${split.datasetName} (${split.split})`,
    split,
    {
      setBaseline: async ({ key }) => {
        if (!split.runs.some((r) => r.key === key)) throw new Error(`no run ${key} in this panel`);
        await wb.setBaseline(split.datasetDir, split.split, key);
        return null;
      },
      setTesting: ({ compare, correction }) => {
        if (!['baseline', 'all-pairs'].includes(compare) || !['holm', 'bh', 'bonferroni'].includes(correction)) throw new Error(`unknown comparison ${compare} or correction ${correction}`);
        split.testing = { compare, correction };
        view.refresh();
        return null;
      },
      export: async ({ format }) => ({ path: await wb.exportResults(split, format) }),
      openDiff: ({ a, b }) => {
        openDiff(a, b);
        return null;
      },
      openHoles: () => {
        openHoles();
        return null;
      },
      queryDeltas: ({ a, b, measure }) => wb.ask('queryDeltas', { key: split.key, a, b, measure }),
    },
    async (channel) => channel.send('model', await wb.resultsModel(split)),
    {},
    restored,
  );
  open.set(split.key, { panel, refresh: view.refresh });
  panel.onDidDispose(() => open.delete(split.key));
  return wb.completeResultsModel(split);
}
