/**
 * bench:eval — `irw eval` as a whole process, beside trec_eval (TREC_EVAL=/path/to/trec_eval, built with -O2)
 * and, with IRW_BASELINE=/path/to/other/dist/cli.js, another build, in the same run (paired rounds; wall, CPU,
 * peak RSS and the load average printed with every table):
 * 1. start (issue 27 item 1): one SciFact-size run (30,000 lines; ../shared/runs/scifact) with -m ndcg_cut.10
 *    -m map -m recall.100, beside `node -e 0`, a Node process that only reads the two files (what any Node
 *    program must pay), the least a JavaScript evaluator does (a bound), and a call with IRW_RESIDENT=1 to the
 *    resident evaluator (started before the rounds; its CPU a call printed after). Goal: at most 1.5x `node -e 0`.
 * 2. many (item 2): 100 SciFact-size runs in one `irw eval QRELS FOLDER`, against 100 trec_eval calls, beside
 *    bounds (Node reading the files; finding each line's fields in them; and reading each score, not exactly).
 *    Goal: at most 0.25x their time.
 * 3. large (issue 16; BENCH_LARGE=0 skips it): a synthetic 10,000-query x 1,000-document run (10 M lines),
 *    generated once into .bench/. Goal: at most 0.25x trec_eval -O2's time, and less memory.
 * BENCH_ROUNDS (default 15), BENCH_MANY_ROUNDS (5) and BENCH_REPEAT (3, the large part) set the rounds.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { uniform } from '../../src/core/random';
import { GOLDEN, RUNS } from '../unit/support/paths';
import { baselineBuild, paired, trecEvalPeer, type Command } from './paired';
import { residentStatus } from '../../src/cli/resident/client';
import { residentSocket } from '../../src/cli/resident/socket';

const REPO = resolve(__dirname, '..', '..');
const DIR = join(REPO, '.bench');
const QUERIES = Number(process.env.BENCH_QUERIES ?? 10000);
const DEPTH = Number(process.env.BENCH_DEPTH ?? 1000);
const RUN = join(DIR, `eval-${QUERIES}x${DEPTH}.run`);
const QRELS = join(DIR, `eval-${QUERIES}x${DEPTH}.qrels`);
const CLI = join(REPO, 'dist', 'cli.js');
const SCIFACT_QRELS = join(GOLDEN, 'scifact', 'qrels.test.trec');
const SCIFACT_RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(RUNS, 'scifact', f));

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


/** The commands of one evaluation: ours (and the baseline build's) and trec_eval's, same measures and files. */
function evaluations(measures: string[], qrels: string, run: string): Command[] {
  const te = trecEvalPeer();
  const base = baselineBuild();
  return [
    { name: 'irw eval', cmd: process.execPath, args: [CLI, 'eval', ...measures, qrels, run] },
    ...(base ? [{ name: 'irw eval (baseline build)', cmd: process.execPath, args: [base, 'eval', ...measures, qrels, run] }] : []),
    ...(te ? [{ name: 'trec_eval -O2', cmd: te, args: [...measures, qrels, run] }] : []),
  ];
}

async function start(): Promise<void> {
  if (!existsSync(SCIFACT_QRELS) || !SCIFACT_RUNS.every(existsSync)) {
    process.stdout.write(`start: skipped, needs ${SCIFACT_QRELS} and ${SCIFACT_RUNS[0]} (../shared)\n`);
    return;
  }
  const measures = ['-m', 'ndcg_cut.10', '-m', 'map', '-m', 'recall.100'];
  const readOnly = `const fs = require('node:fs'); fs.readFileSync(${JSON.stringify(SCIFACT_QRELS)}); fs.readFileSync(${JSON.stringify(SCIFACT_RUNS[0])});`;
  // The least a JavaScript evaluator does (no exactness, no checks: split lines and fields, Number() each
  // score, group, sort, count P@10): a bound on what a Node program can reach on this input.
  const minimal = `const fs = require('node:fs'); const [q, r] = process.argv.slice(1); const rel = new Map();
    for (const l of fs.readFileSync(q, 'latin1').split('\\n')) { const f = l.split(/\\s+/); if (f.length >= 4 && +f[3] > 0) rel.set(f[0] + ' ' + f[2], 1); }
    const runs = new Map();
    for (const l of fs.readFileSync(r, 'latin1').split('\\n')) { const f = l.split(/\\s+/); if (f.length < 6) continue; let x = runs.get(f[0]); if (!x) runs.set(f[0], (x = [])); x.push({ d: f[2], s: Math.fround(Number(f[4])) }); }
    let hits = 0; for (const [qid, x] of runs) { x.sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : -1)); for (let i = 0; i < 10 && i < x.length; i++) if (rel.has(qid + ' ' + x[i].d)) hits++; }
    process.stdout.write('P_10 all ' + (hits / 10 / runs.size).toFixed(4) + '\\n');`;
  // IRW_RESIDENT=1: each call asks the resident evaluator, started (and warmed) before the rounds; its own CPU
  // time is not the client's, so it is read from /proc and printed after the table.
  const resident = [CLI, 'eval', ...measures, SCIFACT_QRELS, SCIFACT_RUNS[0]];
  const before = await residentUp(resident);
  paired(
    `start: irw eval ${measures.join(' ')} on one SciFact run (${statSync(SCIFACT_RUNS[0]).size} bytes, 30,000 lines); goal: irw eval <= 1.5x node -e 0`,
    [
      { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      { name: 'node reading both files', cmd: process.execPath, args: ['-e', readOnly] },
      { name: 'node, a 6-line evaluator', cmd: process.execPath, args: ['-e', minimal, SCIFACT_QRELS, SCIFACT_RUNS[0]] },
      ...evaluations(measures, SCIFACT_QRELS, SCIFACT_RUNS[0]),
      ...(before ? [{ name: 'irw eval, IRW_RESIDENT=1 (client)', cmd: '/usr/bin/env', args: ['IRW_RESIDENT=1', process.execPath, ...resident] }] : []),
    ],
    Number(process.env.BENCH_ROUNDS ?? 15),
    'node -e 0',
  );
  const after = before && (await residentOfBuild());
  if (before && after && after.pid === before.pid) {
    const calls = after.served - before.served;
    const cpu = (residentCpu(after.pid) - before.cpu) / calls;
    process.stdout.write(`the resident evaluator (pid ${after.pid}) answered ${calls} calls, ${(cpu * 1000).toFixed(1)} ms of CPU a call: add it to the client's CPU above\n`);
  } else process.stdout.write('the resident evaluator was not up through the rounds: its row is missing or ran in the caller\n');
}

/** The status of the resident evaluator of this checkout's build, if one is up. */
const residentOfBuild = () => {
  const socket = residentSocket(join(REPO, 'dist', 'irw-eval.js'));
  return socket ? residentStatus(socket) : Promise.resolve(undefined);
};

/** CPU seconds a process has used (utime + stime from /proc). */
function residentCpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Starts the resident evaluator with one call and warms it with two more; its status and CPU, or undefined where it cannot run. */
async function residentUp(args: string[]): Promise<{ pid: number; served: number; cpu: number } | undefined> {
  const env = { ...process.env, IRW_RESIDENT: '1' };
  spawnSync(process.execPath, args, { env });
  for (let i = 0; i < 100 && !(await residentOfBuild()); i++) await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 2; i++) spawnSync(process.execPath, args, { env });
  const s = await residentOfBuild();
  return s && existsSync(`/proc/${s.pid}/stat`) ? { ...s, cpu: residentCpu(s.pid) } : undefined;
}

function many(): void {
  if (!existsSync(SCIFACT_QRELS) || !SCIFACT_RUNS.every(existsSync)) return;
  // 100 runs of SciFact's size: its BM25 and MiniLM runs in turn (30,000 lines each).
  const folder = join(DIR, 'scifact-100-runs');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < 100; i++) {
    const to = join(folder, `run${String(i).padStart(3, '0')}.trec`);
    if (!existsSync(to)) copyFileSync(SCIFACT_RUNS[i % 2], to);
  }
  const measures = ['-m', 'ndcg_cut.10', '-m', 'map', '-m', 'recall.100'];
  const te = trecEvalPeer();
  const base = baselineBuild();
  const files = readdirSync(folder).sort().map((f) => join(folder, f));
  // Bounds on what a Node program can reach here: reading the 100 files into one buffer (what any reader pays),
  // and the least a JavaScript reader does on top: each line's end and its fifth field (the score) found with
  // Buffer.indexOf (native memchr; faster than a loop over the bytes in JavaScript), then also each score read
  // from its digits (not exactly: one division); no ids, no ranking, no evaluation.
  const reader = (work: string) => `const fs = require('node:fs'); const dir = process.argv[1]; let buf = Buffer.allocUnsafe(1 << 21); const out = [0];
    function fields(b, size, score) { let lines = 0, sum = 0; for (let i = 0; i < size; ) { let e = b.indexOf(10, i); if (e < 0 || e > size) e = size;
      let s = i; for (let k = 0; k < 4; k++) s = b.indexOf(32, s) + 1;
      if (score) { let v = 0, scale = 1, frac = false; for (let j = s; j < e; j++) { const c = b[j]; if (c === 46) frac = true; else if (c < 48 || c > 57) break; else { v = v * 10 + (c - 48); if (frac) scale *= 10; } } sum += v / scale; }
      else sum += s; lines++; i = e + 1; } out[0] += lines + (sum > 0 ? 0 : 1); }
    for (const f of fs.readdirSync(dir).sort()) { const fd = fs.openSync(dir + '/' + f, 'r'); const size = fs.fstatSync(fd).size;
      if (size > buf.length) buf = Buffer.allocUnsafe(size); for (let got = 0; got < size; ) got += fs.readSync(fd, buf, got, size - got, got);
      fs.closeSync(fd); ${work} }
    process.stdout.write(out[0] + '\\n');`;
  // The peer's loop (and the old build's, which takes one run a call) as one shell process, timed as a whole.
  const loop = (cmd: string[]) => ({ cmd: '/bin/sh', args: ['-c', `for f in "$@"; do ${cmd.join(' ')} ${measures.join(' ')} '${SCIFACT_QRELS}' "$f" || exit 1; done`, 'sh', ...files] });
  paired(
    `many: 100 SciFact-size runs (${folder}); goal: one irw eval <= 0.25x the 100 trec_eval calls`,
    [
      { name: 'node reading the 100 files', cmd: process.execPath, args: ['-e', reader(''), folder] },
      { name: "node, each line's fields found", cmd: process.execPath, args: ['-e', reader('fields(buf, size, false);'), folder] },
      { name: '... and each score read, not exactly', cmd: process.execPath, args: ['-e', reader('fields(buf, size, true);'), folder] },
      { name: 'irw eval QRELS FOLDER', cmd: process.execPath, args: [CLI, 'eval', ...measures, SCIFACT_QRELS, folder] },
      ...(base ? [{ name: '100 irw eval (baseline build)', ...loop([process.execPath, base, 'eval']) }] : []),
      ...(te ? [{ name: '100 trec_eval -O2', ...loop([te]) }] : []),
    ],
    Number(process.env.BENCH_MANY_ROUNDS ?? 5),
    te ? '100 trec_eval -O2' : 'irw eval QRELS FOLDER',
  );
}

function large(): void {
  if (!existsSync(RUN) || !existsSync(QRELS)) {
    process.stdout.write(`generating ${QUERIES} x ${DEPTH} run in ${DIR} ...\n`);
    generate();
  }
  const measures = ['-m', 'ndcg_cut.10', '-m', 'map', '-m', 'recall.1000'];
  const commands = evaluations(measures, QRELS, RUN);
  paired(
    `large: ${QUERIES * DEPTH} lines (${(statSync(RUN).size / 1048576).toFixed(0)} MB run); goal (issue 16): irw <= 0.25x trec_eval -O2's time, less memory`,
    commands,
    Number(process.env.BENCH_REPEAT ?? 3),
    commands.some((c) => c.name === 'trec_eval -O2') ? 'trec_eval -O2' : 'irw eval',
  );
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  mkdirSync(DIR, { recursive: true });
  await start();
  many();
  if (process.env.BENCH_LARGE !== '0') large();
}

void main();
