import type * as vscode from 'vscode';
import type { HolesModel, PanelChoices, QueueOrder, ViewEvents } from '../../protocol/webview';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

const DEPTHS = [5, 10, 20];
/** Queue items listed in the panel (the annotation view takes the whole pool). */
const LISTED = 200;

/**
 * The holes panel of a split: Hole@10 both ways, and the depth-k pool of unjudged pairs of chosen runs (from the
 * engine). `restored`: the panel a window reload brought back, with the pool and order chosen in it.
 */
export async function showHoles(
  wb: AnalysisWorkbench,
  split: OpenSplit,
  startAnnotating: (pooled: string[], depth: number, order: QueueOrder) => Promise<void>,
  restored?: { panel: vscode.WebviewPanel; choices: PanelChoices },
): Promise<HolesModel> {
  const kept = restored?.choices;
  const runs = split.runs.map((r) => r.key);
  let pooled = kept?.pooled ? kept.pooled.filter((k) => runs.includes(k)) : runs;
  let depth = kept?.depth !== undefined && DEPTHS.includes(kept.depth) ? kept.depth : 10;
  let order: QueueOrder = kept?.order === 'impact' || kept?.order === 'sample' ? kept.order : 'blind';
  const model = (): Promise<ViewEvents['holes']['model']> => wb.ask('holes', { key: split.key, runs: pooled, depth, listed: LISTED, order });
  wb.panel<'holes'>(
    'holes',
    `Holes: ${split.datasetName} (${split.split})`,
    split,
    {
      setPool: ({ runs, depth: d, order: o }) => {
        if (!DEPTHS.includes(d)) throw new Error(`pool depth ${d}: pick one of ${DEPTHS.join(', ')}`);
        pooled = runs.filter((k) => split.runs.some((r) => r.key === k));
        depth = d;
        order = o === 'impact' || o === 'sample' ? o : 'blind';
        wb.refreshViews(split);
        return null;
      },
      annotate: async () => {
        if (pooled.length === 0) throw new Error('pick at least one run to pool');
        await startAnnotating(pooled, depth, order);
        return null;
      },
      judge: async ({ queryId, docId, grade }) => {
        await wb.judge(split, queryId, docId, grade);
        return null;
      },
    },
    // Nothing the panel shows is computed in the background: the figures of a judgement come once, with it.
    async (channel, change) => {
      if (change !== 'computed') channel.send('model', await model());
    },
    {},
    restored?.panel,
  );
  return model();
}
