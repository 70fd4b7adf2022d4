import type { HolesModel, QueueOrder, ViewEvents } from '../../protocol/webview';
import type { AnalysisWorkbench, OpenSplit } from './workbench';

const DEPTHS = [5, 10, 20];
/** Queue items listed in the panel (the annotation view takes the whole pool). */
const LISTED = 200;

/** The holes panel of a split: Hole@10 both ways, and the depth-k pool of unjudged pairs of chosen runs. */
export function showHoles(wb: AnalysisWorkbench, split: OpenSplit, startAnnotating: (pooled: string[], depth: number, order: QueueOrder) => Promise<void>): HolesModel {
  let pooled = split.session.runRefs().map((r) => r.key);
  let depth = 10;
  let order: QueueOrder = 'blind';
  const model = (): ViewEvents['holes']['model'] => {
    const s = split.session;
    const pool = s.pool(pooled, depth, s.userJudged());
    const rows = s.holeRows();
    const impact = order === 'impact' ? s.impactQueue(pooled, depth) : null;
    return {
      dataset: s.datasetName,
      split: s.split,
      depth,
      rows,
      pooled,
      poolSize: pool.length,
      remaining: pool.filter((p) => s.grade(p.queryId, p.docId) === null).length,
      grades: s.gradeScale(),
      order,
      meter: impact?.meter ?? null,
      queue: (impact?.items ?? pool).slice(0, LISTED).map((p) => ({ ...p, queryText: s.queries.get(p.queryId)?.text ?? '', grade: s.grade(p.queryId, p.docId) })),
    };
  };
  wb.panel<'holes'>(
    'holes',
    `Holes: ${split.session.datasetName} (${split.session.split})`,
    split,
    {
      setPool: ({ runs, depth: d, order: o }) => {
        if (!DEPTHS.includes(d)) throw new Error(`pool depth ${d}: pick one of ${DEPTHS.join(', ')}`);
        pooled = runs.filter((k) => split.session.hasRun(k));
        depth = d;
        order = o === 'impact' ? 'impact' : 'blind';
        for (const v of split.views) v.refresh();
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
    (channel) => channel.send('model', model()),
  );
  return model();
}
