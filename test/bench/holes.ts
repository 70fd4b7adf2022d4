/**
 * bench:holes — simulates the judging loop with ground truth (issue 15). On SciFact and NFCorpus (test), a
 * seeded random 30 % of the qrels lines are hidden; the hidden grades are the judge (a document the qrels
 * never judged is non-relevant). For each pair of runs, the holes of their top-10 pool are judged one by one
 * until the comparison on nDCG@10 is settled (no judgement of the remaining holes can flip the sign of the
 * mean difference), in impact order (ImpactQueue) and in blind order (query by query as the Holes view
 * pools them, documents in a seeded shuffle, like its hash order). Prints how many judgements each needs.
 * Goal: impact order needs at most a quarter of blind order's judgements.
 *
 * Also printed, to show which holes decide and whether the goal is reachable at all: the holes by where they
 * sit (L/T/both: in the top 10 of the run that truly leads only, of the trailing run only, of both), the same
 * split of the holes impact order judged and how many of them were relevant, and "oracle ≥", a sound lower
 * bound on the judgements any order needs, even one that knows the hidden grades (oracleLowerBound).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { HoleScorer, ImpactQueue, prepareHoles, queryDelta, summarise, type HoleSet } from '../../src/core/eval/holes';
import { Qrels, readQrels } from '../../src/core/formats/qrels';
import { readRun, type Run } from '../../src/core/formats/run';
import { uniform } from '../../src/core/random';
import { oracleGreedy, oracleLowerBound, places, type Place } from './oracleBound';

const REPO = resolve(__dirname, '..', '..');
const SHARED = resolve(REPO, '..', 'shared');
const DIR = join(REPO, '.bench', 'holes');
const SEED = Number(process.env.BENCH_SEED ?? 15);
const HIDE = 0.3;
const MEASURE = process.env.BENCH_MEASURE ?? 'ndcg_cut.10';

/** A run of ours, made with the CLI as `npm run demo` does (cached in .bench/holes). */
function ours(dataset: string, name: string, args: string[]): string {
  const out = join(DIR, `${dataset}.${name}.trec`);
  if (!existsSync(out)) {
    const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'run', '--dataset', join(SHARED, 'datasets', dataset), '--split', 'test', '--cache', join(REPO, '.cache', 'irw'), '--top-k', '100', '--out', out, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`irw run ${dataset} ${name} failed`);
  }
  return out;
}

/** Qrels with a seeded 30 % of lines hidden, and the hidden grades by "qid\tdocid". */
function hide(qrels: Qrels): { visible: Qrels; hidden: Map<string, number> } {
  const rand = uniform(SEED);
  const kept: { qid: string; docid: string; grade: number }[] = [];
  const hidden = new Map<string, number>();
  for (const qid of qrels.queryIds()) {
    const j = qrels.judgements(qid)!;
    j.docs.forEach((docid, i) => {
      if (rand() < HIDE) hidden.set(`${qid}\t${docid}`, j.grades[i]);
      else kept.push({ qid, docid, grade: j.grades[i] });
    });
    // A query whose every line is hidden keeps no line; keep it in the set with a judged non-relevant dummy.
    if (!kept.some((k) => k.qid === qid)) kept.push({ qid, docid: '\u0000none', grade: 0 });
  }
  return { visible: Qrels.fromJudgements(kept), hidden };
}

const truth = (hidden: Map<string, number>, qid: string, docid: string): number => Math.max(0, hidden.get(`${qid}\t${docid}`) ?? 0);

interface Tally {
  judged: number;
  /** Judged holes by place, and how many of them the judge found relevant. */
  byPlace: Record<Place, number>;
  relevant: number;
}

function impactOrder(set: HoleSet, s: HoleScorer, hidden: Map<string, number>, where: Place[][]): Tally {
  const queue = new ImpactQueue(set, 0, 1, s, { seed: SEED });
  const tally: Tally = { judged: 0, byPlace: { leader: 0, trailer: 0, both: 0 }, relevant: 0 };
  while (queue.comparison().verdict === 'open') {
    const item = queue.next();
    if (!item) break;
    const g = truth(hidden, item.qid, item.docId);
    tally.byPlace[where[item.query][item.hole]]++;
    if (g > 0) tally.relevant++;
    queue.judge(item.query, item.hole, g);
  }
  tally.judged = queue.judged;
  return tally;
}

function blindOrder(set: HoleSet, s: HoleScorer, hidden: Map<string, number>): number {
  const rand = uniform(SEED);
  const deltas = set.queries.map((q) => queryDelta(q, 0, 1, s));
  let judged = 0;
  for (let qi = 0; qi < set.queries.length; qi++) {
    const q = set.queries[qi];
    const order = q.holes.map((_, h) => [rand(), h] as const).sort((x, y) => x[0] - y[0]);
    for (const [, h] of order) {
      if (summarise(set, 0, 1, s.name, deltas).verdict === 'settled') return judged;
      q.grades[h] = truth(hidden, q.qid, q.holes[h]);
      judged++;
      deltas[qi] = queryDelta(q, 0, 1, s);
    }
  }
  return judged;
}

function main(): void {
  mkdirSync(DIR, { recursive: true });
  const sf = join(SHARED, 'runs', 'scifact');
  const cases: { dataset: string; pairs: [string, string, string, string][] }[] = [
    {
      dataset: 'scifact',
      pairs: [
        ['ours BM25', ours('scifact', 'bm25', []), 'MiniLM (shared)', join(sf, 'minilm-faiss.knarfthekant.trec')],
        ['ours BM25', ours('scifact', 'bm25', []), 'rank_bm25 (shared)', join(sf, 'bm25okapi.knarfthekant.trec')],
        ['MiniLM (shared)', join(sf, 'minilm-faiss.knarfthekant.trec'), 'rank_bm25 (shared)', join(sf, 'bm25okapi.knarfthekant.trec')],
      ],
    },
    {
      dataset: 'nfcorpus',
      pairs: [
        ['ours BM25', ours('nfcorpus', 'bm25', []), 'BM25 multifield', ours('nfcorpus', 'bm25-multifield', ['--fields', 'multifield'])],
        ['ours BM25', ours('nfcorpus', 'bm25', []), 'BM25+RM3', ours('nfcorpus', 'bm25-rm3', ['--rm3'])],
        ['ours BM25', ours('nfcorpus', 'bm25', []), 'BM25 k1=1.2 b=0.75', ours('nfcorpus', 'bm25-k1.2-b.75', ['--k1', '1.2', '--b', '0.75'])],
      ],
    },
  ];
  const rows: string[][] = [['dataset', 'a', 'b', 'true Δ', 'Δ visible', 'holes', 'L/T/both', 'impact', 'judged L/T/both rel', 'blind', 'oracle ≥', 'oracle greedy', 'impact/blind', 'oracle/blind', 'ms']];
  for (const c of cases) {
    const full = readQrels(join(SHARED, 'datasets', c.dataset, 'qrels', 'test.tsv'));
    const { visible, hidden } = hide(full);
    for (const [la, pa, lb, pb] of c.pairs) {
      const runs: Run[] = [readRun(pa), readRun(pb)];
      const t0 = Date.now();
      const fresh = () => prepareHoles(visible, runs, { poolDepth: 10 });
      const set = fresh();
      const s = new HoleScorer(MEASURE, prepareHoles(full, runs).scale);
      const start = summarise(set, 0, 1, s.name, set.queries.map((q) => queryDelta(q, 0, 1, s)));
      const trueSet = prepareHoles(full, runs, { poolDepth: 0 });
      const trueDelta = summarise(trueSet, 0, 1, s.name, trueSet.queries.map((q) => queryDelta(q, 0, 1, s))).mean;
      const leader = trueDelta >= 0 ? 0 : 1;
      const where = places(set, leader);
      const count = (p: Place) => where.reduce((n, w) => n + w.filter((x) => x === p).length, 0);
      const tally = impactOrder(set, s, hidden, where);
      const impact = tally.judged;
      const blind = blindOrder(fresh(), s, hidden);
      const judge = (qid: string, docId: string) => truth(hidden, qid, docId);
      const oracle = oracleLowerBound(fresh(), s, judge, leader);
      const greedy = oracleGreedy(fresh(), s, judge, leader);
      const holes = start.queries.reduce((n, d) => n + d.holes, 0);
      const ratio = (x: number) => (blind ? (x / blind).toFixed(3) : '-');
      const { leader: jl, trailer: jt, both: jb } = tally.byPlace;
      rows.push([c.dataset, la, lb, trueDelta.toFixed(4), start.mean.toFixed(4), String(holes), `${count('leader')}/${count('trailer')}/${count('both')}`, String(impact), `${jl}/${jt}/${jb} ${tally.relevant}`, String(blind), String(oracle), String(greedy), ratio(impact), ratio(oracle), String(Date.now() - t0)]);
      process.stderr.write(`${rows[rows.length - 1].join(' | ')}\n`);
    }
  }
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  process.stdout.write(`bench:holes — ${MEASURE}, 30 % of test qrels hidden (seed ${SEED}), top-10 pool of each pair; judgements until settled\n`);
  process.stdout.write(rows.map((r) => r.map((x, j) => x.padEnd(widths[j])).join('  ')).join('\n') + '\n');
  process.stdout.write(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
}

main();
