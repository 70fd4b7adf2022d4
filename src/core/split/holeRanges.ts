import { countMovers, deltaColumns, unranked, deltaRows, HoleScorer, prepareHoles, prepareHolesSteps, queryInterval, queryDelta, setDeltaRow, significanceOf, summariseColumns, type Comparison, type DeltaColumns, type HoleQuery, type HoleSet, type QueryDelta } from '../eval/holes';
import { freeHoles } from '../eval/holes/interval';
import { PAIRED_TESTS } from '../eval/stats';
import { Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import type { HoleVerdict, ScoreRange } from '../../protocol/webview';

/**
 * Trust under holes (issue 15): the range of each score and of each comparison over every grading of the
 * holes left in the top-k pool of some runs, on the qrels with the user's judgements (underHoles.ts says
 * which runs pool: one run's own, or a compared pair's). The core (src/core/eval/holes) does the
 * mathematics; this module keeps its per-query results so that a judgement re-ranges only the query it
 * changed, and turns them into the protocol's model pieces.
 */

/** Results-table columns that get a range, with the trec_eval measure that scores them. */
export const RANGED: Readonly<Record<string, string>> = {
  ndcg_cut_10: 'ndcg_cut.10',
  recall_100: 'recall.100',
  map: 'map',
  recip_rank_10: 'recip_rank',
  P_10: 'P.10',
};
/** How deep each RANGED column looks: a range over the top-k pool covers only the columns no deeper than k. */
export const RANGED_DEPTH: Readonly<Record<string, number>> = {
  ndcg_cut_10: 10,
  recall_100: 100,
  map: Infinity,
  recip_rank_10: 10,
  P_10: 10,
};

/**
 * MRR@10 is recip_rank where the first relevant document is in the top 10, else 0: a non-decreasing map of
 * recip_rank, so it carries the ends of a recip_rank range to the ends of the MRR@10 range.
 */
export const MRR10 = 'recip_rank_10';
export const cut10 = (rr: number): number => (rr >= 0.1 ? rr : 0);

/** Pool depth of the ranges shown with the scores: the depth of Hole@10. */
export const RANGE_POOL_DEPTH = 10;
/** Significance under holes is judged with the paired t-test at this level (the results table's). */
const SIGNIFICANCE_TEST = PAIRED_TESTS.t;

export interface TrustInput {
  /** The qrels with the user's judgements merged in. */
  qrels: Qrels;
  runs: ReadonlyMap<string, Run>;
  /** The dataset's grade scale (the grades a hole can take). */
  scale: readonly number[];
  relevanceLevel: number;
  poolDepth?: number;
}

interface PerQuery {
  /** trec_eval -J (unjudged documents dropped from the ranking); NaN for MRR@10 (-J applies after -M 10). */
  judgedOnly: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  exact: Uint8Array;
  holes: Int32Array;
}

/**
 * Per-query ranges of the runs' scores (every RANGED column) and of the differences asked for so far. Built
 * once per run set; `update` re-ranges only the queries whose judgements changed.
 */
export class HoleRanges {
  readonly keys: string[];
  private set: HoleSet;
  private qrels: Qrels;
  private readonly runs: Run[];
  private readonly poolDepth: number;
  private readonly queryIndex = new Map<string, number>();
  private readonly scorers = new Map<string, HoleScorer>();
  /** `${run}\t${column}` -> per-query ranges. */
  private readonly ranges = new Map<string, PerQuery>();
  /** `${a}\t${b}\t${column}` -> per-query ranges of a - b. */
  private readonly deltas = new Map<string, QueryDelta[]>();
  /** Bumped when the whole set is rebuilt: a fill() under way starts over (a judgement only re-ranges its query). */
  private generation = 0;
  /** fill()s under way: what they computed so far, which a judgement re-ranges like the finished ones. */
  private readonly partialRanges = new Map<string, { per: PerQuery; done: number }>();
  private readonly partialDeltas = new Map<string, QueryDelta[]>();
  /**
   * verdict()'s answers by `${a}\t${b}\t${column}` (each with the queries and alpha asked): a summary over every
   * query and three t-tests, asked by every view on every judgement, kept until a delta of that key changes.
   */
  private readonly verdicts = new Map<string, { queries: readonly string[] | undefined; alpha: number; value: HoleVerdict }[]>();
  /** The deltas' value, lo and hi as columns, by the deltas' key: what the verdicts' t-tests read, kept in step. */
  private readonly deltaColumns = new Map<string, DeltaColumns>();
  /** positions() of every query (the usual question), kept while the set is the same. */
  private allPositions: number[] | undefined;

  /** `set`: the pool prepareHoles() gives for the input, when the caller built it already (build()). */
  constructor(
    input: TrustInput,
    set?: HoleSet,
  ) {
    this.keys = [...input.runs.keys()];
    this.runs = [...input.runs.values()];
    this.poolDepth = input.poolDepth ?? RANGE_POOL_DEPTH;
    this.qrels = input.qrels;
    this.set = set ?? prepareHoles(input.qrels, this.runs, { poolDepth: this.poolDepth });
    this.set.queries.forEach((q, i) => this.queryIndex.set(q.qid, i));
    for (const [column, spec] of Object.entries(RANGED)) this.scorers.set(column, new HoleScorer(spec, input.scale, input.relevanceLevel));
  }

  /** The constructor's work a slice at a time (the pool of a large split takes a while to build). */
  static *build(input: TrustInput): Generator<void, HoleRanges, undefined> {
    const set = yield* prepareHolesSteps(input.qrels, [...input.runs.values()], { poolDepth: input.poolDepth ?? RANGE_POOL_DEPTH });
    return new HoleRanges(input, set);
  }

  /**
   * Takes new effective qrels: the queries whose judgements differ are pooled again and re-ranged, the others
   * kept. Returns the number of queries re-ranged (the whole set is rebuilt when the query set changes).
   */
  update(qrels: Qrels, rebuild = false): number {
    if (qrels === this.qrels && !rebuild) return 0;
    const before = this.qrels;
    this.qrels = qrels;
    const ids = qrels.queryIds();
    if (rebuild || ids.length !== this.set.queries.length || ids.some((q, i) => this.set.queries[i].qid !== q)) {
      this.set = prepareHoles(qrels, this.runs, { poolDepth: this.poolDepth });
      this.queryIndex.clear();
      this.set.queries.forEach((q, i) => this.queryIndex.set(q.qid, i));
      this.ranges.clear();
      this.deltas.clear();
      this.verdicts.clear();
      this.deltaColumns.clear();
      this.allPositions = undefined;
      this.generation++;
      return ids.length;
    }
    let changed = 0;
    for (const [qi, qid] of ids.entries()) {
      if (sameJudgements(before, qrels, qid)) continue;
      this.requery(qi, qid);
      changed++;
    }
    return changed;
  }

  /**
   * Re-ranges the given queries from `qrels` without comparing (for a caller that knows which query a
   * judgement touched, or that changes its qrels in place). A query new to the qrels rebuilds the whole set.
   */
  updateQueries(qrels: Qrels, qids: Iterable<string>): void {
    this.qrels = qrels;
    for (const qid of qids) {
      const qi = this.queryIndex.get(qid);
      if (qi === undefined) {
        this.update(qrels, true);
        return;
      }
      this.requery(qi, qid);
    }
  }

  /** Pools query qi again from the current qrels and re-ranges it everywhere it is kept. */
  private requery(qi: number, qid: string): void {
    const j = this.qrels.judgements(qid)!;
    const one = Qrels.fromJudgements(j.docs.map((docid, i) => ({ qid, docid, grade: j.grades[i] })));
    this.set.queries[qi] = prepareHoles(one, this.runs, { poolDepth: this.poolDepth }).queries[0];
    for (const [key, per] of this.ranges) {
      const [run, column] = key.split('\t');
      this.rangeQuery(per, qi, this.keys.indexOf(run), column);
    }
    for (const [key, ds] of [...this.deltas, ...this.partialDeltas]) {
      if (qi >= ds.length) continue;
      const [a, b, column] = key.split('\t');
      const d = this.deltaQuery(this.set.queries[qi], this.keys.indexOf(a), this.keys.indexOf(b), column);
      if (!sameDelta(ds[qi], d)) this.verdicts.delete(key);
      ds[qi] = d;
      const columns = this.deltaColumns.get(key);
      if (columns) setDeltaRow(columns, qi, d);
    }
    for (const [key, { per, done }] of this.partialRanges) {
      if (qi >= done) continue;
      const [run, column] = key.split('\t');
      this.rangeQuery(per, qi, this.keys.indexOf(run), column);
    }
  }

  private scorer(column: string): HoleScorer {
    const s = this.scorers.get(column);
    if (!s) throw new Error(`no range for ${column}: ranges are for ${Object.keys(RANGED).join(', ')}`);
    return s;
  }

  private run(key: string): number {
    const r = this.keys.indexOf(key);
    if (r < 0) throw new Error(`no run ${key} in these ranges`);
    return r;
  }

  private rangeQuery(per: PerQuery, qi: number, r: number, column: string): void {
    const i = queryInterval(this.set.queries[qi], r, this.scorer(column));
    const f = column === MRR10 ? cut10 : (x: number) => x;
    per.judgedOnly[qi] = column === MRR10 ? NaN : i.judgedOnly;
    per.lo[qi] = f(i.lo);
    per.hi[qi] = f(i.hi);
    per.exact[qi] = i.exact ? 1 : 0;
    per.holes[qi] = i.holes;
  }

  /** Whether perQuery(key, column) is computed (fill() computes it a slice at a time). */
  has(key: string, column: string): boolean {
    return this.ranges.has(`${key}\t${column}`);
  }

  /** Whether queryDeltas(a, b, column) is computed (fillDeltas() computes it a slice at a time). */
  hasDeltas(a: string, b: string, column: string): boolean {
    return this.deltas.has(`${a}\t${b}\t${column}`);
  }

  /**
   * Computes perQuery(key, column), `chunk` queries a slice, yielding between slices (a 10,000-query split
   * takes seconds: the caller's thread stays free for judgements). A judgement meanwhile re-ranges its query in
   * what is computed so far, as in the finished ranges; a rebuilt set makes it start over.
   */
  *fill(key: string, column: string, chunk = 1): Generator<void, void, undefined> {
    const k = `${key}\t${column}`;
    for (;;) {
      if (this.ranges.has(k)) return;
      const generation = this.generation;
      const n = this.set.queries.length;
      const part = {
        per: { judgedOnly: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n), exact: new Uint8Array(n), holes: new Int32Array(n) },
        done: 0,
      };
      this.partialRanges.set(k, part);
      const r = this.run(key);
      let stale = false;
      try {
        while (part.done < n && !stale) {
          this.rangeQuery(part.per, part.done, r, column);
          part.done++;
          if (part.done % chunk === 0) {
            yield;
            stale = generation !== this.generation;
          }
        }
      } finally {
        this.partialRanges.delete(k);
      }
      if (!stale) this.ranges.set(k, part.per);
    }
  }

  /** As fill(), for queryDeltas(a, b, column). */
  *fillDeltas(a: string, b: string, column: string, chunk = 1): Generator<void, void, undefined> {
    const k = `${a}\t${b}\t${column}`;
    for (;;) {
      if (this.deltas.has(k)) return;
      const generation = this.generation;
      const [ra, rb] = [this.run(a), this.run(b)];
      const ds: QueryDelta[] = [];
      this.partialDeltas.set(k, ds);
      let stale = false;
      try {
        for (const q of this.set.queries) {
          ds.push(this.deltaQuery(q, ra, rb, column));
          if (ds.length % chunk === 0) {
            yield;
            if ((stale = generation !== this.generation)) break;
          }
        }
      } finally {
        this.partialDeltas.delete(k);
      }
      if (!stale) {
        this.deltas.set(k, ds);
        this.verdicts.delete(k);
        this.deltaColumns.delete(k);
      }
    }
  }

  /** Per query of the set (qrels order), the range of run `key`'s `column`. */
  perQuery(key: string, column: string): PerQuery {
    const k = `${key}\t${column}`;
    let per = this.ranges.get(k);
    if (!per) {
      const n = this.set.queries.length;
      per = { judgedOnly: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n), exact: new Uint8Array(n), holes: new Int32Array(n) };
      const r = this.run(key);
      for (let qi = 0; qi < n; qi++) this.rangeQuery(per, qi, r, column);
      this.ranges.set(k, per);
    }
    return per;
  }

  /** The range of the mean of `column` for run `key`, over `queries` (default: every query of the qrels, as -c). */
  range(key: string, column: string, queries?: readonly string[]): ScoreRange {
    const per = this.perQuery(key, column);
    const at = this.positions(queries);
    const n = at.length || 1;
    let judgedOnly = 0;
    let lo = 0;
    let hi = 0;
    let holes = 0;
    let exact = true;
    for (const qi of at) {
      judgedOnly += per.judgedOnly[qi] / n;
      lo += per.lo[qi] / n;
      hi += per.hi[qi] / n;
      holes += per.holes[qi];
      exact &&= per.exact[qi] === 1;
    }
    return Number.isNaN(judgedOnly) ? { lo, hi, exact, holes } : { lo, hi, exact, holes, judgedOnly };
  }

  private positions(queries?: readonly string[]): number[] {
    if (!queries) return (this.allPositions ??= this.set.queries.map((_, i) => i));
    const out: number[] = [];
    for (const q of queries) {
      const i = this.queryIndex.get(q);
      if (i !== undefined) out.push(i);
    }
    return out;
  }

  private deltaQuery(q: HoleQuery, a: number, b: number, column: string): QueryDelta {
    const s = this.scorer(column);
    const d = column === MRR10 ? cutDelta(q, a, b, s) : queryDelta(q, a, b, s);
    // One object shape for every query (the core builds them by spreading): the per-judgement summaries over
    // 10,000 of them run several times faster on a monomorphic shape.
    return { qid: d.qid, value: d.value, lo: d.lo, hi: d.hi, exact: d.exact, holes: d.holes, movers: d.movers };
  }

  /** Per query of the set, the range of a - b on `column`. */
  queryDeltas(a: string, b: string, column: string): QueryDelta[] {
    const k = `${a}\t${b}\t${column}`;
    let ds = this.deltas.get(k);
    if (!ds) {
      const ra = this.run(a);
      const rb = this.run(b);
      ds = this.set.queries.map((q) => this.deltaQuery(q, ra, rb, column));
      this.deltas.set(k, ds);
      this.verdicts.delete(k);
      this.deltaColumns.delete(k);
    }
    return ds;
  }

  /** The range of a - b on `column` for each of `queries` (undefined for a query not in the set). */
  deltasOf(a: string, b: string, column: string, queries: readonly string[]): (QueryDelta | undefined)[] {
    const ds = this.queryDeltas(a, b, column);
    return queries.map((q) => {
      const qi = this.queryIndex.get(q);
      return qi === undefined ? undefined : ds[qi];
    });
  }

  /** a against b on `column` over `queries` (default all): the range of the mean of a - b and the verdict. */
  verdict(a: string, b: string, column: string, queries?: readonly string[], alpha = 0.05): HoleVerdict {
    const ds = this.queryDeltas(a, b, column);
    const k = `${a}\t${b}\t${column}`;
    const kept = this.verdicts.get(k) ?? [];
    const hit = kept.find((v) => v.alpha === alpha && sameQueries(v.queries, queries));
    if (hit) return hit.value;
    let columns = this.deltaColumns.get(k);
    if (!columns) this.deltaColumns.set(k, (columns = deltaColumns(ds)));
    let asked = ds;
    if (queries !== undefined) {
      const at = this.positions(queries);
      asked = at.map((qi) => ds[qi]);
      columns = deltaRows(columns, at);
    }
    const value = toVerdict(summariseColumns(this.set, this.run(a), this.run(b), column, asked, columns), alpha, columns);
    // A few question shapes per key (the results table's, the diff's): the oldest goes first.
    this.verdicts.set(k, [...kept.slice(-3), { queries: queries && [...queries], alpha, value }]);
    return value;
  }
}

/**
 * The protocol's verdict from a core comparison, with significance (paired t-test) at the two extremes;
 * `columns`: c.queries' value, lo and hi as columns, when the caller keeps them.
 */
export function toVerdict(c: Comparison, alpha = 0.05, columns: DeltaColumns = deltaColumns(c.queries)): HoleVerdict {
  const sig = significanceOf(c, columns, SIGNIFICANCE_TEST, alpha);
  let holes = 0;
  for (let i = 0; i < columns.holes.length; i++) holes += columns.holes[i];
  return {
    delta: c.mean,
    lo: c.lo,
    hi: c.hi,
    exact: c.exact,
    holes,
    verdict: c.verdict,
    direction: c.direction,
    openQueries: c.openQueries,
    openHoles: c.openHoles,
    significant: sig.significant,
    canLose: sig.canLose,
    canGain: sig.canGain,
  };
}

/**
 * The range of MRR@10(a) - MRR@10(b) on one query. Each side depends only on its first relevant document, so
 * an extreme grades at most one hole relevant (any further relevant hole can only raise the side to be
 * lowered), as in the core's recip_rank case; cut10 is applied to each side.
 */
function cutDelta(q: HoleQuery, a: number, b: number, s: HoleScorer): QueryDelta {
  const grades = Int32Array.from(q.grades);
  const of = (g: Int32Array): number => cut10(s.score(q, a, g)) - cut10(s.score(q, b, g));
  const at = (): number => of(grades);
  const value = at();
  const free = freeHoles(q);
  let lo = value;
  let hi = value;
  const rel = s.scale[s.scale.length - 1];
  for (const h of free) {
    grades[h] = rel;
    const v = at();
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    grades[h] = -1;
  }
  return { qid: q.qid, value, lo, hi, exact: true, holes: free.length, movers: hi - lo <= 1e-12 ? 0 : countMovers(q, free, s.scale, of, unranked(q, a, b, 10)) };
}

function sameDelta(x: QueryDelta | undefined, y: QueryDelta): boolean {
  return x !== undefined && x.value === y.value && x.lo === y.lo && x.hi === y.hi && x.exact === y.exact && x.holes === y.holes && x.movers === y.movers;
}

/** The same queries in the same order (the order of the sums: a verdict is kept only for the same question). */
function sameQueries(x: readonly string[] | undefined, y: readonly string[] | undefined): boolean {
  if (x === undefined || y === undefined) return x === y;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function sameJudgements(x: Qrels, y: Qrels, qid: string): boolean {
  const a = x.judgements(qid);
  const b = y.judgements(qid);
  if (a === b) return true; // withQuery shares the untouched queries' arrays
  if (!a || !b) return false;
  if (a.docs.length !== b.docs.length) return false;
  for (let i = 0; i < a.docs.length; i++) if (a.docs[i] !== b.docs[i] || a.grades[i] !== b.grades[i]) return false;
  return true;
}
