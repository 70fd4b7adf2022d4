/**
 * bench:eval — times `irw eval -m ndcg_cut.10 -m map -m recall.1000` as a whole process on a synthetic
 * 10,000-query x 1,000-document run with graded qrels, and prints wall time and peak memory.
 * Goal (issue 2): at least as fast as trec_eval -O2 on the same file (~10 s here), no more memory (~820 MB).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { uniform } from '../../src/core/random';

const REPO = resolve(__dirname, '..', '..');
const DIR = join(REPO, '.bench');
const QUERIES = Number(process.env.BENCH_QUERIES ?? 10000);
const DEPTH = Number(process.env.BENCH_DEPTH ?? 1000);
const RUN = join(DIR, `eval-${QUERIES}x${DEPTH}.run`);
const QRELS = join(DIR, `eval-${QUERIES}x${DEPTH}.qrels`);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);


class Writer {
  private fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  write(s: string): void {
    this.parts.push(s);
    this.size += s.length;
    if (this.size > 1 << 22) this.flush();
  }
  flush(): void {
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

function generate(): void {
  mkdirSync(DIR, { recursive: true });
  const rnd = uniform(42);
  const run = new Writer(RUN);
  const qrels = new Writer(QRELS);
  const pool = 1_000_000;
  for (let q = 0; q < QUERIES; q++) {
    const qid = `q${q}`;
    const seen = new Set<number>();
    const docs: number[] = [];
    while (docs.length < DEPTH) {
      const d = Math.floor(rnd() * pool);
      if (!seen.has(d)) {
        seen.add(d);
        docs.push(d);
      }
    }
    let score = 100;
    for (let i = 0; i < DEPTH; i++) {
      if (rnd() > 0.05) score -= rnd() * 0.1; // ~5% ties with the previous document
      run.write(`${qid} Q0 doc${docs[i]} ${i + 1} ${score.toFixed(6)} bench\n`);
    }
    // ~60 judgements: most from the ranking (graded 0-3), some never retrieved.
    const judged = new Set<number>();
    while (judged.size < 50) judged.add(docs[Math.floor(rnd() * DEPTH)]);
    for (const d of judged) qrels.write(`${qid} 0 doc${d} ${Math.floor(rnd() * 4)}\n`);
    for (let k = 0; k < 10; k++) qrels.write(`${qid} 0 unret${q}_${k} ${1 + Math.floor(rnd() * 3)}\n`);
  }
  run.close();
  qrels.close();
}

function main(): void {
  const cli = join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  if (!existsSync(RUN) || !existsSync(QRELS)) {
    process.stdout.write(`generating ${QUERIES} x ${DEPTH} run in ${DIR} ...\n`);
    generate();
  }
  const mb = (b: number) => (b / 1048576).toFixed(0);
  process.stdout.write(`run: ${mb(statSync(RUN).size)} MB, ${QUERIES * DEPTH} lines; qrels: ${mb(statSync(QRELS).size)} MB\n`);
  const args = ['-r', join(__dirname, 'rss.cjs'), cli, 'eval', '-m', 'ndcg_cut.10', '-m', 'map', '-m', 'recall.1000', QRELS, RUN];
  const rows: { wall: number; cpu: number; rss: number }[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`irw eval failed: ${r.stderr}`);
    const m = /IRW_BENCH (\d+) ([\d.]+)/.exec(r.stderr);
    const rss = Number(m?.[1] ?? NaN) * 1024;
    const cpu = Number(m?.[2] ?? NaN);
    rows.push({ wall, cpu, rss });
    process.stdout.write(`  run ${i + 1}: wall ${wall.toFixed(2)} s, CPU ${cpu.toFixed(2)} s, peak RSS ${mb(rss)} MB\n`);
    if (i === 0) process.stdout.write(r.stdout.trimEnd().replace(/^/gm, '    ') + '\n');
  }
  const best = rows.reduce((a, b) => (a.wall < b.wall ? a : b));
  process.stdout.write(`bench:eval: best wall ${best.wall.toFixed(2)} s (CPU ${best.cpu.toFixed(2)} s), peak RSS ${mb(Math.max(...rows.map((r) => r.rss)))} MB ` +
    `(goal: <= trec_eval -O2, ~10 s and ~820 MB on the same file)\n`);
}

main();
