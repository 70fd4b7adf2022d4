import { MeasureSpecError, resolveMeasures, type ResolvedMeasure } from '../registry';
import { numRelOf, type MeasureContext, type QueryRels } from '../relevance';
import type { HoleQuery, RankedList } from './pool';

/** Families whose per-query value depends on which documents are judged, not on grades: no interval. */
const NOT_SCORES = new Set(['runid', 'num_q', 'gm_map', 'num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret', 'unj', 'judged', 'hole']);
/** Families that read grades beyond relevant / not relevant (gains); the others see only grade >= level. */
const GRADED = new Set(['ndcg', 'ndcg_rel', 'Rndcg', 'ndcg_cut']);
/** Families a non-relevant document after the last relevant one cannot change, so lists can end there. */
const TRAILING_SAFE = new Set(['ndcg', 'ndcg_cut', 'P', 'recall', 'recall_cap', 'map', 'map_cut', 'recip_rank', 'success', 'Rprec']);
/** Families that never look below their largest cutoff, so lists can be cut there. */
const CUT = new Set(['ndcg_cut', 'P', 'recall', 'recall_cap', 'success', 'map_cut']);
/** Families that read a list only down to its first relevant document (reciprocalRank): scoring stops there. */
const FIRST_RELEVANT = new Set(['recip_rank']);

/**
 * The key of a list's value with one hole graded, for memos of list values: the hole at `rank` (-1: a rank the
 * list does not read, where any hole gives the same value; -2: no hole graded) has grade `grade` of a scale
 * below `size`; listKeys(ranks, size) keys below it.
 */
export const listKey = (rank: number, grade: number, size: number): number => (rank + 2) * size + grade;
export const listKeys = (ranks: number, size: number): number => (ranks + 2) * size;

/**
 * One query's list values under whole gradings of its holes, remembered for as long as the caller keeps it
 * (comparePairsUnderHoles: one query across every pair of a table; 5 SciFact runs all pairs scored 2.2 M
 * lists, 0.85 M of them distinct). A list's value depends only on the grades of the holes it reads
 * (HoleScorer.reads) and on how many holes have each grade: the key, one number below 2^53 (else, and for a
 * grade outside the scorer's scale, the list is scored every time).
 */
export class QueryListValues {
  /** Per list: the holes it reads, in rank order, and its values by key; null where no key fits. */
  private readonly lists: ({ read: Int32Array; values: Map<number, number> } | null)[] = [];
  /** A read hole's grade is a digit (unjudged: 0, grade g: g + 1) of this base. */
  private readonly base: number;
  /** The count part: each graded hole adds its grade's power of (holes + 1), below `counts`. */
  private readonly powers: Float64Array;
  private readonly counts: number;
  /** q.grades when made (raised() holds for these only). */
  private readonly judged: Int32Array;

  constructor(
    readonly scorer: HoleScorer,
    readonly query: HoleQuery,
  ) {
    const top = scorer.scale[scorer.scale.length - 1];
    this.judged = Int32Array.from(query.grades);
    this.base = top + 2;
    // Counts of each grade, as digits of base holes + 1 (no count exceeds the number of holes).
    this.powers = Float64Array.from({ length: top + 1 }, (_, g) => (query.holes.length + 1) ** g);
    this.counts = (query.holes.length + 1) ** (top + 1);
  }

  /** Per list, its values with every free hole at the scale's lowest grade but at most one, by listKey. */
  private readonly oneRaised: Map<number, number>[] = [];

  /** Values remembered (by score()). */
  get size(): number {
    let n = 0;
    for (const l of this.lists) n += l ? l.values.size : 0;
    return n;
  }

  /**
   * List r's values with every free hole of the query (q.grades < 0) at the scale's lowest grade but at most
   * one, by listKey of that hole's rank (-1 where the list does not read it) and grade: for the caller to fill
   * (lowOrOneDelta), the same gradings in every pair, for as long as q.grades stays as it is.
   */
  raised(r: number): Map<number, number> {
    return (this.oneRaised[r] ??= new Map());
  }

  /** Refuses a caller of another measure or query, or one after a judgement of the query (raised() holds for the judgements it was made under). */
  check(scorer: HoleScorer, query: HoleQuery): void {
    if (scorer !== this.scorer || query !== this.query) throw new Error(`list values of another ${scorer !== this.scorer ? 'measure' : 'query'}`);
    const g = query.grades;
    for (let h = 0; h < g.length; h++) if (g[h] !== this.judged[h]) throw new Error('list values remembered before a judgement of the query');
  }

  score(r: number, grades: Int32Array): number {
    const s = this.scorer;
    const q = this.query;
    let list = this.lists[r];
    if (list === undefined) {
      const { holeAt } = q.lists[r];
      const read: number[] = [];
      for (let i = 0; i < holeAt.length; i++) if (holeAt[i] >= 0 && s.reads(q.lists[r], i)) read.push(holeAt[i]);
      const fits = this.base ** read.length * this.counts <= Number.MAX_SAFE_INTEGER;
      list = this.lists[r] = fits ? { read: Int32Array.from(read), values: new Map() } : null;
    }
    if (list === null) return s.score(q, r, grades);
    const { read, values } = list;
    const base = this.base;
    const powers = this.powers;
    let key = 0;
    for (let i = 0; i < read.length; i++) {
      const g = grades[read[i]];
      key = key * base + (g < 0 ? 0 : g + 1);
    }
    let counts = 0;
    for (let h = 0; h < grades.length; h++) {
      const g = grades[h];
      if (g < 0) continue;
      // A grade past the scale would be another grading's digit (below, a read hole's too).
      if (g >= powers.length) return s.score(q, r, grades);
      counts += powers[g];
    }
    key = key * this.counts + counts;
    let v = values.get(key);
    if (v === undefined) {
      v = s.score(q, r, grades);
      values.set(key, v);
    }
    return v;
  }
}

/**
 * Scores one query of one run under an assignment of grades to its holes, through the registry's own measure
 * code (src/core/eval/measures): the trec_eval value is the assignment where every hole stays unjudged.
 */
export class HoleScorer {
  readonly measure: ResolvedMeasure;
  readonly name: string;
  readonly ctx: MeasureContext;
  /** The grades that give different values: the whole scale for gain-based measures, else {0, level}. */
  readonly scale: number[];
  /** Ranks read: a rank cutoff's (or the field name's depth), else every rank (recall levels and multipliers are no ranks). */
  readonly depth: number;
  private readonly out: Float64Array;
  private readonly trailingSafe: boolean;
  private readonly firstRelevant: boolean;
  private readonly lastUseful = new WeakMap<RankedList, number>();
  private rels = new Int32Array(1024);
  private levels = new Int32Array(16);
  private judged = new Uint8Array(1024);
  private readonly gradeArrays: [Int32Array, Int32Array][] = [];
  /** Views of the first n entries of rels and judged, by n (emptied when those arrays are replaced). */
  private readonly views: [Int32Array, Uint8Array][] = [];
  private readonly qr: QueryRels = { rels: new Int32Array(0), numRet: 0, numRel: 0, numRelRet: 0, grades: new Int32Array(0), gradeCounts: new Int32Array(0), judgedAnywhere: new Uint8Array(0) };

  constructor(spec: string, datasetScale: readonly number[], relevanceLevel = 1) {
    const [m, ...rest] = resolveMeasures([spec]);
    if (rest.length || m.names.length !== 1 || NOT_SCORES.has(m.family.name)) {
      throw new MeasureSpecError(`'${spec}': intervals are for one score per query, e.g. ndcg_cut.10, P.10, recall.100, map, recip_rank`);
    }
    this.measure = m;
    this.name = m.names[0];
    // A field name's view (P(rel=2)@10, RR@10) sets its own level, and a depth past which no rank counts.
    const level = m.view?.level ?? relevanceLevel;
    this.ctx = { relevanceLevel: level, numDocsInColl: 0, trecEval10Rounding: false };
    this.depth = Math.min(CUT.has(m.family.name) ? Math.max(...m.cutoffs) : Infinity, m.view?.depth ?? Infinity);
    this.out = new Float64Array(1);
    this.trailingSafe = TRAILING_SAFE.has(m.family.name);
    this.firstRelevant = FIRST_RELEVANT.has(m.family.name);
    if (GRADED.has(m.family.name)) this.scale = [...datasetScale];
    else {
      const rel = datasetScale.find((g) => g >= level);
      this.scale = rel === undefined ? [0] : [0, rel];
    }
  }

  get graded(): boolean {
    return GRADED.has(this.measure.family.name);
  }

  /** The family's name (ndcg_cut, P, ...). */
  get family(): string {
    return this.measure.family.name;
  }

  /**
   * The value of list `r` of query `q` when hole h has grade grades[h] (-1: unjudged, non-relevant).
   * `judgedOnly` drops unjudged documents from the ranking first (trec_eval -J's condensed list).
   */
  score(q: HoleQuery, r: number, grades: Int32Array, judgedOnly = false): number {
    const list = q.lists[r];
    let size = q.relLevels.length;
    const holes = grades.length;
    for (let h = 0; h < holes; h++) if (grades[h] >= size) size = grades[h] + 1;
    if (this.levels.length < size) this.levels = new Int32Array(size * 2);
    const levels = this.levels;
    levels.fill(0, 0, size);
    levels.set(q.relLevels);
    for (let h = 0; h < holes; h++) if (grades[h] >= 0) levels[grades[h]]++;
    let top = size;
    while (top > 0 && levels[top - 1] === 0) top--;
    // -J keeps the first `depth` judged documents, wherever they are.
    const all = judgedOnly ? list.rels.length : Math.min(this.trailingSafe ? this.usefulLength(list) : list.rels.length, this.depth);
    if (this.rels.length < all) {
      this.rels = new Int32Array(all * 2);
      this.judged = new Uint8Array(all * 2);
      this.views.length = 0;
    }
    let n = 0;
    let numRelRet = 0;
    // Locals in the loop over the ranking (the interval searches score millions of lists).
    const { holeAt, rels: listRels } = list;
    const out = this.rels;
    const depth = this.depth;
    const level = this.ctx.relevanceLevel;
    const stop = this.firstRelevant;
    for (let i = 0; i < all && n < depth; i++) {
      const h = holeAt[i];
      const rel = h >= 0 && grades[h] >= 0 ? grades[h] : listRels[i];
      if (judgedOnly && rel < 0) continue;
      out[n++] = rel;
      if (rel >= level) {
        numRelRet++;
        // Below it the list cannot change the value (the sizes the measure sees then end here too).
        if (stop) break;
      }
    }
    // The evaluator's sparse form of the grade counts (grades present, ascending, and their counts).
    let present = 0;
    for (let g = 0; g < top; g++) if (levels[g] > 0) present++;
    // Reused arrays, one pair per length (measures read them during compute() only): this runs millions of
    // times in a results table, and fresh arrays were most of what its garbage collector had to do.
    const [gradeList, gradeCounts] = (this.gradeArrays[present] ??= [new Int32Array(present), new Int32Array(present)]);
    for (let g = 0, k = 0; g < top; g++) {
      if (levels[g] === 0) continue;
      gradeList[k] = g;
      gradeCounts[k++] = levels[g];
    }
    const qr = this.qr;
    // The first n ranks, a view kept per length (a new view per call was garbage, as the arrays above were).
    const view = (this.views[n] ??= [out.subarray(0, n), this.judged.subarray(0, n)]);
    qr.rels = view[0];
    qr.numRet = n;
    qr.numRel = numRelOf(gradeList, gradeCounts, level);
    qr.numRelRet = numRelRet;
    qr.grades = gradeList;
    qr.gradeCounts = gradeCounts;
    qr.judgedAnywhere = view[1];
    this.out[0] = 0;
    this.measure.family.compute(qr, this.ctx, this.measure, this.out, 0);
    return this.out[0];
  }

  /**
   * Whether score() (not -J) reads rank `rank` of `list` (-1: not retrieved): a hole the list does not read
   * moves its value only through the grade counts, as any other such hole with the same grade would.
   */
  reads(list: RankedList, rank: number): boolean {
    return rank >= 0 && rank < Math.min(this.trailingSafe ? this.usefulLength(list) : list.rels.length, this.depth);
  }

  /** Ranks up to the last hole or document with a positive grade (or any judged one at level <= 0). */
  private usefulLength(list: RankedList): number {
    let n = this.lastUseful.get(list);
    if (n === undefined) {
      const min = Math.min(1, this.ctx.relevanceLevel);
      n = list.rels.length;
      while (n > 0 && list.holeAt[n - 1] < 0 && list.rels[n - 1] < min) n--;
      this.lastUseful.set(list, n);
    }
    return n;
  }
}
