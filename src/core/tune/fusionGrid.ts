import type { Qrels } from '../formats/qrels';
import { Run } from '../formats/run';
import { RankedScores } from '../formats/runWriter';
import type { Method } from '../retrieval/fusion/fuse';
import type { Normalization } from '../retrieval/fusion/normalize';
import { checkFusion, FUSION_DEFAULTS, fuseRuns, type FusionSpec } from '../retrieval/fusion/run';
import { keptLength, measureDepth, perQueryRow, shallowDepth, type MeasureSpec } from './scores';

/**
 * A grid over fusion's normalization, method and weights (and RRF's k). Weights are a share: for two runs,
 * `share` s gives weights (1 - s, s) (every method ranks the same under any common scale of the weights);
 * for more runs the weights stay equal. Combinations fusion refuses (a geometric mean of z-scores) are left
 * out; RRF ignores the normalization, so it appears once per k and share.
 */
export interface FusionGrid {
  norm: Normalization[];
  method: Method[];
  /** The last run's share of the weight (two runs only); null: equal weights. */
  share: number[] | null;
  rrfK: number[];
}

export function fusionLabel(s: FusionSpec): string {
  const w = s.weights ? ` w=${s.weights.map((x) => Number(x.toFixed(6))).join(',')}` : '';
  return s.method === 'rrf' ? `rrf k=${s.rrfK}${w}` : `${s.norm} ${s.method}${w}`;
}

/** The grid's specs (`base` gives depth and top-k), the default (FUSION_DEFAULTS) first if the grid lacks it. */
export function fusionSettings(grid: FusionGrid, runs: number, base: Pick<FusionSpec, 'depth' | 'topK'>): { settings: FusionSpec[]; defaultIndex: number } {
  if (grid.share && runs !== 2) throw new Error(`weight shares apply to two runs (got ${runs}): leave the weights equal`);
  const weightsOf = (share: number | null) => (share === null ? null : [1 - share, share]);
  const settings: FusionSpec[] = [];
  const seen = new Set<string>();
  const add = (spec: FusionSpec) => {
    const label = fusionLabel(spec);
    if (!seen.has(label) && checkFusion(spec, runs) === null) {
      seen.add(label);
      settings.push(spec);
    }
  };
  for (const method of grid.method) {
    for (const share of grid.share ?? [null]) {
      const weights = weightsOf(share);
      if (method === 'rrf') for (const rrfK of grid.rrfK) add({ ...base, method, norm: FUSION_DEFAULTS.norm, weights, rrfK });
      else for (const norm of grid.norm) add({ ...base, method, norm, weights, rrfK: FUSION_DEFAULTS.rrfK });
    }
  }
  const dflt: FusionSpec = { ...FUSION_DEFAULTS, ...base };
  let defaultIndex = settings.findIndex((s) => fusionLabel(s) === fusionLabel(dflt));
  if (defaultIndex < 0) {
    settings.unshift(dflt);
    defaultIndex = 0;
  }
  return { settings, defaultIndex };
}


/**
 * Each spec's per-query values over the qrels' queries. For a measure of the top k only the fused lists' top
 * k and the ties at its last place are evaluated (as bm25Grid.ts does); a query whose ties run past them is
 * fused again in full.
 */
export async function fusionMatrix(
  runs: readonly Run[],
  settings: readonly FusionSpec[],
  qrels: Qrels,
  spec: MeasureSpec,
  onSetting?: (done: number) => Promise<void> | void,
): Promise<{ column: string; queries: string[]; rows: Float64Array[] }> {
  const rows: Float64Array[] = [];
  let column = '';
  let queries: string[] = [];
  const depth = measureDepth(spec.measure);
  for (let s = 0; s < settings.length; s++) {
    const shallowK = shallowDepth(depth, settings[s].topK);
    let written = asWritten(fuseRuns(runs, { ...settings[s], topK: shallowK }, 'tune'), depth, shallowK < settings[s].topK ? shallowK : Infinity);
    if (written === null) written = asWritten(fuseRuns(runs, settings[s], 'tune'), depth, Infinity)!;
    const row = perQueryRow(qrels, written, spec);
    rows.push(row.values);
    column = row.column;
    queries = row.queries;
    await onSetting?.(s + 1);
  }
  return { column, queries, rows };
}

/**
 * A fused run with its scores as its file would hold them (RankedScores' texts, which keep fusion's order for
 * trec_eval), each query cut to what a measure of the top `depth` reads (scores.ts keptLength); null when a
 * query's ties at that place reach the end of a list cut at `cut` (they may go on past it).
 */
function asWritten(run: Run, depth: number | null, cut: number): Run | null {
  const rankings: [string, string[], number[]][] = [];
  for (const qid of run.qids) {
    const r = run.ranking(qid)!;
    const texts = new RankedScores();
    const scores = Array.from(r.scores, (x) => readScore(texts.next(x)));
    const keep = depth === null ? scores.length : keptLength(scores, depth);
    if (keep === scores.length && scores.length >= cut) return null;
    rankings.push([qid, r.docs.slice(0, keep), scores.slice(0, keep)]);
  }
  return Run.fromRankings(run.tag, rankings);
}

const readScore = (text: string): number => (text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text));
