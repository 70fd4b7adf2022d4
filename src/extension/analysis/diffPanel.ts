import type { DiffModel } from '../../protocol/webview';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

/** A run diff panel for runs a and b of a split (one per pair). */
export function showDiff(wb: AnalysisWorkbench, split: OpenSplit, a: string, b: string): DiffModel {
  for (const k of [a, b]) if (!split.session.hasRun(k)) throw new Error(`no run ${k} in ${split.session.datasetName} (${split.session.split})`);
  const labels = split.session.runRefs();
  const label = (k: string) => labels.find((r) => r.key === k)!.label;
  wb.panel<'diff'>(
    'diff',
    `Diff: ${label(b)} vs ${label(a)}`,
    split,
    {
      query: ({ queryId, depth }) => split.session.queryDetail(a, b, queryId, Math.max(1, Math.min(1000, depth))),
      judge: async ({ queryId, docId, grade }) => {
        await wb.judge(split, queryId, docId, grade);
        return null;
      },
    },
    (channel) => channel.send('model', split.session.diff(a, b)),
  );
  return split.session.diff(a, b);
}
