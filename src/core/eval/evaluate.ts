import { JudgmentGroups, type Qrels, type QueryJudgements } from '../formats/qrels';
import { prefsCounts, PrefsQrels, RankPool } from './prefs';
import type { Run } from '../formats/run';
import { MeasureSpecError, resolveMeasures, type Family, type ResolvedMeasure } from './registry';
import { JudgementTable, judgedDocsTable } from './judgementTable';
import { encodeId, type IdTable } from '../formats/idTable';
import { toZScores, type ZScores } from './zscores';
import { gradeLevelsOf, NONPOOL, numRelOf, type MeasureContext, type QueryRels } from './relevance';
import type { MeasureView } from './names';

export interface EvalOptions {
  /** trec_eval -m arguments; default ['official']. */
  measures?: readonly string[];
  /** trec_eval -c: average over every query in the qrels; queries missing from the run score 0. */
  complete?: boolean;
  /** trec_eval -l: lowest grade counted as relevant (default 1). */
  relevanceLevel?: number;
  /** trec_eval -J: drop unjudged documents (not in the qrels, or a negative grade) from each ranking (after -M). */
  judgedOnly?: boolean;
  /** trec_eval -N: number of documents in the collection (for utility); default 0. */
  numDocsInColl?: number;
  /** trec_eval -M: evaluate only the first N ranked documents of each query. */
  maxRetrieved?: number;
  /** Use only the first -m's parameters for a measure, as trec_eval does (the CLI); default: merge them. */
  firstParamsWin?: boolean;
  /** Which trec_eval's output layout to follow where they differ (default: the version defining each measure). */
  trecEval?: 9 | 10;
  /** Evaluate only these queries of the qrels (re-scoring the queries a judgement moved; summaries then cover only them). */
  onlyQueries?: ReadonlySet<string>;
  /** judgedDocsTable(qrels), when the caller keeps it across calls (hole.k); built here otherwise. */
  judgedDocs?: IdTable;
  /** trec_eval -Z: print each value as a z-score against this file's per-query means (zscores.ts). */
  zscores?: ZScores;
}

/** One output column: a single value name such as ndcg_cut_10. */
export interface Column {
  name: string;
  family: Family;
}

export interface EvalResult {
  runId: string;
  measures: ResolvedMeasure[];
  columns: Column[];
  /** Evaluated queries in trec_eval's order (byte order of qid). */
  queries: string[];
  /** 1 where the query is in the qrels but not in the run (only with `complete`). */
  missing: Uint8Array;
  /** Row-major: values[q * columns.length + c]. */
  values: Float64Array;
  /** Summary ("all") value per column: mean, sum or geometric mean as trec_eval aggregates it. */
  summary: Float64Array;
  numQ: number;
  /** trec_eval 10 prints queries missing from the run under -c -q; 9 does not. True when a 10-only measure is asked for. */
  trecEval10Layout: boolean;
  /** Values are z-scores (-Z): trec_eval prefixes every name with Z and prints counts with decimals. */
  zscored: boolean;
  /** NaNs glibc prints as "nan" rather than "-nan" (from a -Z file): value indexes, and -1 - column for summaries. */
  positiveNaN: Set<number>;
  /** Per-query text of text measures (relstring), by q * columns.length + c. */
  texts: Map<number, string>;
  /** Summary value by column name, e.g. mean.get('ndcg_cut_10'). */
  mean: Map<string, number>;
}

/**
 * Evaluates a run against qrels exactly as trec_eval 9.0.8 does (README: "irw eval", conventions): queries in
 * byte order of qid, documents ranked by score then docno descending, unjudged and negatively judged
 * documents non-relevant with gain 0, averages over queries in both qrels and run (or all qrels queries with
 * `complete`).
 */
export function evaluate(qrels: Qrels | JudgmentGroups | PrefsQrels, run: Run, options: EvalOptions = {}): EvalResult {
  const measures = resolveMeasures(options.measures ?? ['official'], options.firstParamsWin, options.trecEval);
  // trec_eval -R qrels_jg / qrels_prefs: only their measures read those formats, and only they need them.
  const jg = qrels instanceof JudgmentGroups ? qrels : undefined;
  const prefs = qrels instanceof PrefsQrels ? qrels : undefined;
  const plain = jg || prefs ? undefined : (qrels as Qrels);
  const format = jg ? 'qrels_jg' : prefs ? 'prefs' : undefined;
  const use = { qrels_jg: '-m qrels_jg (map_avgjg, P_avgjg, Rprec_mult_avgjg)', prefs: '-m all_prefs or -m prefs (the prefs_* measures)' };
  const option = { qrels_jg: '-R qrels_jg (qrels whose second column names the group)', prefs: '-R qrels_prefs (qrels read as preferences)' };
  for (const m of measures) {
    const name = m.family.name;
    if (name === 'runid' || name === 'num_q' || m.family.reads === format) continue;
    if (format) throw new MeasureSpecError(`${name} reads ${m.family.reads ? `-R ${m.family.reads === 'prefs' ? 'qrels_prefs' : m.family.reads}` : 'plain qrels'}, not -R ${format === 'prefs' ? 'qrels_prefs' : format}: use ${use[format]}`);
    throw new MeasureSpecError(`${name} needs ${m.family.reads === 'prefs' ? 'preferences' : 'judgment-group qrels'}: add ${option[m.family.reads!]}`);
  }
  const ctx: MeasureContext = { relevanceLevel: options.relevanceLevel ?? 1, numDocsInColl: options.numDocsInColl ?? 0, trecEval10Rounding: options.trecEval === 10 };
  const maxRet = options.maxRetrieved ?? Infinity;
  const complete = options.complete ?? false;
  const judgedOnly = options.judgedOnly ?? false;

  const columns: Column[] = [];
  const offsets: number[] = [];
  const computed: ResolvedMeasure[] = [];
  for (const m of measures) {
    if (m.family.name === 'runid' || m.family.name === 'num_q') continue;
    computed.push(m);
    offsets.push(columns.length);
    for (const name of m.names) columns.push({ name, family: m.family });
  }
  const width = columns.length;
  const columnNames = columns.map((c) => Buffer.from(c.name));

  // hole.k needs to know which documents are judged for any query; only build that when asked.
  const docs = run.docs;
  // Only the ranks hole.k looks at (up to its largest k) need the lookup.
  const holeDepth = Math.max(0, ...computed.filter((m) => m.family.name === 'hole').flatMap((m) => m.cutoffs));
  const judgedDocs = holeDepth > 0 && plain ? (options.judgedDocs ?? judgedDocsTable(plain)) : null;
  const table = new JudgementTable();

  const layout10 = options.trecEval === 10 || measures.some((m) => m.family.origin === 'trec_eval 10');
  const queries: string[] = [];
  const missing: number[] = [];
  const rows: Float64Array[] = [];
  const texts = new Map<number, string>();
  const positiveNaN = new Set<number>();
  const rankPool = new RankPool();
  let rels = new Int32Array(1024);
  let judged = new Uint8Array(1024);
  /** A query's ranking against judgements `j` (q < 0: the query is not in the run). Reuses `rels` and `judged`. */
  const relsOf = (j: QueryJudgements, q: number): QueryRels => {
    const { grades, gradeCounts } = gradeLevelsOf(j.grades);
    let numRet = 0;
    let numRelRet = 0;
    if (q >= 0) {
      table.load(j);
      const start = run.offsets[q];
      const n = Math.min(run.offsets[q + 1] - start, maxRet);
      if (rels.length < n) {
        rels = new Int32Array(n * 2);
        judged = new Uint8Array(n * 2);
      }
      // Locals, not the closure's and objects' fields, in the loop over every ranked document.
      const out = rels;
      const docIds = run.docIds;
      const level = ctx.relevanceLevel;
      for (let i = 0; i < n; i++) {
        const d = docIds[start + i];
        const r = table.lookup(docs, d);
        if (judgedOnly && r < 0) continue;
        out[numRet] = r;
        if (r >= level) numRelRet++;
        if (judgedDocs && numRet < holeDepth) judged[numRet] = judgedDocs.find(docs.buffer, docs.start(d), docs.end(d)) >= 0 ? 1 : 0;
        numRet++;
      }
    }
    return {
      rels: rels.subarray(0, numRet),
      numRet,
      numRel: numRelOf(grades, gradeCounts, ctx.relevanceLevel),
      numRelRet,
      grades,
      gradeCounts,
      judgedAnywhere: judged.subarray(0, numRet),
    };
  };
  for (const qid of qrels.queryIds()) {
    if (options.onlyQueries && !options.onlyQueries.has(qid)) continue;
    const q = run.queryIndex(qid);
    if (q < 0 && !complete) continue;
    const groups = jg?.groups(qid);
    // Each group's ranking gets its own arrays; the query's own (unused with qrels_jg) reuses the buffers.
    const groupRels = groups?.map((g) => {
      const r = relsOf(g, q);
      return { ...r, rels: r.rels.slice(), judgedAnywhere: r.judgedAnywhere.slice() };
    });
    const qr = relsOf(groups ? groups[0] : prefs ? NO_JUDGEMENTS : plain!.judgements(qid)!, q);
    if (groupRels) qr.groups = groupRels;
    // trec_eval 9 does not evaluate a -c query missing from the run (10 does, on its one-document ranking).
    if (prefs && (q >= 0 || layout10)) qr.prefs = prefsCounts(prefs.judgements(qid)!, q < 0 ? [] : prefsRanking(run, q, maxRet, options.trecEval === 10), rankPool);
    const row = new Float64Array(width);
    if (q >= 0) computed.forEach((m, i) => computeIn(m, qr, ctx, row, offsets[i]));
    else if (!layout10) {
      // trec_eval 9 -c does not evaluate a query missing from the run: 0, but gm_* count their floor (which an
      // empty ranking gives) and num_rel is counted from the qrels.
      computed.forEach((m, i) => {
        if (m.family.aggregate === 'gm' || m.family.name === 'num_rel') computeIn(m, qr, ctx, row, offsets[i]);
      });
    } else {
      // trec_eval 10 evaluates it on a one-document "bogus" ranking of an unjudged docno (-J drops that too),
      // then zeroes num_ret, unj, relstring, and a measure named exactly "utility" or "rbp_resid" (not with parameters).
      const bogus = judgedOnly ? qr : { ...qr, rels: Int32Array.of(NONPOOL), numRet: 1, judgedAnywhere: Uint8Array.of(0) };
      computed.forEach((m, i) => {
        const name = m.family.name;
        const zeroed = name === 'num_ret' || name === 'unj' || ((name === 'utility' || name === 'rbp_resid') && m.names[0] === name);
        if (!zeroed) computeIn(m, m.family.origin === 'irw' ? qr : bogus, ctx, row, offsets[i]);
      });
    }
    // trec_eval 9 converts only the queries it evaluated; 10 also its "bogus" rankings of missing queries.
    if (options.zscores && (q >= 0 || layout10)) {
      const nan = new Set<number>();
      toZScores(options.zscores, encodeId(qid), columnNames, row, nan);
      for (const c of nan) positiveNaN.add(queries.length * width + c);
    }
    computed.forEach((m, i) => {
      if (m.family.text) texts.set(queries.length * width + offsets[i], q >= 0 ? m.family.text(qr, m) : '');
    });
    queries.push(qid);
    missing.push(q < 0 ? 1 : 0);
    rows.push(row);
  }

  const numQ = queries.length;
  const values = new Float64Array(numQ * width);
  rows.forEach((r, i) => values.set(r, i * width));
  const summary = new Float64Array(width);
  for (let c = 0; c < width; c++) {
    let sum = 0;
    for (let qi = 0; qi < numQ; qi++) {
      const v = values[qi * width + c];
      // C's sum += v keeps the first NaN, and its sign.
      if (Number.isNaN(v) && !Number.isNaN(sum) && positiveNaN.has(qi * width + c)) positiveNaN.add(-1 - c);
      sum += v;
    }
    summary[c] = summaryOf(columns[c], sum, numQ, complete, plain);
  }
  return {
    runId: run.tag,
    measures,
    columns,
    queries,
    missing: Uint8Array.from(missing),
    values,
    summary,
    numQ,
    trecEval10Layout: layout10,
    zscored: options.zscores !== undefined,
    positiveNaN,
    texts,
    mean: new Map(columns.map((c, i) => [c.name, summary[i]])),
  };
}

/** Computes measure `m` on query `q`, through the measure's view (names.ts: P(rel=2)@10, RR@10) where it has one. */
function computeIn(m: ResolvedMeasure, q: QueryRels, ctx: MeasureContext, out: Float64Array, at: number): void {
  if (!m.view) m.family.compute(q, ctx, m, out, at);
  else {
    const v = viewOf(q, ctx, m.view);
    m.family.compute(v.q, v.ctx, m, out, at);
  }
}

/**
 * A query's ranking as trec_eval sees it with -l `view.level` (relevant counts from that grade) and -M
 * `view.depth` (only the first documents of the ranking evaluated here).
 */
export function viewOf(q: QueryRels, ctx: MeasureContext, view: MeasureView): { q: QueryRels; ctx: MeasureContext } {
  const level = view.level ?? ctx.relevanceLevel;
  const numRet = Math.min(q.numRet, view.depth ?? Infinity);
  const rels = q.rels.subarray(0, numRet);
  let numRelRet = 0;
  for (let i = 0; i < numRet; i++) if (rels[i] >= level) numRelRet++;
  return {
    q: { ...q, rels, numRet, numRelRet, numRel: numRelOf(q.grades, q.gradeCounts, level), judgedAnywhere: q.judgedAnywhere.subarray(0, Math.min(numRet, q.judgedAnywhere.length)) },
    ctx: level === ctx.relevanceLevel ? ctx : { ...ctx, relevanceLevel: level },
  };
}

/**
 * The "all" value of a column from the sum of its per-query values, as trec_eval aggregates it: a mean, a sum,
 * or (gm_*) the geometric mean of values already logged per query.
 */
export function summaryOf(column: Column, sum: number, numQ: number, complete: boolean, qrels: Qrels | undefined): number {
  // trec_eval -c sums num_rel from the qrels themselves: every judgement with grade > 0, whatever -l says.
  if (complete && column.family.name === 'num_rel' && qrels) return positiveJudgements(qrels);
  const agg = column.family.aggregate;
  return agg === 'sum' ? sum : numQ === 0 ? 0 : agg === 'gm' ? Math.exp(sum / numQ) : sum / numQ;
}

const NO_JUDGEMENTS: QueryJudgements = { docs: [], grades: new Int32Array(0) };

/**
 * A query's ranking as trec_eval's form_prefs_counts sorts it: score descending like form_res_rels, but ties
 * by docno ascending (the run keeps them descending), cut at -M.
 */
function prefsRanking(run: Run, q: number, maxRet: number, doubles: boolean): string[] {
  const start = run.offsets[q];
  const end = run.offsets[q + 1];
  const key = (i: number) => (doubles ? run.scores[i] : Math.fround(run.scores[i]));
  const out: string[] = [];
  for (let g = start; g < end && out.length < maxRet; ) {
    let e = g + 1;
    while (e < end && key(e) === key(g)) e++;
    for (let i = e - 1; i >= g && out.length < maxRet; i--) out.push(run.docs.string(run.docIds[i]));
    g = e;
  }
  return out;
}

function positiveJudgements(qrels: Qrels): number {
  let n = 0;
  for (const qid of qrels.queryIds()) for (const g of qrels.judgements(qid)!.grades) if (g > 0) n++;
  return n;
}

/** Per-query values of one column, by qid. */
export function perQuery(result: EvalResult, name: string): Map<string, number> {
  const c = result.columns.findIndex((col) => col.name === name);
  if (c < 0) throw new Error(`measure ${name} was not evaluated`);
  const w = result.columns.length;
  return new Map(result.queries.map((qid, qi) => [qid, result.values[qi * w + c]]));
}

