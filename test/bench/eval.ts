/**
 * bench:eval — times `irw eval -m ndcg_cut.10 -m map -m recall.1000` as a whole process on a synthetic
 * 10,000-query x 1,000-document run with graded qrels, and prints wall time, CPU time and peak memory, with
 * trec_eval's beside it when TREC_EVAL names a trec_eval binary (each repeat runs both, one after the other).
 * Goal (issue 16): at most 0.25x trec_eval -O2's time on the same file, and less memory.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
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

interface Sample {
  wall: number;
  cpu: number;
  rss: number;
}

/** Runs trec_eval through /usr/bin/time (for its CPU time and peak memory); undefined without TREC_EVAL. */
function trecEval(measureArgs: string[]): Sample | undefined {
  const te = process.env.TREC_EVAL;
  if (!te) return undefined;
  const timed = existsSync(TIME);
  const t0 = process.hrtime.bigint();
  const r = timed
    ? spawnSync(TIME, ['-f', 'TREC_EVAL_TIME %U %S %M', te, ...measureArgs, QRELS, RUN], { encoding: 'utf8', maxBuffer: 1 << 24 })
    : spawnSync(te, [...measureArgs, QRELS, RUN], { encoding: 'utf8', maxBuffer: 1 << 24 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`trec_eval failed: ${r.stderr}`);
  const m = /TREC_EVAL_TIME ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : NaN, rss: m ? Number(m[3]) * 1024 : NaN };
}
const TIME = '/usr/bin/time';

function main(): void {
  const cli = join(REPO, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run npm run build first');
  if (!existsSync(RUN) || !existsSync(QRELS)) {
    process.stdout.write(`generating ${QUERIES} x ${DEPTH} run in ${DIR} ...\n`);
    generate();
  }
  const mb = (b: number) => (b / 1048576).toFixed(0);
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  const show = (s: Sample) => `wall ${s.wall.toFixed(2)} s, CPU ${s.cpu.toFixed(2)} s, peak RSS ${mb(s.rss)} MB`;
  process.stdout.write(`run: ${mb(statSync(RUN).size)} MB, ${QUERIES * DEPTH} lines; qrels: ${mb(statSync(QRELS).size)} MB\n`);
  const measureArgs = ['-m', 'ndcg_cut.10', '-m', 'map', '-m', 'recall.1000'];
  const args = ['-r', join(__dirname, 'rss.cjs'), cli, 'eval', ...measureArgs, QRELS, RUN];
  const rows: Sample[] = [];
  const peers: Sample[] = [];
  for (let i = 0; i < REPEAT; i++) {
    // trec_eval and irw one after the other, so both see the same machine load.
    const peer = trecEval(measureArgs);
    if (peer) {
      peers.push(peer);
      process.stdout.write(`  trec_eval ${i + 1}: ${show(peer)} (load ${load()})\n`);
    }
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 24 });
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.status !== 0) throw new Error(`irw eval failed: ${r.stderr}`);
    const m = /IRW_BENCH (\d+) ([\d.]+)/.exec(r.stderr);
    const row = { wall, cpu: Number(m?.[2] ?? NaN), rss: Number(m?.[1] ?? NaN) * 1024 };
    rows.push(row);
    process.stdout.write(`  irw eval  ${i + 1}: ${show(row)} (load ${load()})` + (peer ? `: ${(row.wall / peer.wall).toFixed(2)}x trec_eval's wall, ${(row.cpu / peer.cpu).toFixed(2)}x its CPU\n` : '\n'));
    if (i === 0) process.stdout.write(r.stdout.trimEnd().replace(/^/gm, '    ') + '\n');
  }
  const best = (xs: Sample[]) => xs.reduce((a, b) => (a.wall < b.wall ? a : b));
  const peak = (xs: Sample[]) => Math.max(...xs.map((r) => r.rss));
  process.stdout.write(`bench:eval: irw best wall ${best(rows).wall.toFixed(2)} s (CPU ${best(rows).cpu.toFixed(2)} s), peak RSS ${mb(peak(rows))} MB\n`);
  if (peers.length) {
    process.stdout.write(`  trec_eval best wall ${best(peers).wall.toFixed(2)} s (CPU ${best(peers).cpu.toFixed(2)} s), peak RSS ${mb(peak(peers))} MB\n` +
      `  goal (issue 16): irw <= 0.25x trec_eval -O2's time, and less memory\n`);
  } else process.stdout.write('  set TREC_EVAL=/path/to/trec_eval (built with -O2) to time it side by side (goal: irw <= 0.25x its time, less memory)\n');
}

main();
