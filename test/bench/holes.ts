/**
 * bench:holes — the judging loop with ground truth (issues 15 and 23). On SciFact and NFCorpus (test), some
 * qrels lines are hidden and become the judge (a document the qrels never judged is non-relevant), in two
 * scenarios: a seeded 30 % of the lines ("hide 30 %", seeds 15-17), and every judgement of a document that
 * only one of the dataset's runs has in its top 10 ("one-run": how a new system meets holes; deterministic,
 * so its three trials vary the sampling queue's seed instead). Sixteen pairs of runs per dataset, near-ties
 * (|Δ| < 0.005) among them, nDCG@10, Δ = b - a.
 *
 * Estimate mode: the pair's holes (top 100 of either run) are judged in the sampling queue's order until
 * the 95 % interval of the estimate gives a verdict (a better, b better, within ±0.01). Per trial: the
 * judgements it took against what blind order (query by query, documents shuffled, as the Holes view pools
 * them) needs for the sound verdict (settled over the top-10 pool); whether the interval at 0 judgements and
 * at the verdict holds the Δ of the full qrels; whether the verdict is wrong (a sign that is not Δ's, or
 * "within" when |Δ| > 0.01); the design-based interval of the sample beside it.
 *
 * Sound mode (hide 30 %, seed 15): judgements until settled in impact order, against the exact minimum any
 * order needs where it is known (the oracle's lower bound equals its greedy upper bound), else the bracket.
 *
 * Options: --only scifact|nfcorpus, --scenario hide|onerun, --seeds 15,16,
 * --mode estimate|sound|both|floor (floor: withinFloor beside blind order, no judging loop), --record FILE (append each trial as a JSON line), --from FILE (print the tables of
 * recorded trials, running none); --pairs N takes N of the sixteen, spread from near-ties to wide gaps. Runs of ours are made with `irw run` / `irw fuse` once and kept in .bench/holes.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HoleScorer, ImpactQueue, prepareHoles, queryDelta, summarise, type HoleSet } from '../../src/core/eval/holes';
import { HoleEstimator, type ValueScorer } from '../../src/core/eval/holes/estimate';
import { SampleQueue } from '../../src/core/eval/holes/sample';
import { estimateVerdict, verdictFromCdf, type EstimateVerdict } from '../../src/core/eval/holes/verdict';
import { Qrels, readQrels } from '../../src/core/formats/qrels';
import { readRun, type Run } from '../../src/core/formats/run';
import { uniform } from '../../src/core/random';
import { exactMinimum, needleFamily, onlineMinimum } from './onlineFloor';
import { oracleGreedy, oracleLowerBound } from './oracleBound';
import { withinFloor, type WithinFloor } from './withinFloor';

const REPO = resolve(__dirname, '..', '..');
const SHARED = resolve(REPO, '..', 'shared');
const DIR = join(REPO, '.bench', 'holes');
const HIDE = 0.3;
const NEAR_TIE = 0.005;

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    scenario: { type: 'string' },
    pairs: { type: 'string' },
    seeds: { type: 'string' },
    mode: { type: 'string', default: 'both' },
    record: { type: 'string' },
    from: { type: 'string' },
  },
});

/** A run of ours, made with the CLI (cached in .bench/holes). */
function ours(dataset: string, name: string, args: string[]): string {
  const out = join(DIR, `${dataset}.${name}.trec`);
  if (!existsSync(out)) {
    const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'run', '--dataset', join(SHARED, 'datasets', dataset), '--split', 'test', '--cache', join(REPO, '.cache', 'irw'), '--top-k', '100', '--out', out, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`irw run ${dataset} ${name} failed`);
  }
  return out;
}

/** Two runs of ours fused with `irw fuse` (cached). */
function fused(dataset: string, name: string, inputs: string[], args: string[]): string {
  const out = join(DIR, `${dataset}.${name}.trec`);
  if (!existsSync(out)) {
    const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'fuse', ...inputs, '--out', out, '--top-k', '100', ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`irw fuse ${dataset} ${name} failed`);
  }
  return out;
}

/** The runs of a dataset by short name: BM25 variants, RM3 and fusions of ours; on SciFact the shared runs too. */
function runsOf(dataset: string): Map<string, string> {
  const m = new Map<string, string>();
  m.set('bm25', ours(dataset, 'bm25', []));
  m.set('multifield', ours(dataset, 'bm25-multifield', ['--fields', 'multifield']));
  m.set('rm3', ours(dataset, 'bm25-rm3', ['--rm3']));
  m.set('rm3-20', ours(dataset, 'bm25-rm3-20', ['--rm3', '--fb-terms', '20', '--fb-docs', '5']));
  m.set('k1.2 b.75', ours(dataset, 'bm25-k1.2-b.75', ['--k1', '1.2', '--b', '0.75']));
  m.set('k1.5 b.75', ours(dataset, 'bm25-k1.5-b.75', ['--k1', '1.5', '--b', '0.75']));
  m.set('k0.6 b.3', ours(dataset, 'bm25-k0.6-b.3', ['--k1', '0.6', '--b', '0.3']));
  if (dataset === 'scifact') {
    const sf = join(SHARED, 'runs', 'scifact');
    m.set('minilm', join(sf, 'minilm-faiss.knarfthekant.trec'));
    m.set('rank_bm25', join(sf, 'bm25okapi.knarfthekant.trec'));
    m.set('rerank', join(sf, 'neural-rerank.kirloxious.tsv'));
    m.set('tfidf', join(sf, 'vsm-tfidf.titles_fulltext.omar-khattab.trec'));
    m.set('fuse bm25+rm3', fused(dataset, 'fuse-bm25-rm3', [m.get('bm25')!, m.get('rm3')!], []));
    m.set('rrf bm25+minilm', fused(dataset, 'rrf-bm25-minilm', [m.get('bm25')!, m.get('minilm')!], ['--method', 'rrf']));
  } else {
    m.set('rrf bm25+rm3', fused(dataset, 'rrf-bm25-rm3', [m.get('bm25')!, m.get('rm3')!], ['--method', 'rrf']));
    m.set('fuse bm25+multifield', fused(dataset, 'fuse-bm25-multifield', [m.get('bm25')!, m.get('multifield')!], []));
  }
  return m;
}

/** Sixteen pairs per dataset, from a near-tie to a wide gap (full-qrels Δ nDCG@10 in the comment). */
const PAIRS: Record<string, [string, string][]> = {
  scifact: [
    ['rm3', 'minilm'], // -0.0003
    ['bm25', 'fuse bm25+rm3'], // -0.0003
    ['k0.6 b.3', 'bm25'], // 0.0013
    ['k1.2 b.75', 'bm25'], // -0.0037
    ['k0.6 b.3', 'k1.2 b.75'], // 0.0050
    ['k0.6 b.3', 'rm3-20'], // -0.0055
    ['rm3-20', 'bm25'], // 0.0068
    ['multifield', 'rm3-20'], // 0.0075
    ['rank_bm25', 'rerank'], // 0.0104
    ['multifield', 'bm25'], // 0.0142
    ['multifield', 'minilm'], // -0.0196
    ['rm3-20', 'rm3'], // -0.0268
    ['bm25', 'minilm'], // -0.0338
    ['bm25', 'rrf bm25+minilm'], // 0.0390
    ['rank_bm25', 'minilm'], // 0.0854
    ['rank_bm25', 'tfidf'], // -0.2249
  ],
  nfcorpus: [
    ['bm25', 'k1.2 b.75'], // 0.0003
    ['k1.5 b.75', 'multifield'], // -0.0006
    ['rm3-20', 'rrf bm25+rm3'], // -0.0031
    ['multifield', 'bm25'], // -0.0037
    ['k1.2 b.75', 'k1.5 b.75'], // 0.0040
    ['k0.6 b.3', 'bm25'], // 0.0055
    ['rm3', 'rrf bm25+rm3'], // -0.0063
    ['bm25', 'fuse bm25+multifield'], // 0.0077
    ['k0.6 b.3', 'k1.5 b.75'], // 0.0098
    ['fuse bm25+multifield', 'rrf bm25+rm3'], // 0.0124
    ['rm3-20', 'fuse bm25+multifield'], // -0.0155
    ['multifield', 'rrf bm25+rm3'], // 0.0164
    ['bm25', 'rrf bm25+rm3'], // 0.0201
    ['rm3-20', 'bm25'], // -0.0232
    ['rm3', 'bm25'], // -0.0264
    ['k0.6 b.3', 'rm3'], // 0.0319
  ],
};

interface Scenario {
  name: string;
  seed: number;
  visible: Qrels;
  /** The judge: the hidden grade, 0 for a document the qrels never judged. */
  truth(qid: string, docId: string): number;
}

function fromHidden(name: string, seed: number, qrels: Qrels, hideIt: (qid: string, docid: string, rand: () => number) => boolean): Scenario {
  const rand = uniform(seed);
  const kept: { qid: string; docid: string; grade: number }[] = [];
  const hidden = new Map<string, number>();
  for (const qid of qrels.queryIds()) {
    const j = qrels.judgements(qid)!;
    let any = false;
    j.docs.forEach((docid, i) => {
      if (hideIt(qid, docid, rand)) hidden.set(`${qid}\t${docid}`, j.grades[i]);
      else {
        kept.push({ qid, docid, grade: j.grades[i] });
        any = true;
      }
    });
    // A query whose every line is hidden keeps no line; it stays in the set with a judged non-relevant dummy.
    if (!any) kept.push({ qid, docid: '\u0000none', grade: 0 });
  }
  return { name, seed, visible: Qrels.fromJudgements(kept), truth: (qid, d) => Math.max(0, hidden.get(`${qid}\t${d}`) ?? 0) };
}

/** Every judgement of a document in the top 10 of exactly one of `runs`. */
function oneRun(qrels: Qrels, runs: readonly Run[], seed: number): Scenario {
  const finders = new Map<string, number>();
  for (const run of runs) {
    for (const qid of qrels.queryIds()) {
      const r = run.ranking(qid, 10);
      if (r) for (const d of r.docs) finders.set(`${qid}\t${d}`, (finders.get(`${qid}\t${d}`) ?? 0) + 1);
    }
  }
  return fromHidden('one-run', seed, qrels, (qid, d) => finders.get(`${qid}\t${d}`) === 1);
}

const measureScorer = (scale: readonly number[]): { hs: HoleScorer; vs: ValueScorer } => {
  const hs = new HoleScorer('ndcg_cut.10', scale);
  return { hs, vs: { scale: hs.scale, cutoff: 10, score: (q, r, g) => hs.score(q, r, g) } };
};

function meanDelta(set: HoleSet, hs: HoleScorer): number {
  let t = 0;
  for (const q of set.queries) t += hs.score(q, 1, q.grades) - hs.score(q, 0, q.grades);
  return t / (set.queries.length || 1);
}

/** Judgements until settled in blind order: query by query, the documents of each in a seeded shuffle. */
function blindOrder(set: HoleSet, hs: HoleScorer, truth: Scenario['truth'], seed: number): number {
  const rand = uniform(seed);
  const deltas = set.queries.map((q) => queryDelta(q, 0, 1, hs));
  let judged = 0;
  for (let qi = 0; qi < set.queries.length; qi++) {
    const q = set.queries[qi];
    const order = q.holes.map((_, h) => [rand(), h] as const).sort((x, y) => x[0] - y[0]);
    for (const [, h] of order) {
      if (summarise(set, 0, 1, hs.name, deltas).verdict === 'settled') return judged;
      q.grades[h] = truth(q.qid, q.holes[h]);
      judged++;
      deltas[qi] = queryDelta(q, 0, 1, hs);
    }
  }
  return judged;
}

interface Trial {
  dataset: string;
  scenario: string;
  seed: number;
  pair: string;
  trueDelta: number;
  judged: number;
  blind: number;
  verdict: EstimateVerdict;
  wrong: boolean;
  at0: { lo: number; hi: number };
  atVerdict: { estimate: number; lo: number; hi: number };
  design: { lo: number; hi: number; sampled: number };
  /** withinFloor's floor for verdicts that hold whatever the rates (Infinity where |Δ| > 0.01: no "within"). */
  floor?: number;
  ms: number;
}

/** The estimator of a pair's holes (top 100 of both) on the scenario's visible qrels, nDCG@10. */
function pairEstimator(sc: Scenario, runs: [Run, Run], scale: number[]): { hs: HoleScorer; est: HoleEstimator } {
  const { hs, vs } = measureScorer(scale);
  return { hs, est: new HoleEstimator(prepareHoles(sc.visible, runs, { poolDepth: 100 }), [0, 1], { ndcg: vs }, { seed: sc.seed }) };
}

function estimateTrial(dataset: string, sc: Scenario, pair: string, runs: [Run, Run], scale: number[], trueDelta: number): Trial {
  const t0 = Date.now();
  const { hs, est } = pairEstimator(sc, runs, scale);
  const floor = withinFloor(est, hs, sc.truth, trueDelta).exchangeable;
  const queue = new SampleQueue(est, 'ndcg', sc.seed);
  const e0 = est.estimate('ndcg');
  let e = e0;
  let verdict = estimateVerdict(e.lo, e.hi);
  let judged = 0;
  while (verdict === 'undecided') {
    const it = queue.next();
    if (!it) break;
    queue.judge(it.query, it.hole, sc.truth(it.qid, it.docId));
    judged++;
    verdict = verdictFromCdf((x) => est.cdf('ndcg', x));
  }
  e = est.estimate('ndcg');
  const d = queue.design();
  const blind = blindOrder(prepareHoles(sc.visible, runs, { poolDepth: 10 }), hs, sc.truth, sc.seed);
  const wrong = verdict === 'b better' ? trueDelta <= 0 : verdict === 'a better' ? trueDelta >= 0 : verdict === 'within' ? Math.abs(trueDelta) > 0.01 : false;
  return {
    dataset,
    scenario: sc.name,
    seed: sc.seed,
    pair,
    trueDelta,
    judged,
    blind,
    verdict,
    wrong,
    at0: { lo: e0.lo, hi: e0.hi },
    atVerdict: { estimate: e.estimate, lo: e.lo, hi: e.hi },
    design: { lo: d.lo, hi: d.hi, sampled: d.sampled },
    floor,
    ms: Date.now() - t0,
  };
}

/** Floor mode: withinFloor against blind order's count, no judging loop (seconds a trial). */
function floorTrial(sc: Scenario, runs: [Run, Run], scale: number[], trueDelta: number): WithinFloor & { blind: number } {
  const { hs, est } = pairEstimator(sc, runs, scale);
  const floors = withinFloor(est, hs, sc.truth, trueDelta);
  return { ...floors, blind: blindOrder(prepareHoles(sc.visible, runs, { poolDepth: 10 }), hs, sc.truth, sc.seed) };
}

interface SoundRow {
  dataset: string;
  pair: string;
  trueDelta: number;
  impact: number;
  blind: number;
  oracleLow: number;
  oracleHigh: number;
}

function soundTrial(dataset: string, sc: Scenario, pair: string, runs: [Run, Run], scale: number[], trueDelta: number): SoundRow {
  const { hs } = measureScorer(scale);
  const fresh = () => prepareHoles(sc.visible, runs, { poolDepth: 10 });
  const set = fresh();
  const queue = new ImpactQueue(set, 0, 1, hs, { seed: sc.seed });
  // The core's comparison is a - b; the leader is the run with the larger truth.
  while (queue.comparison().verdict === 'open') {
    const item = queue.next();
    if (!item) break;
    queue.judge(item.query, item.hole, sc.truth(item.qid, item.docId));
  }
  const leader = trueDelta <= 0 ? 0 : 1;
  return {
    dataset,
    pair,
    trueDelta,
    impact: queue.judged,
    blind: blindOrder(fresh(), hs, sc.truth, sc.seed),
    oracleLow: oracleLowerBound(fresh(), hs, sc.truth, leader),
    oracleHigh: oracleGreedy(fresh(), hs, sc.truth, leader),
  };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  return rows.map((r) => r.map((x, j) => x.padEnd(widths[j])).join('  ').trimEnd()).join('\n');
}

const f4 = (x: number) => (x >= 0 ? ' ' : '') + x.toFixed(4);
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** n of the pairs, evenly spread over the list (which goes from near-ties to wide gaps). */
function spread<T>(xs: readonly T[], n: number): T[] {
  if (n >= xs.length) return [...xs];
  return Array.from({ length: n }, (_, i) => xs[Math.round((i * (xs.length - 1)) / Math.max(1, n - 1))]);
}

function main(): void {
  mkdirSync(DIR, { recursive: true });
  const started = Date.now();
  const cpu0 = process.cpuUsage();
  const loads: number[] = [loadavg()[0]];
  const datasets = opts.only ? [opts.only] : ['scifact', 'nfcorpus'];
  const scenarios = opts.scenario ? [opts.scenario] : ['hide', 'onerun'];
  const seeds = (opts.seeds ?? '15,16,17').split(',').map(Number);
  const mode = opts.mode ?? 'both';
  const trials: Trial[] = [];
  const sound: SoundRow[] = [];
  const floors: string[][] = [];
  // --from: the tables of trials recorded earlier (--record), e.g. by runs split over several sittings.
  for (const line of opts.from ? readFileSync(opts.from, 'utf8').split('\n').filter(Boolean) : []) {
    const x = JSON.parse(line) as { trial?: Trial; sound?: SoundRow };
    // JSON writes an open interval's ±Infinity (a design estimate before two draws) as null.
    if (x.trial) trials.push({ ...x.trial, design: { ...x.trial.design, lo: x.trial.design.lo ?? -Infinity, hi: x.trial.design.hi ?? Infinity } });
    if (x.sound) sound.push(x.sound);
  }
  for (const dataset of opts.from ? [] : datasets) {
    const files = runsOf(dataset);
    const runs = new Map([...files].map(([k, p]) => [k, readRun(p)]));
    const full = readQrels(join(SHARED, 'datasets', dataset, 'qrels', 'test.tsv'));
    const scale = prepareHoles(full, [...runs.values()].slice(0, 1)).scale;
    const pairs = spread(PAIRS[dataset], opts.pairs ? Number(opts.pairs) : PAIRS[dataset].length);
    const truths = new Map<string, number>();
    for (const [a, b] of pairs) {
      const set = prepareHoles(full, [runs.get(a)!, runs.get(b)!], { poolDepth: 0 });
      truths.set(`${a} / ${b}`, meanDelta(set, measureScorer(scale).hs));
    }
    for (const scenario of scenarios) {
      for (const seed of seeds) {
        const sc = scenario === 'hide' ? fromHidden('hide 30 %', seed, full, (_q, _d, rand) => rand() < HIDE) : oneRun(full, [...runs.values()], seed);
        for (const [a, b] of pairs) {
          const pair = `${a} / ${b}`;
          const ab: [Run, Run] = [runs.get(a)!, runs.get(b)!];
          if (mode === 'floor') {
            const f = floorTrial(sc, ab, scale, truths.get(pair)!);
            floors.push([dataset, sc.name, String(seed), pair, f4(truths.get(pair)!), String(f.moving), String(f.blind), String(f.withRates), String(f.exchangeable), (f.exchangeable / f.blind).toFixed(3)]);
            process.stderr.write(`${dataset} ${sc.name} ${seed} ${pair}: floor with rates ${f.withRates}, whatever the rates ${f.exchangeable}, of ${f.moving} holes that move Δ (blind ${f.blind})\n`);
            continue;
          }
          if (mode !== 'sound') {
            const t = estimateTrial(dataset, sc, pair, ab, scale, truths.get(pair)!);
            trials.push(t);
            if (opts.record) appendFileSync(opts.record, JSON.stringify({ trial: t }) + '\n');
            process.stderr.write(`${dataset} ${sc.name} ${seed} ${pair}: Δ ${f4(t.trueDelta)} ${t.verdict} after ${t.judged} (blind ${t.blind}) [${f4(t.atVerdict.lo)}, ${f4(t.atVerdict.hi)}] at 0 [${f4(t.at0.lo)}, ${f4(t.at0.hi)}] design [${f4(t.design.lo)}, ${f4(t.design.hi)}] ${t.ms} ms\n`);
          }
          if (mode !== 'estimate' && scenario === 'hide' && seed === seeds[0]) {
            const s = soundTrial(dataset, sc, pair, ab, scale, truths.get(pair)!);
            sound.push(s);
            if (opts.record) appendFileSync(opts.record, JSON.stringify({ sound: s }) + '\n');
            process.stderr.write(`${dataset} sound ${pair}: impact ${s.impact} oracle ${s.oracleLow}-${s.oracleHigh} blind ${s.blind}\n`);
          }
          loads.push(loadavg()[0]);
        }
      }
    }
  }
  const out: string[] = [];
  const cover = (t: Trial, i: { lo: number; hi: number }) => i.lo <= t.trueDelta && t.trueDelta <= i.hi;
  if (trials.length) {
    out.push('Estimate mode: nDCG@10, Δ = b - a, judged in the sampling queue until the 95 % interval gives a verdict');
    out.push(
      table([
        ['dataset', 'scenario', 'seed', 'a / b', 'true Δ', 'verdict', 'judged', 'blind (sound)', 'ratio', 'floor (within)', 'interval at verdict', 'at 0', 'design at verdict'],
        ...trials.map((t) => [
          t.dataset,
          t.scenario,
          String(t.seed),
          t.pair,
          f4(t.trueDelta),
          t.verdict + (t.wrong ? ' WRONG' : ''),
          String(t.judged),
          String(t.blind),
          t.blind ? (t.judged / t.blind).toFixed(3) : '-',
          t.floor !== undefined && Number.isFinite(t.floor) ? String(t.floor) : '-',
          `[${f4(t.atVerdict.lo)}, ${f4(t.atVerdict.hi)}]${cover(t, t.atVerdict) ? '' : ' miss'}`,
          `[${f4(t.at0.lo)}, ${f4(t.at0.hi)}]${cover(t, t.at0) ? '' : ' miss'}`,
          `[${f4(t.design.lo)}, ${f4(t.design.hi)}]${cover(t, t.design) ? '' : ' miss'} n=${t.design.sampled}`,
        ]),
      ]),
    );
    out.push('');
    out.push('Efficiency and calibration by scenario and dataset (goals: median ratio <= 0.25, max <= 0.5; coverage >= 90 %; wrong <= 1 in 48)');
    const groups = new Map<string, Trial[]>();
    for (const t of trials) {
      for (const k of [`${t.scenario}\t${t.dataset}`, `${t.scenario}\tall`]) groups.set(k, [...(groups.get(k) ?? []), t]);
    }
    groups.set('all\tall', trials);
    const rows = [['scenario', 'dataset', 'trials', 'median ratio', 'max ratio', 'near-ties median', 'median judged', 'covered at verdict', 'at 0', 'design at verdict', 'wrong verdicts', 'within / sign / undecided']];
    for (const [k, ts] of groups) {
      const [scenario, dataset] = k.split('\t');
      const ratios = ts.filter((t) => t.blind > 0).map((t) => t.judged / t.blind);
      const near = ts.filter((t) => Math.abs(t.trueDelta) < NEAR_TIE && t.blind > 0).map((t) => t.judged / t.blind);
      const pct = (n: number) => `${n}/${ts.length} (${((100 * n) / ts.length).toFixed(0)} %)`;
      rows.push([
        scenario,
        dataset,
        String(ts.length),
        median(ratios).toFixed(3),
        Math.max(...ratios).toFixed(3),
        near.length ? median(near).toFixed(3) : '-',
        String(median(ts.map((t) => t.judged))),
        pct(ts.filter((t) => cover(t, t.atVerdict)).length),
        pct(ts.filter((t) => cover(t, t.at0)).length),
        pct(ts.filter((t) => cover(t, t.design)).length),
        String(ts.filter((t) => t.wrong).length),
        `${ts.filter((t) => t.verdict === 'within').length} / ${ts.filter((t) => t.verdict === 'a better' || t.verdict === 'b better').length} / ${ts.filter((t) => t.verdict === 'undecided').length}`,
      ]);
    }
    out.push(table(rows));
    out.push('');
  }
  if (floors.length) {
    out.push('Floor mode: the fewest judgements to "within ±0.01" (withinFloor): knowing each cell\'s true rates, and for verdicts that hold whatever the rates');
    out.push(table([['dataset', 'scenario', 'seed', 'a / b', 'true Δ', 'holes moving Δ', 'blind (sound)', 'floor, rates known', 'floor, any rates', 'any rates / blind'], ...floors]));
    out.push('');
  }
  if (sound.length) {
    out.push('Sound mode (hide 30 %, first seed): judgements until settled over the top-10 pool; exact minimum where the oracle bounds meet');
    const rows = [['dataset', 'a / b', 'true Δ', 'impact', 'exact min (or bracket)', 'impact / min', 'blind', 'goal']];
    for (const s of sound) {
      const exact = s.oracleLow === s.oracleHigh;
      const ratio = s.impact / Math.max(1, s.oracleLow);
      const goal = Math.abs(s.trueDelta) >= 0.01 ? 1.15 : 1.3;
      rows.push([s.dataset, s.pair, f4(s.trueDelta), String(s.impact), exact ? String(s.oracleLow) : `${s.oracleLow}-${s.oracleHigh}`, `${ratio.toFixed(2)}${exact ? '' : ' (of the lower bound)'}`, String(s.blind), ratio <= goal ? `<= ${goal} met` : `<= ${goal} missed`]);
    }
    out.push(table(rows));
    // Why neither goal can hold on every pair (test/unit/bench/onlineFloor.test.ts): the best order on needleFamily.
    for (const [filler, what] of [[40, 'a near-tie'], [11, '|Δ| >= 0.01']] as const) {
      const family = needleFamily(6, filler);
      const fs = new HoleScorer('ndcg_cut.10', family.set.scale);
      const online = onlineMinimum(family.set, fs, family.truths);
      const exact = exactMinimum(family.set, fs, family.truths[0]);
      out.push(`needleFamily(6, ${filler}), ${what}: the best order that learns grades by judging needs ${online} judgements on average, the exact minimum is ${exact} on each truth (${(online / exact).toFixed(2)}x): every order exceeds that on some truth`);
    }
    out.push('');
  }
  const cpu = process.cpuUsage(cpu0);
  out.push(`${cpus().length} cores; wall ${((Date.now() - started) / 1000).toFixed(0)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`);
  process.stdout.write(out.join('\n') + '\n');
}

main();
