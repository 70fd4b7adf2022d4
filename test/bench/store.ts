/**
 * bench:store — indexes a synthetic corpus of TREC-COVID's size (171,332 documents, 50 queries, ~66k qrels,
 * one 50 x 1,000 run) through the store worker, as the extension does, and prints: full index time (goal:
 * under 30 s), re-index time with nothing changed, database snapshot size and save time, memory, judgement
 * latency (append + fsync, the cost the user waits for) and document read-by-offset latency.
 * Figures are noisy on a shared 2-core machine. The files are generated once into .bench/ (deterministic).
 * Then (`--splits K`, default 8; run with node --expose-gc, as `npm run bench:store` does, so the heap is
 * measured after a collection) the engine's heap with K copies of SciFact, each with the shared runs: after
 * indexing (no view open), with every split shown, and after the views closed.
 */
import { closeSync, cpSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EngineClient } from '../../src/core/engine/client';
import { uniform } from '../../src/core/random';

const REPO = resolve(__dirname, '..', '..');
const DOCS = Number(process.env.BENCH_DOCS ?? 171_332);
const ROOT = join(REPO, '.bench', `store-${DOCS}`);
const DATASET = join(ROOT, 'datasets', 'synthetic-covid');
const QUERIES = 50;
const JUDGEMENTS = Number(process.env.BENCH_JUDGEMENTS ?? 500);


/** Buffered file writer: the corpus is ~190 MB and must not be built as one string. */
function writeLines(path: string, lines: (emit: (s: string) => void) => void): void {
  const fd = openSync(path, 'w');
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    writeSync(fd, parts.join(''));
    parts = [];
    size = 0;
  };
  lines((s) => {
    parts.push(s);
    size += s.length;
    if (size > 1 << 22) flush();
  });
  flush();
  closeSync(fd);
}

function generate(): void {
  if (existsSync(join(DATASET, 'qrels', 'test.tsv'))) return;
  rmSync(ROOT, { recursive: true, force: true });
  mkdirSync(join(DATASET, 'qrels'), { recursive: true });
  mkdirSync(join(ROOT, 'runs', 'synthetic-covid'), { recursive: true });
  const rand = uniform(171332);
  const vocab = Array.from({ length: 20000 }, (_, i) => `w${i.toString(36)}`);
  const words = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rand() ** 2 * vocab.length)]).join(' ');
  const docId = (i: number) => `doc${(i * 7919).toString(36)}`;
  // TREC-COVID's abstracts average ~160 words; titles ~12. ASCII-escaped JSON as BEIR writes it.
  writeLines(join(DATASET, 'corpus.jsonl'), (emit) => {
    for (let i = 0; i < DOCS; i++) {
      emit(`${JSON.stringify({ _id: docId(i), title: words(12), text: words(100 + Math.floor(rand() * 120)), metadata: { url: `https://example.org/${i}` } })}\n`);
    }
  });
  writeLines(join(DATASET, 'queries.jsonl'), (emit) => {
    for (let q = 1; q <= QUERIES; q++) emit(`${JSON.stringify({ _id: String(q), text: words(8), metadata: {} })}\n`);
  });
  writeLines(join(DATASET, 'qrels', 'test.tsv'), (emit) => {
    emit('query-id\tcorpus-id\tscore\r\n');
    for (let q = 1; q <= QUERIES; q++) {
      const seen = new Set<number>();
      while (seen.size < 1327) seen.add(Math.floor(rand() * DOCS)); // ~66k judgements, as TREC-COVID
      for (const d of seen) emit(`${q}\t${docId(d)}\t${Math.floor(rand() * 3)}\r\n`);
    }
  });
  writeLines(join(ROOT, 'runs', 'synthetic-covid', 'bm25.trec'), (emit) => {
    for (let q = 1; q <= QUERIES; q++) {
      const seen = new Set<number>();
      while (seen.size < 1000) seen.add(Math.floor(rand() * DOCS));
      let rank = 0;
      for (const d of seen) emit(`${q} Q0 ${docId(d)} ${++rank} ${(1000 - rank) / 10} bm25\n`);
    }
  });
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function main(): Promise<void> {
  let t = performance.now();
  generate();
  const corpusMb = statSync(join(DATASET, 'corpus.jsonl')).size / 1e6;
  console.log(`fixture: ${DOCS.toLocaleString('en-US')} documents, corpus.jsonl ${corpusMb.toFixed(0)} MB (ready in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
  const dbPath = join(ROOT, 'store.sqlite');
  rmSync(dbPath, { force: true });
  rmSync(join(DATASET, 'qrels', 'test.annotations.tsv'), { force: true });
  rmSync(join(DATASET, 'qrels', 'test.annotations.meta.jsonl'), { force: true });

  const client = await EngineClient.start(join(REPO, 'src', 'core', 'engine', 'worker.ts'), { dbPath, snapshotDelayMs: 2000 });
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const args = { roots: [ROOT], runsFolder: 'runs', measures: ['ndcg_cut.10', 'recall.100', 'map', 'hole.10'] };
  let progressEvents = 0;
  t = performance.now();
  const full = await client.request('index', args, () => progressEvents++);
  const fullS = (performance.now() - t) / 1000;
  console.log(`index (cold): ${fullS.toFixed(1)} s for ${full.reindexed.length} files, ${progressEvents} progress events (goal: < 30 s)`);

  t = performance.now();
  const { bytes } = await client.request('flush', {});
  console.log(`snapshot: ${(bytes / 1e6).toFixed(1)} MB written in ${((performance.now() - t) / 1000).toFixed(2)} s`);

  t = performance.now();
  const again = await client.request('index', args);
  console.log(`re-index, nothing changed: ${(performance.now() - t).toFixed(0)} ms (${again.reindexed.length} files re-read)`);

  const tree = await client.request('tree', {});
  const run = tree[0].splits[0].runs[0];
  console.log(`tree: ${tree[0].docCount.toLocaleString('en-US')} docs, run ${run.tag}: nDCG@10 ${run.means.ndcg_cut_10.toFixed(4)}, Hole@10 ${run.means.hole_10.toFixed(4)}`);

  const reads: number[] = [];
  for (let i = 0; i < 200; i++) {
    const s = performance.now();
    await client.request('document', { datasetDir: DATASET, docId: `doc${((i * 811) % DOCS * 7919).toString(36)}` });
    reads.push(performance.now() - s);
  }
  console.log(`document by offset: p50 ${quantile(reads, 0.5).toFixed(2)} ms, p99 ${quantile(reads, 0.99).toFixed(2)} ms`);

  const judge: number[] = [];
  for (let i = 0; i < JUDGEMENTS; i++) {
    const s = performance.now();
    await client.request('judge', { datasetDir: DATASET, split: 'test', queryId: String(1 + (i % QUERIES)), docId: `doc${(i * 7919).toString(36)}`, grade: i % 3, by: 'bench' });
    judge.push(performance.now() - s);
  }
  console.log(
    `judgement (append + fsync of .tsv and journal, then SQL): p50 ${quantile(judge, 0.5).toFixed(2)} ms, p99 ${quantile(judge, 0.99).toFixed(2)} ms over ${JUDGEMENTS}`,
  );
  clearInterval(sampler);
  console.log(`memory: process RSS ${(rssBefore / 1e6).toFixed(0)} MB before indexing, peak ${(peakRss / 1e6).toFixed(0)} MB (host + worker + sql.js heap)`);
  await client.close();
  console.log(`snapshot on close: ${(statSync(dbPath).size / 1e6).toFixed(1)} MB at ${dbPath}`);
}

/** K copies of ../shared's SciFact (test qrels, corpus, queries) in one workspace, each with the shared runs. */
function scifactCopies(k: number): string {
  const shared = resolve(process.env.IRW_SHARED ?? join(REPO, '..', 'shared'));
  const root = join(REPO, '.bench', `splits-${k}`);
  rmSync(root, { recursive: true, force: true });
  for (let i = 1; i <= k; i++) {
    const dir = join(root, `scifact-${i}`);
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) cpSync(join(shared, 'datasets', 'scifact', f), join(dir, f));
    cpSync(join(shared, 'runs', 'scifact'), join(dir, 'runs'), { recursive: true });
  }
  return root;
}

/** The engine's memory with many splits: what it holds with no view open, with all shown, and once closed again. */
async function splitsMemory(k: number): Promise<void> {
  const root = scifactCopies(k);
  const client = await EngineClient.start(join(REPO, 'src', 'core', 'engine', 'worker.ts'), { snapshotDelayMs: 60_000 });
  const mb = (b: number) => `${(b / 1e6).toFixed(0)} MB`;
  const show = async (what: string) => {
    const m = await client.request('memory', {});
    console.log(`  ${what}: engine heap ${mb(m.heapUsed)} + external ${mb(m.external)}, ${m.splitsHeld} split state(s) held, ${m.splitsShown} shown`);
  };
  const gc = (globalThis as { gc?: unknown }).gc ? '' : ' (no --expose-gc: heap figures include garbage)';
  console.log(`splits: ${k} copies of SciFact with the 4 shared runs each${gc}`);
  await show('engine started');
  await client.request('index', { roots: [root], runsFolder: 'runs', measures: ['ndcg_cut.10', 'recall.100', 'map', 'hole.10'] });
  await show('indexed, no view open');
  const keys: string[] = [];
  for (let i = 1; i <= k; i++) keys.push((await client.request('openSplit', { datasetDir: join(root, `scifact-${i}`), split: 'test', extraRuns: [] })).key);
  await client.request('viewsOpen', { keys });
  // The tests and ranges are computed in the background after each answer: wait until every split said so.
  const done = new Set<string>();
  const allDone = new Promise<void>((resolve) => client.onSplitChanged((key) => done.add(key) && done.size === k && resolve()));
  for (const key of keys) await client.request('results', { key, baseline: '' });
  await allDone;
  await show(`all ${k} splits shown (results computed)`);
  await client.request('viewsOpen', { keys: [] });
  await show('views closed');
  await client.close();
}

const splitsArg = process.argv.indexOf('--splits');
const k = splitsArg > 0 ? Number(process.argv[splitsArg + 1]) : 8;
if (process.argv.includes('--only-splits')) void splitsMemory(k);
else void main().then(() => splitsMemory(k));
