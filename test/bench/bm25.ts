/**
 * BM25 benchmark (`npm run bench:bm25 [-- --sizes 100000,300000,1000000 --queries 1000]`). Prints tables:
 *  1. cold SciFact run: the whole `irw run` process (Node start-up, read, index 5,183 documents, top-1000 for
 *     300 queries, write the run), best and median of 5, with peak RSS; goal < 0.8 s;
 *  2. tokenizer: the hand-written UAX#29 tokenizer against Intl.Segmenter on SciFact's text;
 *  3. scale: synthetic corpora (test/helpers/syntheticBeir.ts) indexed in a fresh process each: build time,
 *     peak RSS, index size on disk (cache file), queries per second (top-1000); goal at 1M: < 60 s, < 2 GB.
 * Needs a build (`npm run build` is run by the npm script). Figures depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { forEachCorpusDocSync } from '../../src/core/formats/beir';
import { Spans, tokenize } from '../../src/core/retrieval/analysis/tokenizer';
import { createAnalyzer } from '../../src/core/retrieval/analysis/analyzer';
import { cacheFile, cacheKey, saveIndex } from '../../src/core/retrieval/bm25/cache';
import { buildIndex } from '../../src/core/retrieval/bm25/run';
import { Searcher, bagOfWords } from '../../src/core/retrieval/bm25/search';
import { readQueries } from '../../src/core/formats/beir';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';

const ROOT = resolve(__dirname, '../..');
const SCIFACT = resolve(ROOT, '../shared/datasets/scifact');
const WORK = join(ROOT, '.bench', 'bm25');

function table(rows: (string | number)[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((x, c) => String(x).padStart(widths[c])).join('  ')).join('\n');
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

function coldScifact(): void {
  const cli = join(ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  const out = join(WORK, 'scifact.trec');
  const walls: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, ['-r', join(__dirname, 'rss.cjs'), cli, 'run', '--dataset', SCIFACT, '--out', out], { encoding: 'utf8' });
    walls.push(performance.now() - t);
    if (r.status !== 0) throw new Error(r.stderr);
    rss.push(Number(/IRW_BENCH (\d+)/.exec(r.stderr)![1]) * 1024);
  }
  const sorted = [...walls].sort((a, b) => a - b);
  console.log('\n1. Cold SciFact run (whole process: irw run, 5,183 docs, 300 queries, top-1000, run written)');
  console.log(table([
    ['best s', 'median s', 'peak RSS MB', 'goal'],
    [(sorted[0] / 1000).toFixed(2), (sorted[2] / 1000).toFixed(2), mb(Math.max(...rss)), '< 0.8 s'],
  ]));
}

function tokenizers(): void {
  const texts: string[] = [];
  forEachCorpusDocSync(join(SCIFACT, 'corpus.jsonl'), (d) => texts.push(`${d.title} ${d.text}`));
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
  console.log(`\n2. Tokenizer on SciFact (${(chars / 1e6).toFixed(1)} M characters)`);
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
  const index = await buildIndex(join(dir, 'corpus.jsonl'), analyzer, 'flat');
  const buildMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const buildCpuMs = (c1.user + c1.system) / 1000;
  const key = cacheKey('bench', analyzer.id, 'flat');
  const file = cacheFile(join(dir, 'cache'), key);
  saveIndex(file, key, index);
  const qs = [...readQueries(join(dir, 'queries.jsonl')).values()].slice(0, queries).map((q) => bagOfWords(analyzer.analyze(q.text)));
  const searcher = new Searcher(index, { k1: 0.9, b: 0.4 });
  const t1 = performance.now();
  for (const q of qs) searcher.search(q, 1000);
  const searchMs = performance.now() - t1;
  const postings = index.fieldIndexes[0].docs.length;
  process.stdout.write(
    JSON.stringify({ buildMs, buildCpuMs, searchMs, queries: qs.length, bytes: statSync(file).size, rss: process.resourceUsage().maxRSS * 1024, terms: index.fieldIndexes[0].terms.length, postings }) + '\n',
  );
}

function scale(sizes: number[], queries: number): void {
  console.log(`\n3. Scale (synthetic corpora: ~100 words/doc text + 4-12 word title, Zipf vocabulary of 200k pseudo-words; ${queries} queries of 6 words, top-1000, exhaustive scoring)`);
  // CPU seconds next to wall seconds: on a loaded machine the wall clock says more about the neighbours.
  const rows: (string | number)[][] = [['docs', 'build s', 'build CPU s', 'peak RSS MB', 'index MB', 'terms', 'postings', 'queries/s']];
  for (const n of sizes) {
    const dir = join(WORK, `synthetic-${n}`);
    if (!existsSync(join(dir, 'qrels', 'test.tsv'))) writeSyntheticBeir(dir, { docs: n, queries: Math.max(queries, 1000), seed: 7 });
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
    const r = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', dir, '--queries', String(queries)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 24 });
    if (r.status !== 0) throw new Error(r.stderr);
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!);
    rows.push([n, (m.buildMs / 1000).toFixed(1), (m.buildCpuMs / 1000).toFixed(1), mb(m.rss), mb(m.bytes), m.terms, m.postings, (m.queries / (m.searchMs / 1000)).toFixed(0)]);
    console.log(table(rows));
    console.log('');
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '100000,300000,1000000' },
      queries: { type: 'string', default: '1000' },
      child: { type: 'string' },
      skip: { type: 'string', default: '' },
    },
  });
  if (values.child) return scaleChild(values.child, Number(values.queries));
  mkdirSync(WORK, { recursive: true });
  console.log(`BM25 benchmark — ${new Date().toISOString()}, Node ${process.version}; figures are noisy on a shared machine`);
  const skip = values.skip.split(',');
  if (!skip.includes('cold')) coldScifact();
  if (!skip.includes('tokenizer')) tokenizers();
  if (!skip.includes('scale')) scale(values.sizes.split(',').map(Number), Number(values.queries));
}

void main();
