import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import normalPdf from '@stdlib/stats-base-dists-normal-pdf';
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import { holeRanks } from './interval';
import type { HoleQuery, HoleSet } from './pool';
import { listKey, listKeys, type HoleScorer } from './scorer';
import { CELLS, cellOf, RelevanceModel, type RateDraws } from './relevance';

/**
 * What the holes hide: an estimate, with a 95 % interval, of a run's mean (or of b - a for two runs) as it
 * would be with every hole of the pool judged, from a relevance model fitted to the holes judged so far
 * (relevance.ts). A hole's effect is the change of its query's value when it alone gets a grade (the others
 * as they are: unjudged counts as non-relevant, as trec_eval counts it); queries are independent, so the
 * mean moves by the sum of the effects of the holes that turn out relevant, over the number of queries.
 * Given the model's rates, that sum has mean sum(rate x effect) and variance sum(rate x effect^2) -
 * (sum(rate x effect))^2 per hole, and is close to normal (many small independent terms); the rates'
 * uncertainty is carried by the model's draws, so the estimate's distribution is a mixture of normals, one
 * per draw, and the interval its 2.5 % and 97.5 % quantiles. Two relevant holes of one query interact (an
 * ideal DCG, a recall base, a first relevant rank): that is left out of the unjudged holes (rates are small),
 * and is exact for every judged one, which the query's value is re-scored with; where it would matter (many
 * likely relevant holes in one query) each list's value is kept to the measure's range query by query.
 * Every hole is judged: the interval is the value itself.
 */

/** A query-averaged value under an assignment of grades to the holes: the measure of list r of query q. */
export interface ValueScorer {
  /** Grades a hole can take for this measure (binary measures: 0 and the first relevant grade). */
  readonly scale: readonly number[];
  /** Ranks from this one on cannot change the value except through the relevant count (Infinity: any rank can). */
  readonly cutoff: number;
  score(q: HoleQuery, r: number, grades: Int32Array): number;
}

/**
 * A HoleScorer as a ValueScorer: a measure with rank cutoffs looks no deeper than its largest (past it a hole
 * counts only through the relevant count; iprec_at_recall's recall levels and Rprec_mult's multipliers are no
 * ranks); `map` turns the value into another (MRR@10 from recip_rank).
 */
export function valueScorer(s: HoleScorer, cutoff = s.depth, map?: (x: number) => number): ValueScorer {
  return { scale: s.scale, cutoff, score: map ? (q, r, g) => map(s.score(q, r, g)) : (q, r, g) => s.score(q, r, g) };
}

/**
 * Every measure estimated is in [0, 1] per query, so a mean is in [0, 1] and b - a in [-1, 1]: the interval
 * is cut to that (it keeps its coverage): each draw's mean is inside (mixture() keeps each query's value to
 * its range), but the normals' tails around it are not.
 */
const BOUNDS = { run: [0, 1], pair: [-1, 1] } as const;

export interface HoleEstimate {
  /** The value with holes counted non-relevant (trec_eval's figure on these judgements). */
  now: number;
  /** The estimate with every hole judged: the mean of the model's distribution. */
  estimate: number;
  lo: number;
  hi: number;
  /** Holes left that can move the value, and holes judged since the pool was taken. */
  holes: number;
  judged: number;
}

/**
 * One query's unjudged holes by cell: per cell, the sums of its holes' effects on each list's value (per
 * positive grade) and of the products of their effects on the value estimated (per pair of grades).
 */
interface QueryCells {
  cells: Int32Array;
  /** [cell][list][grade] */
  w: Float64Array;
  /** [cell][grade][grade] */
  v: Float64Array;
}

interface Measure {
  name: string;
  scorer: ValueScorer;
  /** Per query, its value now. */
  bases: Float64Array;
  /** Per query and list, the list's value now ([query][list]). */
  listBases: Float64Array;
  /** Per query, its holes' effects summed by cell (what the mixture's draws bound query by query). */
  cells: QueryCells[];
  /** Per hole slot and positive grade, its effect now (0 for a judged hole or one that cannot move the value). */
  effects: Float64Array;
  /**
   * Per cell and positive grade, the sum of effects (cellSums(): summed afresh in slot order after a query's
   * part changed, so that it does not depend on the order of the judgements that led to it).
   */
  w?: Float64Array;
  /** Hole slots with an effect (estimate()'s count, kept until a query's part changes). */
  holes?: number;
  mixture?: { version: number; mu: Float64Array; sd: Float64Array };
}

export interface EstimatorOptions {
  relevanceLevel?: number;
  seed?: number;
  /** A memo shared with other estimators over the same qrels, and the memo's run of each list (SharedListScores). */
  shared?: { memo: SharedListScores; runs: readonly number[] };
}

/**
 * Values of runs' lists with no hole graded or one, shared by the estimators of every pair of a table (each
 * run is in several pairs: 5 runs all pairs scored each run's holes 4 times). Where a query has no judged
 * hole, a list's value with one hole graded depends only on the run, the query, the hole's rank in the run
 * and its grade: the pair's other run only adds holes that stay non-relevant. Per measure, run and query, an
 * array by listKey (NaN: not scored yet; arrays, not maps, which took 70 MB on 5 runs all pairs).
 */
export class SharedListScores {
  private readonly memos = new Map<string, Float64Array[][]>();

  memo(measure: string, run: number, qi: number, length: number): Float64Array {
    let byRun = this.memos.get(measure);
    if (!byRun) this.memos.set(measure, (byRun = []));
    const byQuery = (byRun[run] ??= []);
    return (byQuery[qi] ??= new Float64Array(length).fill(NaN));
  }
}

/**
 * mixture()'s sums for one query's cells when there is one positive grade (binary relevance, the usual case):
 * each cell adds, to each draw k, r w0 to e0 (and r w1 to e1 for a pair) and r v - r^2 v to own, r the draw's
 * rate of the cell (0: the cell adds nothing). Two cells a pass over the draws: each draw's sums take the same
 * operations in the same order as one cell a pass (the same bits), with half the loads and stores of the sums
 * (the mixtures of a judgement on SciFact: ~0.8x the time). A run's loop and a pair's are written apart: one
 * loop for both (a run's second weight 0) measured 0.87-0.93x, against 0.84x.
 */
function binaryCells(rates: Float64Array, K: number, L: number, cells: Int32Array, w: Float64Array, v: Float64Array, e0: Float64Array, e1: Float64Array, own: Float64Array): void {
  let j = 0;
  for (; j + 2 <= cells.length; j += 2) {
    const a = cells[j] * K;
    const b = cells[j + 1] * K;
    const va = v[j];
    const vb = v[j + 1];
    if (L === 1) {
      const wa = w[j];
      const wb = w[j + 1];
      for (let k = 0; k < K; k++) {
        const ra = rates[a + k];
        const rb = rates[b + k];
        let x0 = e0[k];
        let o = own[k];
        if (ra !== 0) {
          x0 += ra * wa;
          o = o + ra * va - ra * ra * va;
        }
        if (rb !== 0) {
          x0 += rb * wb;
          o = o + rb * vb - rb * rb * vb;
        }
        e0[k] = x0;
        own[k] = o;
      }
    } else {
      const wa0 = w[2 * j];
      const wa1 = w[2 * j + 1];
      const wb0 = w[2 * j + 2];
      const wb1 = w[2 * j + 3];
      for (let k = 0; k < K; k++) {
        const ra = rates[a + k];
        const rb = rates[b + k];
        let x0 = e0[k];
        let x1 = e1[k];
        let o = own[k];
        if (ra !== 0) {
          x0 += ra * wa0;
          x1 += ra * wa1;
          o = o + ra * va - ra * ra * va;
        }
        if (rb !== 0) {
          x0 += rb * wb0;
          x1 += rb * wb1;
          o = o + rb * vb - rb * rb * vb;
        }
        e0[k] = x0;
        e1[k] = x1;
        own[k] = o;
      }
    }
  }
  // An odd last cell alone.
  if (j < cells.length) {
    const a = cells[j] * K;
    const w0 = w[j * L];
    const w1 = L > 1 ? w[j * L + 1] : 0;
    const vj = v[j];
    for (let k = 0; k < K; k++) {
      const r = rates[a + k];
      if (r === 0) continue;
      e0[k] += r * w0;
      if (L > 1) e1[k] += r * w1;
      own[k] = own[k] + r * vj - r * r * vj;
    }
  }
}

/**
 * Mixture quantile: the x where the mixture's cdf is p. Newton's method from the normal with the mixture's
 * mean and variance, kept inside a bisection bracket; to 1e-9 of the mixture's spread.
 */
function mixtureQuantile(mu: Float64Array, sd: Float64Array, p: number): number {
  const K = mu.length;
  let lo = Infinity;
  let hi = -Infinity;
  let m1 = 0;
  let m2 = 0;
  for (let k = 0; k < K; k++) {
    lo = Math.min(lo, mu[k] - 9 * sd[k]);
    hi = Math.max(hi, mu[k] + 9 * sd[k]);
    m1 += mu[k] / K;
    m2 += (mu[k] * mu[k] + sd[k] * sd[k]) / K;
  }
  if (!(hi > lo)) return lo;
  const spread = Math.sqrt(Math.max(0, m2 - m1 * m1));
  const tolerance = (hi - lo) * 1e-9;
  let x = Math.min(hi, Math.max(lo, m1 + spread * normalQuantile(p, 0, 1)));
  for (let it = 0; it < 100 && hi - lo > tolerance; it++) {
    let cdf = 0;
    let pdf = 0;
    for (let k = 0; k < K; k++) {
      if (sd[k] > 0) {
        cdf += normalCdf(x, mu[k], sd[k]);
        pdf += normalPdf(x, mu[k], sd[k]);
      } else if (x >= mu[k]) cdf += 1;
    }
    cdf /= K;
    pdf /= K;
    if (cdf < p) lo = x;
    else hi = x;
    const step = pdf > 0 ? x - (cdf - p) / pdf : NaN;
    // A Newton step that leaves the bracket (or a flat stretch) bisects instead.
    const next = step > lo && step < hi ? step : (lo + hi) / 2;
    if (Math.abs(next - x) <= tolerance) return next;
    x = next;
  }
  return x;
}

/**
 * The estimates of one run (lists [r]: its value) or one pair (lists [a, b]: b - a) of a pool, for some
 * measures, kept in step with judgements (judge() re-scores only the judged hole's query).
 */
export class HoleEstimator {
  readonly model: RelevanceModel;
  private readonly measures = new Map<string, Measure>();
  /** Hole slots: query qi's holes are slots offsets[qi] + h; each slot's cell (the same for every measure). */
  readonly offsets: Int32Array;
  readonly slotCells: Int32Array;
  private readonly level: number;
  /** Dropped once every query's part is computed (see fillSteps()). */
  private shared: EstimatorOptions['shared'];
  /** ratesByCell() of the model's last draws. */
  private transposed: { of: RateDraws; rates: Float64Array } | undefined;
  /** Bumped by each judgement (what depends on the state can tell it changed). */
  version = 0;

  /** Computes every query's part at once (estimateSteps() does it a slice at a time). */
  constructor(
    readonly set: HoleSet,
    readonly lists: readonly number[],
    scorers: Readonly<Record<string, ValueScorer>>,
    options: EstimatorOptions & { steps?: boolean } = {},
  ) {
    this.level = options.relevanceLevel ?? 1;
    this.shared = options.shared;
    const positive = set.scale.filter((g) => g > 0);
    const shares = positive.map(() => 0);
    for (const q of set.queries) q.relLevels.forEach((n, g) => g > 0 && positive.includes(g) && (shares[positive.indexOf(g)] += n));
    this.model = new RelevanceModel(positive, shares, options.seed ?? 1);
    this.offsets = new Int32Array(set.queries.length + 1);
    set.queries.forEach((q, qi) => (this.offsets[qi + 1] = this.offsets[qi] + q.holes.length));
    this.slotCells = new Int32Array(this.offsets[set.queries.length]);
    set.queries.forEach((q, qi) => this.slotCells.set(this.cellsOf(q), this.offsets[qi]));
    this.model.use(this.slotCells);
    set.queries.forEach((q, qi) => q.grades.forEach((g, h) => g >= 0 && this.model.observe(this.slotCells[this.offsets[qi] + h], g)));
    const G = positive.length;
    for (const [name, scorer] of Object.entries(scorers)) {
      this.measures.set(name, { name, scorer, bases: new Float64Array(set.queries.length), listBases: new Float64Array(set.queries.length * lists.length), cells: [], effects: new Float64Array(this.slotCells.length * G) });
    }
    this.pending = 0;
    if (!options.steps) {
      const fill = this.fillSteps();
      while (!fill.next().done);
    }
  }

  /** Queries whose parts are computed (fillSteps() goes on from here). */
  private pending: number;

  /** Whether every query's part is computed. */
  get ready(): boolean {
    return this.pending >= this.set.queries.length;
  }

  /** Computes the queries' parts not computed yet, a query a step (a split of 10,000 queries takes seconds). */
  *fillSteps(): Generator<void, void, undefined> {
    while (this.pending < this.set.queries.length) {
      const qi = this.pending++;
      for (const m of this.measures.values()) this.part(m, qi);
      yield;
    }
    // The memo serves the build: a judgement re-scores its query alone, and holding the memo would keep every
    // list's values of every query as long as the estimator.
    this.shared = undefined;
  }

  /** Each hole's cell: its rank in each list and its query's relevant count. */
  private cellsOf(q: HoleQuery): Int32Array {
    const ranks = this.lists.map((r) => holeRanks(q, r));
    let relevant = 0;
    q.relLevels.forEach((n, g) => g >= 1 && (relevant += n));
    return Int32Array.from(q.holes, (_, h) => cellOf(ranks[0][h], ranks.length > 1 ? ranks[1][h] : undefined, relevant));
  }

  /** Query qi's value now and the effects of its unjudged holes, into m (and by cell, each list's). */
  private part(m: Measure, qi: number): void {
    const s = m.scorer;
    const q = this.set.queries[qi];
    const grades = q.grades;
    const L = this.lists.length;
    const size = s.scale[s.scale.length - 1] + 1;
    // Each list's values by listKey: the shared memo where no hole of the query is judged, else this query's own
    // (a hole below the cutoff in a list gives that list the same value as any other: scored once per grade).
    const shared = this.shared && grades.every((g) => g < 0) ? this.shared : undefined;
    const memos = this.lists.map((r, l) => {
      const length = listKeys(Math.min(q.lists[r].rels.length, s.cutoff), size);
      return shared ? shared.memo.memo(m.name, shared.runs[l], qi, length) : new Float64Array(length).fill(NaN);
    });
    const listScore = (l: number, key: number): number => {
      let v = memos[l][key];
      if (Number.isNaN(v)) {
        v = s.score(q, this.lists[l], grades);
        memos[l][key] = v;
      }
      return v;
    };
    const now = Float64Array.from(this.lists, (_, l) => listScore(l, listKey(-2, 0, size)));
    m.listBases.set(now, qi * L);
    const base = L === 1 ? now[0] : now[1] - now[0];
    m.bases[qi] = base;
    const positive = this.model.positive;
    const G = positive.length;
    // The measure's own grades for each positive grade of the model (binary: the relevant grade or 0).
    const asScored = positive.map((g) => (s.scale.includes(g) ? g : g >= this.level ? s.scale[s.scale.length - 1] : 0));
    const ranks = this.lists.map((r) => holeRanks(q, r));
    const at = this.offsets[qi] * G;
    m.effects.fill(0, at, at + q.holes.length * G);
    const byCell = new Map<number, number>();
    const cells: number[] = [];
    const w: number[] = [];
    const v: number[] = [];
    const x = new Float64Array(G);
    const after = new Float64Array(L);
    const each = new Float64Array(L);
    for (let h = 0; h < q.holes.length; h++) {
      if (grades[h] >= 0) continue;
      const cell = this.slotCells[this.offsets[qi] + h];
      let j = byCell.get(cell);
      x.fill(0);
      for (let g = 0; g < G; g++) {
        const sg = asScored[g];
        if (sg <= 0) continue;
        // Below the cutoff in a list, a hole only counts there through the relevant count: one value per grade.
        grades[h] = sg;
        let moved = false;
        for (let l = 0; l < L; l++) {
          const rk = ranks[l][h];
          after[l] = listScore(l, listKey(rk >= 0 && rk < s.cutoff ? rk : -1, sg, size));
          each[l] = after[l] - now[l];
          if (each[l] !== 0) moved = true;
        }
        grades[h] = -1;
        x[g] = (L === 1 ? after[0] : after[1] - after[0]) - base;
        m.effects[at + h * G + g] = x[g];
        if (x[g] === 0 && !moved) continue;
        if (j === undefined) {
          j = cells.length;
          byCell.set(cell, j);
          cells.push(cell);
          for (let i = 0; i < L * G + G * G; i++) (i < L * G ? w : v).push(0);
        }
        for (let l = 0; l < L; l++) w[(j * L + l) * G + g] += each[l];
      }
      if (j !== undefined) for (let g = 0; g < G; g++) for (let g2 = 0; g2 < G; g2++) v[(j * G + g) * G + g2] += x[g] * x[g2];
    }
    m.cells[qi] = { cells: Int32Array.from(cells), w: Float64Array.from(w), v: Float64Array.from(v) };
    m.w = undefined;
    m.holes = undefined;
  }

  /**
   * The sum over queries of m's value now, in query order. Kept as a running sum (a judged query's value taken
   * out, its new one added) it differed in the last digit between a session that judged one by one and one
   * opened on the same judgements.
   */
  private base(m: Measure): number {
    let base = 0;
    for (let qi = 0; qi < this.pending; qi++) base += m.bases[qi];
    return base;
  }

  /** m's effects summed by cell and positive grade, in slot order (kept until a query's part changes). */
  private cellSums(m: Measure): Float64Array {
    if (m.w) return m.w;
    const G = this.model.positive.length;
    const w = new Float64Array(CELLS * G);
    for (let i = 0; i < this.slotCells.length; i++) {
      const c = this.slotCells[i];
      for (let g = 0; g < G; g++) {
        const e = m.effects[i * G + g];
        if (e !== 0) w[c * G + g] += e;
      }
    }
    return (m.w = w);
  }

  /** Records a grade for hole h of query qi (-1: unjudged again) and re-scores that query for every measure. */
  judge(qi: number, h: number, grade: number): void {
    const q = this.set.queries[qi];
    const before = q.grades[h];
    if (before === grade) return;
    this.version++;
    const cell = this.slotCells[this.offsets[qi] + h];
    const done = qi < this.pending;
    if (before >= 0) this.model.observe(cell, before, -1);
    q.grades[h] = grade;
    if (grade >= 0) this.model.observe(cell, grade, 1);
    // A query fillSteps() has not reached yet is computed when it gets there.
    if (!done) return;
    for (const m of this.measures.values()) this.part(m, qi);
  }

  has(measure: string): boolean {
    return this.measures.has(measure);
  }

  /** The measures estimated. */
  get names(): string[] {
    return [...this.measures.keys()];
  }

  private measure(name: string): Measure {
    const m = this.measures.get(name);
    if (!m) throw new Error(`no estimate of ${name}: estimates are of ${[...this.measures.keys()].join(', ')}`);
    return m;
  }

  /**
   * Per draw of the model, the mean and sd of the value with every hole judged (kept until the next
   * judgement). The effects add up query by query, and each list's value is then kept to the measure's range
   * [0, 1]: summed alone, the effects of many holes overshoot it (a relevant count that grows lowers nDCG by
   * a ratio, not by a sum: 90 holes of a query each taking 0.05 off is not -4.5), and draws with high rates
   * would take the mean past what any grading gives (b - a of nDCG@10 estimated -1 after one judgement on
   * SciFact, measured +0.085). A query's variance is kept under what a value of that mean in [0, 1] can
   * have (Bhatia and Davis: mu (1 - mu); for b - a the sum of the two standard deviations, squared).
   */
  mixture(name: string): { mu: Float64Array; sd: Float64Array } {
    const m = this.measure(name);
    if (m.mixture?.version === this.version) return m.mixture;
    const draws = this.model.draws();
    const K = draws.draws;
    const G = draws.grades;
    const L = this.lists.length;
    const n = this.set.queries.length || 1;
    const nq = this.set.queries.length;
    const rates = this.ratesByCell(draws);
    const { bases, listBases } = m;
    // Query by query, every draw at once (the draws' rates of a cell lie side by side); each draw's sums take
    // the queries, cells and grades in the same order as a loop over draws would.
    const mean = new Float64Array(K);
    const variance = new Float64Array(K);
    const e0 = new Float64Array(K);
    const e1 = new Float64Array(K);
    const own = new Float64Array(K);
    for (let qi = 0; qi < nq; qi++) {
      const qc = m.cells[qi];
      if (!qc || qc.cells.length === 0) {
        const base = bases[qi];
        for (let k = 0; k < K; k++) mean[k] += base;
        continue;
      }
      e0.fill(listBases[qi * L]);
      e1.fill(L > 1 ? listBases[qi * L + 1] : 0);
      own.fill(0);
      const { cells, w, v } = qc;
      if (G === 1) binaryCells(rates, K, L, cells, w, v, e0, e1, own);
      else {
        for (let j = 0; j < cells.length; j++) {
          const cellAt = cells[j] * G;
          for (let g = 0; g < G; g++) {
            const at = (cellAt + g) * K;
            const w0 = w[j * L * G + g];
            const w1 = L > 1 ? w[(j * L + 1) * G + g] : 0;
            const jg = (j * G + g) * G;
            const vgg = v[jg + g];
            for (let k = 0; k < K; k++) {
              const r = rates[at + k];
              if (r === 0) continue;
              e0[k] += r * w0;
              if (L > 1) e1[k] += r * w1;
              let o = own[k] + r * vgg;
              for (let g2 = 0; g2 < G; g2++) o -= r * rates[(cellAt + g2) * K + k] * v[jg + g2];
              own[k] = o;
            }
          }
        }
      }
      for (let k = 0; k < K; k++) {
        const x0 = e0[k] < 0 ? 0 : e0[k] > 1 ? 1 : e0[k];
        const x1 = e1[k] < 0 ? 0 : e1[k] > 1 ? 1 : e1[k];
        const bound = Math.sqrt(x0 * (1 - x0)) + (L > 1 ? Math.sqrt(x1 * (1 - x1)) : 0);
        mean[k] += L === 1 ? x0 : x1 - x0;
        const o = own[k];
        variance[k] += Math.min(o > 0 ? o : 0, bound * bound);
      }
    }
    const mu = new Float64Array(K);
    const sd = new Float64Array(K);
    for (let k = 0; k < K; k++) {
      mu[k] = mean[k] / n;
      sd[k] = Math.sqrt(variance[k]) / n;
    }
    m.mixture = { version: this.version, mu, sd };
    return m.mixture;
  }

  /** The model's draws' rates by cell and grade ([cell][grade][draw]), for the draws they are of (shared by the measures). */
  private ratesByCell(draws: RateDraws): Float64Array {
    if (this.transposed?.of === draws) return this.transposed.rates;
    const { draws: K, grades: G, rates } = draws;
    const size = CELLS * G;
    const out = new Float64Array(size * K);
    for (let k = 0; k < K; k++) for (let i = 0; i < size; i++) out[i * K + k] = rates[k * size + i];
    this.transposed = { of: draws, rates: out };
    return out;
  }

  /** The chance, under the model, that the value with every hole judged is at most x. */
  cdf(name: string, x: number): number {
    const { mu, sd } = this.mixture(name);
    let s = 0;
    for (let k = 0; k < mu.length; k++) s += sd[k] > 0 ? normalCdf(x, mu[k], sd[k]) : x >= mu[k] ? 1 : 0;
    return s / mu.length;
  }

  /** The estimate of `name` and its 95 % interval (level: another coverage). */
  estimate(name: string, level = 0.95): HoleEstimate {
    const m = this.measure(name);
    const n = this.set.queries.length || 1;
    const G = this.model.positive.length;
    const { mu, sd } = this.mixture(name);
    let estimate = 0;
    for (const x of mu) estimate += x / mu.length;
    if (m.holes === undefined) {
      let holes = 0;
      for (let i = 0; i < this.slotCells.length; i++) {
        for (let g = 0; g < G; g++) {
          if (m.effects[i * G + g] !== 0) {
            holes++;
            break;
          }
        }
      }
      m.holes = holes;
    }
    const holes = m.holes;
    const [min, max] = this.lists.length === 1 ? BOUNDS.run : BOUNDS.pair;
    const clip = (x: number) => Math.min(max, Math.max(min, x));
    return {
      now: this.base(m) / n,
      estimate: clip(estimate),
      lo: clip(mixtureQuantile(mu, sd, (1 - level) / 2)),
      hi: clip(mixtureQuantile(mu, sd, 1 - (1 - level) / 2)),
      holes,
      judged: this.model.observations,
    };
  }

  /**
   * Each unjudged hole's own variance on the mean's scale under the model's mean rates, per slot (0 for a
   * judged hole, or one that cannot move the value now): p(1 - p) x the mean, over the positive grades'
   * shares, of its squared effects (exact for one positive grade).
   */
  holeVariances(name: string): Float64Array {
    const m = this.measure(name);
    const { mean } = this.model.draws();
    const G = this.model.positive.length;
    const n = this.set.queries.length || 1;
    const out = new Float64Array(this.slotCells.length);
    const p = new Float64Array(CELLS);
    for (let c = 0; c < CELLS; c++) for (let g = 0; g < G; g++) p[c] += mean[c * G + g];
    const nn = n * n;
    this.set.queries.forEach((q, qi) => {
      const at = this.offsets[qi];
      for (let h = 0; h < q.holes.length; h++) {
        if (q.grades[h] >= 0) continue;
        const i = at + h;
        const c = this.slotCells[i];
        if (!(p[c] > 0)) continue;
        let a = 0;
        for (let g = 0; g < G; g++) a += (mean[c * G + g] / p[c]) * m.effects[i * G + g] ** 2;
        out[i] = (p[c] * (1 - p[c]) * a) / nn;
      }
    });
    return out;
  }

  /**
   * What judging each unjudged hole is expected to take off the variance of `name`, per slot: its own
   * variance (holeVariances), plus what one more judgement of its cell teaches the model
   * (RelevanceModel.valueOfJudging), both on the mean's scale.
   */
  holeWeights(name: string): Float64Array {
    const m = this.measure(name);
    const { mean } = this.model.draws();
    const G = this.model.positive.length;
    const n = this.set.queries.length || 1;
    const w = this.cellSums(m);
    const slope = new Float64Array(CELLS);
    for (let c = 0; c < CELLS; c++) {
      let p = 0;
      for (let g = 0; g < G; g++) p += mean[c * G + g];
      for (let g = 0; g < G; g++) slope[c] += ((p > 0 ? mean[c * G + g] / p : 1 / G) * w[c * G + g]) / n;
    }
    const learn = this.model.valueOfJudging(slope);
    const out = this.holeVariances(name);
    this.set.queries.forEach((q, qi) => {
      const at = this.offsets[qi];
      for (let h = 0; h < q.holes.length; h++) if (q.grades[h] < 0) out[at + h] += learn[this.slotCells[at + h]];
    });
    return out;
  }

  /** The model's mean prediction of hole h of query qi's effect on the sum over queries (0 when it has none). */
  predictedEffect(name: string, qi: number, h: number): number {
    const m = this.measure(name);
    const { mean } = this.model.draws();
    const G = this.model.positive.length;
    const i = this.offsets[qi] + h;
    const c = this.slotCells[i];
    let e = 0;
    for (let g = 0; g < G; g++) e += mean[c * G + g] * m.effects[i * G + g];
    return e;
  }

  /** The effect on the sum over queries of giving hole h of query qi `grade` now (0 for a grade that changes nothing). */
  effectOf(name: string, qi: number, h: number, grade: number): number {
    const g = this.model.positive.indexOf(grade);
    const G = this.model.positive.length;
    return g < 0 ? 0 : this.measure(name).effects[(this.offsets[qi] + h) * G + g];
  }

  /** The model's mean prediction of the unjudged holes' total effect on the sum over queries, and the sum now. */
  predicted(name: string): { base: number; rest: number } {
    const m = this.measure(name);
    const { mean } = this.model.draws();
    const G = this.model.positive.length;
    let rest = 0;
    const w = this.cellSums(m);
    for (let i = 0; i < CELLS * G; i++) rest += mean[i] * w[i];
    return { base: this.base(m), rest };
  }
}
