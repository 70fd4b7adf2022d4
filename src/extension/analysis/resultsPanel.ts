import * as vscode from 'vscode';
import type { QueryPlot, QueryPlotState, ResultsModel } from '../../protocol/webview';
import type { ViewChannel } from '../webview/channel';
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
  // The comparison the page plots query by query: its deltas go with every model, as a state the channel
  // patches (a judgement changes one query's entry), not as an answer the page asks for after each model.
  let plot: QueryPlot | undefined;
  const plotState = async (): Promise<QueryPlotState | undefined> => {
    const asked = plot;
    return asked && wb.ask('queryDeltas', { key: split.key, ...asked }).then((deltas) => ({ plot: asked, deltas }), (e: Error) => ({ plot: asked, error: e.message }));
  };
  // Unless chosen again meanwhile: the newer choice sends its own.
  const sendPlot = (channel: ViewChannel<'results'>, state: QueryPlotState | undefined) => state && state.plot === plot && channel.send('queries', state);
  const { panel, view, channel }: { panel: vscode.WebviewPanel; view: { refresh(): void }; channel: ViewChannel<'results'> } = wb.panel<'results'>(
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
      plot: async ({ a, b, measure }) => {
        plot = { a, b, measure };
        sendPlot(channel, await plotState());
        return null;
      },
    },
    async (channel) => {
      // Both asked at once and sent in one turn: the extension host's writer sends them as one message to the
      // workbench, whose one renderer thread reads each message apart (a few ms each).
      const [model, queries] = await Promise.all([wb.resultsModel(split), plotState()]);
      channel.send('model', model);
      sendPlot(channel, queries);
    },
    {},
    restored,
  );
  open.set(split.key, { panel, refresh: view.refresh });
  panel.onDidDispose(() => open.delete(split.key));
  return wb.completeResultsModel(split);
}
