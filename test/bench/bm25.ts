/**
 * BM25 benchmark (`npm run bench:bm25 [-- --sizes 1000000,2000000,5000000 --queries 1000 --bm25s DIR --skip scale]`).
 * Prints, with the load average next to every table (the machine may be shared):
 *  1. ours and bm25s side by side on SciFact and NFCorpus (bm25s: numpy backend, method lucene, k1 0.9, b 0.4,
 *     its English stopwords and PyStemmer; run by test/bench/bm25sPeer.py from the bm25s source folder given by
 *     --bm25s or BM25S_PATH, with --python or PYTHON, default /usr/bin/python3; skipped with a note when absent):
 *     a. cold whole process (read, analyse, index, top-1000 for every test query, write the run; ours is
 *        dist/cli.js run as the `irw` command, through its shebang), best and median of 5, alternating ours
 *        (one or two threads as run.ts chooses), ours forced to analyse the corpus on one and on two threads
 *        (IRW_BM25_THREADS) and the peer; ratio = ours / bm25s (goal on SciFact: <= 0.5);
 *     b. in one fresh process each: index build, warm queries/s at top-10 and top-1000 (after a warm-up pass,
 *        queries already analysed), peak RSS; ratios ours / bm25s;
 *  2. tokenizer: the hand-written UAX#29 tokenizer against Intl.Segmenter on SciFact's text;
 *  3. scale: synthetic corpora (test/helpers/syntheticBeir.ts) indexed in a fresh process each: build time,
 *     peak RSS, index size on disk (cache file), load from cache, queries/s at top-10 and top-1000.
 * Needs a build (`npm run build` is run by the npm script). Figures depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { forEachCorpusDocSync } from '../../src/core/formats/beir';
import { Spans, tokenize } from '../../src/core/retrieval/analysis/tokenizer';
import { createAnalyzer } from '../../src/core/retrieval/analysis/analyzer';
import { cacheFile, cacheKey, loadIndex, saveIndex } from '../../src/core/retrieval/bm25/cache';
import { buildIndex } from '../../src/core/retrieval/bm25/run';
import { Searcher, bagOfWords } from '../../src/core/retrieval/bm25/search';
import { readQueries } from '../../src/core/formats/beir';
import { readQrels } from '../../src/core/formats/qrels';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';

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
  queries: number;
  rss: number;
}

/** Ours, warm, in a fresh process: prints a Warm as JSON. */
async function warmChild(dataset: string): Promise<void> {
  const analyzer = await createAnalyzer();
  const t0 = performance.now();
  const index = await buildIndex(join(dataset, 'corpus.jsonl'), analyzer, 'flat');
  const buildMs = performance.now() - t0;
  const texts = readQueries(join(dataset, 'queries.jsonl'));
  const qs = readQrels(join(dataset, 'qrels', 'test.tsv')).queryIds().map((q) => bagOfWords(analyzer.analyze(texts.get(q)!.text)));
  const searcher = new Searcher(index, { k1: 0.9, b: 0.4 });
  const rate = (k: number) => {
    for (const q of qs) searcher.search(q, k); // warm-up
    const t = performance.now();
    for (const q of qs) searcher.search(q, k);
    return qs.length / ((performance.now() - t) / 1000);
  };
  const w: Warm = { buildMs, qps10: rate(10), qps1000: rate(1000), queries: qs.length, rss: process.resourceUsage().maxRSS * 1024 };
  process.stdout.write(JSON.stringify(w) + '\n');
}

function lastJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').pop()!) as T;
}

function sideBySide(peer: Peer | string, rounds: number): void {
  const cli = join(ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  if (typeof peer === 'string') console.log(`\n${peer}`);
  for (const name of ['scifact', 'nfcorpus']) {
    const dataset = join(DATASETS, name);
    const ours: { ms: number; cpuMs: number; rss: number }[] = [];
    // The same run with the corpus analysed on one thread and on two, whatever the load: what the worker gains.
    const threads = { '1': [] as { ms: number; cpuMs: number; rss: number }[], '2': [] as { ms: number; cpuMs: number; rss: number }[] };
    const theirs: { ms: number; cpuMs: number; rss: number }[] = [];
    // Ours as the `irw` command runs: the launcher itself, through its shebang and the Node options it gives,
    // with this Node first on PATH.
    const irw = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, ...extra, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` });
    for (let i = 0; i < rounds; i++) {
      ours.push(timed(cli, ['run', '--dataset', dataset, '--out', join(WORK, `${name}.trec`)], irw()));
      for (const t of ['1', '2'] as const) {
        threads[t].push(timed(cli, ['run', '--dataset', dataset, '--out', join(WORK, `${name}.${t}.trec`)], irw({ IRW_BM25_THREADS: t })));
      }
      if (typeof peer !== 'string') theirs.push(timed(peer.python, [PEER, 'cold', dataset, join(WORK, `${name}.bm25s.trec`)], peer.env));
    }
    const best = (xs: { ms: number }[]) => (xs.length ? Math.min(...xs.map((x) => x.ms)) : undefined);
    const median = (xs: { ms: number }[]) => (xs.length ? [...xs].map((x) => x.ms).sort((a, b) => a - b)[xs.length >> 1] : undefined);
    const cpu = (xs: { cpuMs: number }[]) => xs.map((x) => ({ ms: x.cpuMs }));
    const peak = (xs: { rss: number }[]) => (xs.length ? Math.max(...xs.map((x) => x.rss)) : undefined);
    const w = lastJson<Warm>(spawnSync(process.execPath, ['--import', 'tsx', __filename, '--warm', dataset], { cwd: ROOT, encoding: 'utf8' }).stdout);
    let p: Warm | undefined;
    if (typeof peer !== 'string') {
      const r = spawnSync(peer.python, [PEER, 'warm', dataset], { env: peer.env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      p = lastJson<Warm>(r.stdout);
    }
    const s = (ms: number | undefined) => (ms === undefined ? '-' : (ms / 1000).toFixed(2));
    const n = (x: number | undefined, digits = 0) => (x === undefined ? '-' : x.toFixed(digits));
    console.log(`\n1. ${name}: ours vs bm25s (ratio = ours / bm25s; ${w.queries} queries for ours, ${p?.queries ?? '-'} for bm25s, which drops queries with no indexed term) — ${load()}`);
    console.log(table([
      ['figure', 'ours', 'bm25s', 'ratio'],
      [`cold whole process, best of ${rounds} (s)`, s(best(ours)), s(best(theirs)), ratio(best(ours)!, best(theirs))],
      [`cold whole process, median (s)`, s(median(ours)), s(median(theirs)), ratio(median(ours)!, median(theirs))],
      [`cold whole process CPU (user + system), best of ${rounds} (s)`, s(best(cpu(ours))), s(best(cpu(theirs))), ratio(best(cpu(ours))!, best(cpu(theirs)))],
      [`cold whole process CPU, median (s)`, s(median(cpu(ours))), s(median(cpu(theirs))), ratio(median(cpu(ours))!, median(cpu(theirs)))],
      [`cold, one thread (IRW_BM25_THREADS=1), best (s)`, s(best(threads['1'])), s(best(theirs)), ratio(best(threads['1'])!, best(theirs))],
      [`cold, one thread, median (s)`, s(median(threads['1'])), s(median(theirs)), ratio(median(threads['1'])!, median(theirs))],
      [`cold CPU, one thread, best (s)`, s(best(cpu(threads['1']))), s(best(cpu(theirs))), ratio(best(cpu(threads['1']))!, best(cpu(theirs)))],
      [`cold, two threads (IRW_BM25_THREADS=2), best (s)`, s(best(threads['2'])), s(best(theirs)), ratio(best(threads['2'])!, best(theirs))],
      [`cold, two threads, median (s)`, s(median(threads['2'])), s(median(theirs)), ratio(median(threads['2'])!, median(theirs))],
      [`cold CPU, two threads, best (s)`, s(best(cpu(threads['2']))), s(best(cpu(theirs))), ratio(best(cpu(threads['2']))!, best(cpu(theirs)))],
      ['cold peak RSS (MB)', mb(peak(ours)!), theirs.length ? mb(peak(theirs)!) : '-', ratio(peak(ours)!, peak(theirs))],
      ['index build (s)', s(w.buildMs), s(p?.buildMs), ratio(w.buildMs, p?.buildMs)],
      ['warm queries/s, top-10', n(w.qps10), n(p?.qps10), ratio(w.qps10, p?.qps10)],
      ['warm queries/s, top-1000', n(w.qps1000), n(p?.qps1000), ratio(w.qps1000, p?.qps1000)],
      ['warm process peak RSS (MB)', mb(w.rss), p ? mb(p.rss) : '-', ratio(w.rss, p?.rss)],
    ]));
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
  const qs = [...readQueries(join(dir, 'queries.jsonl')).values()].slice(0, queries).map((q) => bagOfWords(analyzer.analyze(q.text)));
  const searcher = new Searcher(index, { k1: 0.9, b: 0.4 });
  // The first pruned search computes the competitive impacts (one pass over the postings): timed on its own.
  const t2 = performance.now();
  searcher.search(qs[0], 10);
  const firstMs = performance.now() - t2;
  // Queries per wall second and per CPU second: on a loaded machine the wall clock says more about the neighbours.
  const rate = (k: number) => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (const q of qs) searcher.search(q, k);
    const u = process.cpuUsage(c);
    return [qs.length / ((performance.now() - t) / 1000), qs.length / ((u.user + u.system) / 1e6)];
  };
  const [qps10, cpuQps10] = rate(10);
  const [qps1000, cpuQps1000] = rate(1000);
  const postings = index.fieldIndexes[0].docs.length;
  const terms = index.fieldIndexes[0].terms.length;
  process.stdout.write(JSON.stringify({ buildMs, buildCpuMs, buildMainCpuMs, buildRss, firstMs, qps10, qps1000, cpuQps10, cpuQps1000, queries: qs.length, bytes: statSync(file).size, terms, postings }) + '\n');
}

/**
 * CPU time of this process's main thread (Linux: /proc, 10 ms ticks), or null. Beside the process's CPU time
 * (worker, compiler and GC threads included) it shows the build's critical path, which on a shared machine
 * says more than the wall clock about what a quiet one would take.
 */
function mainThreadCpuMs(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
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
  console.log(`\n3. Scale (synthetic corpora: ~100 words/doc text + 4-12 word title, Zipf vocabulary of 200k pseudo-words; ${queries} queries of 6 words; the corpus is analysed on two threads (IRW_BM25_THREADS=1 for one), the index built and searched on one)`);
  // CPU seconds next to wall seconds: on a loaded machine the wall clock says more about the neighbours.
  const rows: (string | number)[][] = [['docs', 'build s', 'build CPU s (main thread)', 'build peak RSS MB', 'index MB', 'load s (CPU)', 'load RSS MB', 'terms', 'postings', 'first query s', 'q/s top-10 (per CPU s)', 'q/s top-1000 (per CPU s)', 'load average']];
  for (const n of sizes) {
    const dir = join(WORK, `synthetic-${n}`);
    if (!existsSync(join(dir, 'qrels', 'test.tsv'))) writeSyntheticBeir(dir, { docs: n, queries: Math.max(queries, 1000), seed: 7 });
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
    const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', dir, '--queries', String(queries)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) {
      rows.push([n, `failed: ${r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 200)}`, '', '', '', '', '', '', '', '', '', '', load()]);
      console.log(table(rows));
      continue;
    }
    const m = lastJson<Record<string, number>>(r.stdout);
    const lr = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--load', dir], { cwd: ROOT, encoding: 'utf8' });
    const l = lr.status === 0 ? lastJson<Record<string, number>>(lr.stdout) : null;
    const loadCell = l ? `${(l.loadMs / 1000).toFixed(2)} (${(l.loadCpuMs / 1000).toFixed(2)})` : `failed: ${lr.stderr.trim().split('\n').find((x) => /Error/.test(x))?.slice(0, 80) ?? ''}`;
    rows.push([n, (m.buildMs / 1000).toFixed(1), `${(m.buildCpuMs / 1000).toFixed(1)} (${m.buildMainCpuMs === null ? '-' : (m.buildMainCpuMs / 1000).toFixed(1)})`, mb(m.buildRss), mb(m.bytes), loadCell, l ? mb(l.rss) : '-', m.terms, m.postings, (m.firstMs / 1000).toFixed(2), `${m.qps10.toFixed(0)} (${m.cpuQps10.toFixed(0)})`, `${m.qps1000.toFixed(0)} (${m.cpuQps1000.toFixed(0)})`, loadavg().map((x) => x.toFixed(2)).join(' ')]);
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
