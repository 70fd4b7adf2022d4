import type { HoleRow, HolesModel, QueueOrder } from '../../protocol/webview';
import { impactQueue, sampleQueue } from './judging';
import { userPoolHead } from './pool';
import { coverageOf } from './results';
import { EXTRA_COLUMNS, RESULT_MEASURES } from './scores';
import type { SplitState } from './state';

// The Holes panel's model: Hole@10 of every run both ways, and the head of the depth-k pool it judges from.

/**
 * Hole@10 of each run both ways: BEIR's (hole.10: judged for no query) and per query (unj.10: not judged
 * for that query, i.e. 1 - judged.10 wherever a run returns at least 10 documents; both count the missing
 * ranks of a shorter list as judged filler, as trec_eval 10's unj does), over the queries the run answers.
 */
export function holeRows(state: SplitState): HoleRow[] {
  const hole = RESULT_MEASURES.findIndex((m) => m.key === 'hole_10');
  const unj = RESULT_MEASURES.length + EXTRA_COLUMNS.indexOf('unj_10');
  return state.runKeys().map((k) => {
    const o = state.scores(k, 'original').means;
    const e = state.scores(k, 'annotated').means;
    return { ...state.ref(k), holeBeir: o[hole], holeQuery: o[unj], holeBeirAnnotated: e[hole], holeQueryAnnotated: e[unj], coverage: coverageOf(state, k) };
  });
}

export type HolesPanelModel = HolesModel & { queue: { queryId: string; docId: string; queryText: string; grade: number | null; title?: string }[] };

/** The panel's model with the listed documents' titles, read from the corpus once per document and kept. */
export async function withTitles(state: SplitState, model: HolesPanelModel): Promise<HolesPanelModel> {
  const titles = state.keep('titles', [], () => new Map<string, string>());
  await Promise.all(
    [...new Set(model.queue.map((p) => p.docId))].filter((d) => !titles.has(d)).map(async (d) => titles.set(d, (await state.corpus.read(d))?.title ?? '')),
  );
  return { ...model, queue: model.queue.map((p) => ({ ...p, title: titles.get(p.docId) ?? '' })) };
}

/** The panel: Hole@10 of every run, the pool of `runs` at `depth` and its first `listed` pairs in `order`. */
export function holesModel(state: SplitState, a: { runs: readonly string[]; depth: number; listed: number; order?: QueueOrder }): HolesPanelModel {
  const runs = a.runs.filter((k) => state.hasRun(k));
  const pool = userPoolHead(state, runs, a.depth, a.listed);
  const order = a.order ?? 'blind';
  const impact = order === 'impact' ? impactQueue(state, runs, a.depth) : order === 'sample' ? sampleQueue(state, runs, a.depth) : null;
  return {
    dataset: state.datasetName,
    split: state.split,
    depth: a.depth,
    rows: holeRows(state),
    pooled: runs,
    poolSize: pool.size,
    remaining: pool.unjudged,
    grades: state.gradeScale(),
    order,
    meter: impact?.meter ?? null,
    qrels: state.label(),
    queue: (impact?.items ?? pool.items).slice(0, a.listed).map((p) => ({ ...p, queryText: state.queries.get(p.queryId)?.text ?? '', grade: state.grade(p.queryId, p.docId) })),
  };
}
