/**
 * BM25 benchmark (`npm run bench:bm25 [-- --sizes 1000000,2000000,5000000 --queries 1000 --bm25s DIR --skip scale]`).
 * Prints, with the load average next to every table (the machine may be shared):
 *  1. ours and bm25s side by side on SciFact and NFCorpus (bm25s: numpy backend, method lucene, k1 0.9, b 0.4,
 *     its English stopwords and PyStemmer; run by test/bench/bm25sPeer.py from the bm25s source folder given by
 *     --bm25s or BM25S_PATH, with --python or PYTHON, default /usr/bin/python3; skipped with a note when absent):
 *     a. cold whole process (read, analyse, index, top-1000 for every test query, write the run; ours is
 *        dist/cli.js run as the `irw` command, through its shebang), best and median of 5, wall and CPU time,
 *        in paired rounds: ours (threads as run.ts chooses), ours with --threads 1 and --threads 2 (search, and
 *        the corpus analysed on two threads: IRW_BM25_THREADS=2) and the peer, one after the other in each
 *        round; ratio = ours / bm25s, the median of the rounds' ratios beside (goal on SciFact: <= 0.5);
 *     b. in one fresh process each: index build, warm queries/s at top-10 and top-1000 (after a warm-up pass,
 *        queries already analysed; ours on one thread and on two: parallelSearch.ts), peak RSS; ratios;
 *  2. tokenizer: the hand-written UAX#29 tokenizer against Intl.Segmenter on SciFact's text;
 *  3. scale: synthetic corpora (test/helpers/syntheticBeir.ts) indexed in a fresh process each, on one thread
 *     and on two (the corpus analysed by a worker too): build time, peak RSS, index size on disk (cache file),
 *     load from cache, queries/s at top-10 and top-1000 on one thread and on two.
 * Needs a build (`npm run build` is run by the npm script). Figures depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { forEachCorpusDocSync } from '../../src/core/formats/beir';
import { Spans, tokenize } from '../../src/core/retrieval/analysis/tokenizer';
import { createAnalyzer } from '../../src/core/retrieval/analysis/analyzer';
import { cacheFile, cacheKey, loadIndex, saveIndex } from '../../src/core/retrieval/bm25/cache';
import { SearchPool } from '../../src/core/retrieval/bm25/parallelSearch';
import { buildIndex, searchWorkerEntry } from '../../src/core/retrieval/bm25/run';
import { Searcher, bagOfWords, resolveQuery, type ResolvedQuery } from '../../src/core/retrieval/bm25/search';
import type { Bm25Index } from '../../src/core/retrieval/bm25/index';
import { readQueries } from '../../src/core/formats/beir';
import { readQrels } from '../../src/core/formats/qrels';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';
import { CLOCK_TICKS, procStat } from './busy';

const ROOT = resolve(__dirname, '../..');
const DATASETS = resolve(ROOT, '../shared/datasets');
const WORK = join(ROOT, '.bench', 'bm25');
const PEER = join(__dirname, 'bm25sPeer.py');

function table(rows: (string | number)[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((x, c) => String(x).padStart(widths[c])).join('  ')).join('\n');
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const load = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
const ratio = (a: number, b: number | undefined) => (b === undefined ? '-' : (a / b).toFixed(2));

interface Peer {
  python: string;
  env: NodeJS.ProcessEnv;
}

/** The bm25s peer, or why it is skipped. */
function findPeer(dir: string | undefined, python: string): Peer | string {
  if (!dir) return 'bm25s skipped: give its source folder with --bm25s DIR or BM25S_PATH (a checkout of xhluca/bm25s)';
  const env = { ...process.env, PYTHONPATH: resolve(dir) };
  const r = spawnSync(python, ['-c', 'import bm25s, Stemmer, numpy, scipy'], { env, encoding: 'utf8' });
  if (r.status !== 0) return `bm25s skipped: ${python} cannot import bm25s, Stemmer, numpy and scipy from ${dir}: ${(r.stderr || String(r.error)).trim().split('\n').pop()}`;
  return { python, env };
}

/**
 * Wall time of a whole process, its CPU time (user + system: less sensitive than wall time to a shared machine's
 * load) and its peak RSS, from GNU time.
 */
function timed(cmd: string, args: string[], env?: NodeJS.ProcessEnv): { ms: number; cpuMs: number; rss: number } {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'IRW_TIME %M %U %S', cmd, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  const [, rss, user, sys] = /IRW_TIME (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr)!;
  return { ms, cpuMs: (Number(user) + Number(sys)) * 1000, rss: Number(rss) * 1024 };
}

interface Warm {
  buildMs: number;
  qps10: number;
  qps1000: number;
  /** Ours: the same on two threads. */
  qps10x2?: number;
  qps1000x2?: number;
  /** Median of the paired rounds' ratios, two threads / one (oneVersusTwo). */
  ratio10?: number;
  ratio1000?: number;
  /** During the timed passes, the most the rest of the machine and the hypervisor took (cores). */
  beside2?: { others: number; steal: number };
  /** machineCeiling(): two threads / one of a loop that touches no memory. */
  ceiling2?: number;
  queries: number;
  rss: number;
}

/** The machine's CPU ticks so far (every core): busy (not idle or waiting on I/O) and stolen by the hypervisor. */
function machineTicks(): { busy: number; steal: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: steal is time this VM's cores were given to others.
  return { busy: f[0] + f[1] + f[2] + f[5] + f[6], steal: f[7] ?? 0 };
}

interface Pass {
  qps: number;
  cpuQps: number;
  /** In cores, during the pass: every other process's CPU, and the hypervisor's (steal). */
  others: number;
  steal: number;
}

const SEARCH_PARAMS = { k1: 0.9, b: 0.4 };

/** One timed pass of `all` through `pool` at top-k, with what the rest of the machine took meanwhile. */
async function timedPass(pool: SearchPool, index: Bm25Index, all: ResolvedQuery[], k: number): Promise<Pass> {
  const t = performance.now();
  const c = process.cpuUsage();
  const m = machineTicks();
  await pool.search(index, SEARCH_PARAMS, all, k, () => {});
  const after = machineTicks();
  const u = process.cpuUsage(c);
  const s = (performance.now() - t) / 1000;
  const own = (u.user + u.system) / 1e6;
  const cores = (ticks: number) => ticks / CLOCK_TICKS / s;
  return { qps: all.length / s, cpuQps: all.length / own, others: Math.max(0, cores(after.busy - m.busy) - own / s), steal: cores(after.steal - m.steal) };
}

/** The middle value (the upper one of an even count), undefined for none. */
const median = (xs: readonly number[]): number | undefined => (xs.length ? [...xs].sort((a, b) => a - b)[xs.length >> 1] : undefined);

/** `queries` repeated until there are at least `min`. */
const atLeast = (queries: ResolvedQuery[], min: number): ResolvedQuery[] => Array.from({ length: Math.ceil(min / queries.length) }, () => queries).flat();

/**
 * Queries per second (wall and CPU) of `queries` searched through a SearchPool of `threads` (one: this thread
 * alone, the same code), after a warm-up pass; the query set is repeated until a pass holds `min` queries.
 */
async function poolRate(index: Bm25Index, queries: ResolvedQuery[], k: number, threads: number, min = 20000): Promise<Pass> {
  const all = atLeast(queries, min);
  const pool = new SearchPool(threads, searchWorkerEntry()!);
  try {
    await pool.ready;
    await pool.search(index, SEARCH_PARAMS, all, k, () => {}); // warm-up, on every thread
    return await timedPass(pool, index, all, k);
  } finally {
    pool.close();
  }
}

/** Rounds of paired passes (one thread, two threads) in warmChild. */
const PAIRED_ROUNDS = 5;

/**
 * One thread against two at top-k: both pools warmed up, then PAIRED_ROUNDS rounds of one pass each, in the
 * order 1-2, 2-1, 1-2, … so that a drift of the machine's speed falls on both alike; the median of each and the
 * median of the rounds' own ratios. Measured in one pass each (3,000 and later 20,000 queries), the ratio ranged
 * 1.34-2.29x over nine children on a quiet machine, with the other processes and the hypervisor taking under
 * 0.02 of a core: one thread's rate alone moved 6,194-8,295 q/s from one process to the next, as did the index
 * build's time (657-942 ms), i.e. this VM's speed drifts over seconds.
 */
async function oneVersusTwo(index: Bm25Index, queries: ResolvedQuery[], k: number, min = 10000): Promise<{ one: number; two: number; ratio: number; others: number; steal: number }> {
  const all = atLeast(queries, min);
  const pools = [new SearchPool(1, searchWorkerEntry()!), new SearchPool(2, searchWorkerEntry()!)];
  try {
    for (const pool of pools) {
      await pool.ready;
      await pool.search(index, SEARCH_PARAMS, all, k, () => {}); // warm-up, on every thread
    }
    const one: Pass[] = [];
    const two: Pass[] = [];
    for (let r = 0; r < PAIRED_ROUNDS; r++) {
      for (const p of r % 2 === 0 ? [0, 1] : [1, 0]) (p === 0 ? one : two).push(await timedPass(pools[p], index, all, k));
    }
    return {
      one: median(one.map((x) => x.qps))!,
      two: median(two.map((x) => x.qps))!,
      ratio: median(two.map((x, r) => x.qps / one[r].qps))!,
      others: Math.max(...[...one, ...two].map((x) => x.others)),
      steal: Math.max(...[...one, ...two].map((x) => x.steal)),
    };
  } finally {
    for (const pool of pools) pool.close();
  }
}

/**
 * This machine's own ceiling for two threads: a loop of arithmetic that touches no memory, on one worker and
 * then two at once for a second each, in PAIRED_ROUNDS rounds; the median of the rounds' ratios of work done.
 * Where it is near 2 the cores are whole, and what two search threads lose is the search's (shared caches and
 * memory, this thread handing on the worker's hits).
 */
async function machineCeiling(): Promise<number> {
  const loop = `const { parentPort } = require('node:worker_threads');
parentPort.on('message', (ms) => { let n = 0; let x = 1.0001; const end = performance.now() + ms;
  while (performance.now() < end) { for (let i = 0; i < 1e5; i++) x = x * 1.0000001 + 1e-9; n++; }
  parentPort.postMessage(n + (x > 1e300 ? 1 : 0)); });`;
  const workers = [new Worker(loop, { eval: true }), new Worker(loop, { eval: true })];
  const work = async (k: number, ms: number) => (await Promise.all(workers.slice(0, k).map((w) => new Promise<number>((done) => {
    w.once('message', done);
    w.postMessage(ms);
  })))).reduce((a, b) => a + b, 0);
  try {
    await work(2, 300); // warm-up
    const ratios: number[] = [];
    for (let r = 0; r < PAIRED_ROUNDS; r++) ratios.push((await work(2, 1000)) / (await work(1, 1000)));
    return median(ratios)!;
  } finally {
    for (const w of workers) await w.terminate();
  }
}

/** Ours, warm, in a fresh process: prints a Warm as JSON. */
async function warmChild(dataset: string): Promise<void> {
  const analyzer = await createAnalyzer();
  const t0 = performance.now();
  const index = await buildIndex(join(dataset, 'corpus.jsonl'), analyzer, 'flat', {}, null);
  const buildMs = performance.now() - t0;
  const texts = readQueries(join(dataset, 'queries.jsonl'));
  const qs = readQrels(join(dataset, 'qrels', 'test.tsv'))
    .queryIds()
    .map((q) => resolveQuery(index, bagOfWords(analyzer.analyze(texts.get(q)!.text))));
  const at10 = await oneVersusTwo(index, qs, 10);
  const at1000 = await oneVersusTwo(index, qs, 1000);
  const w: Warm = {
    buildMs,
    qps10: at10.one,
    qps1000: at1000.one,
    qps10x2: at10.two,
    qps1000x2: at1000.two,
    ratio10: at10.ratio,
    ratio1000: at1000.ratio,
    beside2: { others: Math.max(at10.others, at1000.others), steal: Math.max(at10.steal, at1000.steal) },
    ceiling2: await machineCeiling(),
    queries: qs.length,
    rss: process.resourceUsage().maxRSS * 1024,
  };
  process.stdout.write(JSON.stringify(w) + '\n');
}

function lastJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

type Timed = { ms: number; cpuMs: number; rss: number };

function sideBySide(peer: Peer | string, rounds: number): void {
  const cli = join(ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  if (typeof peer === 'string') console.log(`\n${peer}`);
  for (const name of ['scifact', 'nfcorpus']) {
    const dataset = join(DATASETS, name);
    // Ours as the `irw` command runs: the launcher itself, through its shebang and the Node options it gives,
    // with this Node first on PATH.
    const irw = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, ...extra, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` });
    const variants: { label: string; args: string[]; env: NodeJS.ProcessEnv }[] = [
      { label: 'cold whole process (threads as irw chooses)', args: [], env: irw() },
      { label: 'cold, --threads 1', args: ['--threads', '1'], env: irw({ IRW_BM25_THREADS: '1' }) },
      // Two threads for the search and for the corpus's analysis (whatever its size).
      { label: 'cold, --threads 2', args: ['--threads', '2'], env: irw({ IRW_BM25_THREADS: '2' }) },
    ];
    const ours: Timed[][] = variants.map(() => []);
    const theirs: Timed[] = [];
    const loads: number[] = [];
    for (let i = 0; i < rounds; i++) {
      loads.push(loadavg()[0]);
      variants.forEach((v, j) => ours[j].push(timed(cli, ['run', '--dataset', dataset, '--out', join(WORK, `${name}.${j}.trec`), ...v.args], v.env)));
      if (typeof peer !== 'string') theirs.push(timed(peer.python, [PEER, 'cold', dataset, join(WORK, `${name}.bm25s.trec`)], peer.env));
    }
    loads.push(loadavg()[0]);
    const best = (xs: number[]) => (xs.length ? Math.min(...xs) : undefined);
    const peak = (xs: { rss: number }[]) => (xs.length ? Math.max(...xs.map((x) => x.rss)) : undefined);
    /** Median of the rounds' own ratios (ours / bm25s of the same round): steadier than a ratio of medians on a shared machine. */
    const paired = (xs: Timed[], key: 'ms' | 'cpuMs') => (theirs.length ? median(xs.map((x, r) => x[key] / theirs[r][key]))!.toFixed(2) : '-');
    const w = lastJson<Warm>(spawnSync(process.execPath, ['--import', 'tsx', __filename, '--warm', dataset], { cwd: ROOT, encoding: 'utf8' }).stdout);
    let p: Warm | undefined;
    if (typeof peer !== 'string') {
      const r = spawnSync(peer.python, [PEER, 'warm', dataset], { env: peer.env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      p = lastJson<Warm>(r.stdout);
    }
    const s = (ms: number | undefined) => (ms === undefined ? '-' : (ms / 1000).toFixed(2));
    const n = (x: number | undefined, digits = 0) => (x === undefined ? '-' : x.toFixed(digits));
    const wall = theirs.map((x) => x.ms);
    const cpu = theirs.map((x) => x.cpuMs);
    console.log(
      `\n1. ${name}: ours vs bm25s, ${rounds} paired rounds (${w.queries} queries for ours, ${p?.queries ?? '-'} for bm25s, which drops queries with no indexed term) — ` +
        `${availableParallelism()} cores, load average (1 min) ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} during the rounds, now ${load()}`,
    );
    const rows: (string | number)[][] = [['figure', 'ours', 'bm25s', 'ratio (of medians)', 'ratio, median of the rounds']];
    variants.forEach((v, j) => {
      const xs = ours[j];
      rows.push([`${v.label}, wall best / median (s)`, `${s(best(xs.map((x) => x.ms)))} / ${s(median(xs.map((x) => x.ms)))}`, `${s(best(wall))} / ${s(median(wall))}`, ratio(median(xs.map((x) => x.ms))!, median(wall)), paired(xs, 'ms')]);
      rows.push([`  CPU (user + system) best / median (s)`, `${s(best(xs.map((x) => x.cpuMs)))} / ${s(median(xs.map((x) => x.cpuMs)))}`, `${s(best(cpu))} / ${s(median(cpu))}`, ratio(median(xs.map((x) => x.cpuMs))!, median(cpu)), paired(xs, 'cpuMs')]);
    });
    rows.push(
      ['cold peak RSS (MB)', mb(peak(ours[0])!), theirs.length ? mb(peak(theirs)!) : '-', ratio(peak(ours[0])!, peak(theirs)), ''],
      ['index build (s)', s(w.buildMs), s(p?.buildMs), ratio(w.buildMs, p?.buildMs), ''],
      ['warm queries/s, top-10, one thread', n(w.qps10), n(p?.qps10), ratio(w.qps10, p?.qps10), ''],
      ['warm queries/s, top-1000, one thread', n(w.qps1000), n(p?.qps1000), ratio(w.qps1000, p?.qps1000), ''],
      ['warm queries/s, top-10, two threads (/ one: median of the paired rounds)', `${n(w.qps10x2)} (${n(w.ratio10, 2)}x)`, n(p?.qps10), ratio(w.qps10x2!, p?.qps10), ''],
      ['warm queries/s, top-1000, two threads (/ one: median of the paired rounds)', `${n(w.qps1000x2)} (${n(w.ratio1000, 2)}x)`, n(p?.qps1000), ratio(w.qps1000x2!, p?.qps1000), ''],
      ['  meanwhile, cores taken by other processes / by the hypervisor (steal), at most', w.beside2 ? `${w.beside2.others.toFixed(2)} / ${w.beside2.steal.toFixed(2)}` : '-', '', '', ''],
      ['  this machine\'s ceiling: two threads / one of a loop touching no memory', w.ceiling2 === undefined ? '-' : `${w.ceiling2.toFixed(2)}x`, '', '', ''],
      ['warm process peak RSS (MB)', mb(w.rss), p ? mb(p.rss) : '-', ratio(w.rss, p?.rss), ''],
    );
    console.log(table(rows));
  }
}

function tokenizers(): void {
  const texts: string[] = [];
  forEachCorpusDocSync(join(DATASETS, 'scifact', 'corpus.jsonl'), (d) => texts.push(`${d.title} ${d.text}`));
  const chars = texts.reduce((a, t) => a + t.length, 0);
  const spans = new Spans();
  const seg = new Intl.Segmenter('en', { granularity: 'word' });
  const time = (fn: () => number) => {
    fn(); // warm-up
    const t = performance.now();
    const n = fn();
    return { ms: performance.now() - t, n };
  };
  const own = time(() => texts.reduce((a, t) => a + tokenize(t, spans), 0));
  const intl = time(() => {
    let n = 0;
    for (const t of texts) for (const s of seg.segment(t)) if (s.isWordLike) n++;
    return n;
  });
  console.log(`\n2. Tokenizer on SciFact (${(chars / 1e6).toFixed(1)} M characters) — ${load()}`);
  console.log(table([
    ['tokenizer', 'ms', 'M chars/s', 'tokens'],
    ['hand-written UAX#29', own.ms.toFixed(0), (chars / own.ms / 1e3).toFixed(1), own.n],
    ['Intl.Segmenter', intl.ms.toFixed(0), (chars / intl.ms / 1e3).toFixed(1), intl.n],
  ]));
}

/** One scale point, in a fresh process so its peak RSS is its own: prints a JSON line. */
async function scaleChild(dir: string, queries: number): Promise<void> {
  const analyzer = await createAnalyzer();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const m0 = mainThreadCpuMs();
  const index = await buildIndex(join(dir, 'corpus.jsonl'), analyzer, 'flat');
  const buildMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const buildCpuMs = (c1.user + c1.system) / 1000;
  const buildMainCpuMs = m0 === null ? null : mainThreadCpuMs()! - m0;
  const key = cacheKey('bench', analyzer.id, 'flat');
  const file = cacheFile(join(dir, 'cache'), key);
  saveIndex(file, key, index);
  const buildRss = process.resourceUsage().maxRSS * 1024;
  const qs = [...readQueries(join(dir, 'queries.jsonl')).values()].slice(0, queries).map((q) => resolveQuery(index, bagOfWords(analyzer.analyze(q.text))));
  // The first pruned search computes the competitive impacts (one pass over the postings): timed on its own.
  const t2 = performance.now();
  new Searcher(index, { k1: 0.9, b: 0.4 }).search(qs[0], 10);
  const firstMs = performance.now() - t2;
  // Queries per wall second and per CPU second (on a loaded machine the wall clock says more about the
  // neighbours), on as many threads as the build had; each thread's first pass (the warm-up) computes its impacts.
  const threads = process.env.IRW_BM25_THREADS === '1' ? 1 : 2;
  const { qps: qps10, cpuQps: cpuQps10 } = await poolRate(index, qs, 10, threads, qs.length);
  const { qps: qps1000, cpuQps: cpuQps1000 } = await poolRate(index, qs, 1000, threads, qs.length);
  const postings = index.fieldIndexes[0].docs.length;
  const terms = index.fieldIndexes[0].terms.length;
  process.stdout.write(JSON.stringify({ buildMs, buildCpuMs, buildMainCpuMs, buildRss, firstMs, qps10, qps1000, cpuQps10, cpuQps1000, queries: qs.length, bytes: statSync(file).size, terms, postings }) + '\n');
}

/**
 * CPU time of this process's main thread (Linux: /proc), or null. Beside the process's CPU time
 * (worker, compiler and GC threads included) it shows the build's critical path, which on a shared machine
 * says more than the wall clock about what a quiet one would take.
 */
function mainThreadCpuMs(): number | null {
  try {
    return (procStat(`/proc/self/task/${process.pid}/stat`).ticks * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** Loads a scale point's cached index in a fresh process: prints the time as a JSON line. */
function loadChild(dir: string): void {
  const key = cacheKey('bench', 'en-porter-v2', 'flat');
  const t = performance.now();
  const c = process.cpuUsage();
  const file = cacheFile(join(dir, 'cache'), key);
  const index = loadIndex(file, key);
  if (typeof index === 'string') throw new Error(`cache ${index}: ${statSync(file).size} bytes`);
  const u = process.cpuUsage(c);
  process.stdout.write(JSON.stringify({ loadMs: performance.now() - t, loadCpuMs: (u.user + u.system) / 1000, rss: process.resourceUsage().maxRSS * 1024 }) + '\n');
}

function scale(sizes: number[], queries: number): void {
  console.log(
    `\n3. Scale (synthetic corpora: ~100 words/doc text + 4-12 word title, Zipf vocabulary of 200k pseudo-words; ${queries} queries of 6 words; ` +
      `${availableParallelism()} cores; each size on one thread, then on two: the corpus analysed by a worker too (IRW_BM25_THREADS), the queries searched on two threads)`,
  );
  // CPU seconds next to wall seconds: on a loaded machine the wall clock says more about the neighbours.
  const rows: (string | number)[][] = [['docs', 'threads', 'build s', 'build CPU s (main thread)', 'build peak RSS MB', 'index MB', 'load s (CPU)', 'load RSS MB', 'terms', 'postings', 'first query s', 'q/s top-10 (per CPU s)', 'q/s top-1000 (per CPU s)', 'load average']];
  for (const n of sizes) for (const threads of ['1', '2']) {
    const dir = join(WORK, `synthetic-${n}`);
    if (!existsSync(join(dir, 'qrels', 'test.tsv'))) writeSyntheticBeir(dir, { docs: n, queries: Math.max(queries, 1000), seed: 7 });
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
    const env = { ...process.env, IRW_BM25_THREADS: threads };
    const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', dir, '--queries', String(queries)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24, env });
    if (r.status !== 0) {
      rows.push([n, threads, `failed: ${r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 200)}`, '', '', '', '', '', '', '', '', '', '', load()]);
      console.log(table(rows));
      continue;
    }
    const m = lastJson<Record<string, number>>(r.stdout);
    const lr = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--load', dir], { cwd: ROOT, encoding: 'utf8' });
    const l = lr.status === 0 ? lastJson<Record<string, number>>(lr.stdout) : null;
    const loadCell = l ? `${(l.loadMs / 1000).toFixed(2)} (${(l.loadCpuMs / 1000).toFixed(2)})` : `failed: ${lr.stderr.trim().split('\n').find((x) => /Error/.test(x))?.slice(0, 80) ?? ''}`;
    rows.push([n, threads, (m.buildMs / 1000).toFixed(1), `${(m.buildCpuMs / 1000).toFixed(1)} (${m.buildMainCpuMs === null ? '-' : (m.buildMainCpuMs / 1000).toFixed(1)})`, mb(m.buildRss), mb(m.bytes), loadCell, l ? mb(l.rss) : '-', m.terms, m.postings, (m.firstMs / 1000).toFixed(2), `${m.qps10.toFixed(0)} (${m.cpuQps10.toFixed(0)})`, `${m.qps1000.toFixed(0)} (${m.cpuQps1000.toFixed(0)})`, loadavg().map((x) => x.toFixed(2)).join(' ')]);
    console.log(table(rows));
    console.log('');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000000,2000000,5000000' },
      queries: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '5' },
      bm25s: { type: 'string', default: process.env.BM25S_PATH },
      python: { type: 'string', default: process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3') },
      child: { type: 'string' },
      warm: { type: 'string' },
      load: { type: 'string' },
      skip: { type: 'string', default: '' },
    },
  });
  if (values.child) return scaleChild(values.child, Number(values.queries));
  if (values.warm) return warmChild(values.warm);
  if (values.load) return loadChild(values.load);
  mkdirSync(WORK, { recursive: true });
  console.log(`BM25 benchmark — ${new Date().toISOString()}, Node ${process.version}; ${load()}; figures are noisy on a shared machine`);
  const skip = values.skip.split(',');
  if (!skip.includes('peer')) sideBySide(findPeer(values.bm25s, values.python), Number(values.rounds));
  if (!skip.includes('tokenizer')) tokenizers();
  if (!skip.includes('scale')) scale(values.sizes.split(',').map(Number), Number(values.queries));
}

void main();
