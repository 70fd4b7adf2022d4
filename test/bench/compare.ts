/**
 * bench:compare — `irw compare` as a whole process on SciFact (issue 27 item 3): 3 runs against a baseline, and 5
 * runs all pairs (the 4 shared SciFact runs and a fusion of two of them), each with the defaults (5 measures,
 * t-test, Holm, 10,000 bootstrap resamples, holes at depth 10). With IRW_BASELINE=/path/to/other/dist/cli.js
 * another build is timed beside this one (paired rounds, BENCH_ROUNDS, default 5). No other tool computes this
 * table, so there is no peer; `node -e 0`, `irw eval` of the same runs and measures, and the table without holes
 * (`--pool-depth 0`) are printed for scale: the floor under what the holes cost. Then where the time goes: each
 * stage of the table's computation in this process (CPU time, one run of each case).
 * Goals: 3 runs under 0.5 s of CPU, 5 runs all pairs under 1 s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildTable, TABLE_DEFAULTS } from '../../src/core/eval/stats/table';
import { readQrels } from '../../src/core/formats/qrels';
import { readRun } from '../../src/core/formats/run';
import { DATASETS, RUNS } from '../unit/support/paths';
import { baselineBuild, load, paired, type Command } from './paired';

const REPO = resolve(__dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli.js');
const QRELS = join(DATASETS, 'scifact', 'qrels', 'test.tsv');
const SHARED_RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec', 'neural-rerank.kirloxious.tsv'].map((f) => join(RUNS, 'scifact', f));

/** CPU seconds of this process per stage of buildTable (its progress callback marks the stages). */
function stages(runPaths: string[], allPairs: boolean): string {
  const t0 = process.cpuUsage();
  const cpu = () => {
    const u = process.cpuUsage(t0);
    return (u.user + u.system) / 1e6;
  };
  const spent = new Map<string, number>();
  let stage = 'reading the qrels and runs';
  let since = 0;
  const qrels = readQrels(QRELS);
  const runs = runPaths.map((p) => readRun(p));
  buildTable(qrels, runs, { ...TABLE_DEFAULTS, compare: allPairs ? 'all-pairs' : 0 }, (s) => {
    if (s === stage) return;
    const now = cpu();
    spent.set(stage, (spent.get(stage) ?? 0) + now - since);
    stage = s;
    since = now;
  });
  spent.set(stage, (spent.get(stage) ?? 0) + cpu() - since);
  const total = cpu();
  return [...spent].map(([s, t]) => `${s} ${t.toFixed(2)} s (${Math.round((t / total) * 100)} %)`).join(', ') + `; total ${total.toFixed(2)} s CPU`;
}

function main(): void {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run npm run build first');
  if (!existsSync(QRELS) || !SHARED_RUNS.every(existsSync)) {
    process.stdout.write(`bench:compare: skipped, needs ${QRELS} and the runs in ${join(RUNS, 'scifact')} (../shared)\n`);
    return;
  }
  const dir = join(REPO, '.bench');
  mkdirSync(dir, { recursive: true });
  const fused = join(dir, 'scifact-bm25-minilm-rrf.trec');
  if (!existsSync(fused)) {
    const r = spawnSync(process.execPath, [CLI, 'fuse', SHARED_RUNS[0], SHARED_RUNS[1], '--method', 'rrf', '--out', fused], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`irw fuse failed: ${r.stderr}`);
  }
  const base = baselineBuild();
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const cases: [string, string[], string[]][] = [
    ['3 SciFact runs against the first (goal: under 0.5 s of CPU)', SHARED_RUNS.slice(0, 3), []],
    ['5 SciFact runs, all pairs (goal: under 1 s)', [...SHARED_RUNS, fused], ['--all-pairs']],
  ];
  for (const [title, runPaths, flags] of cases) {
    const commands: Command[] = [
      { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] },
      // The floor under the holes' figures: the same runs evaluated, and the table without holes.
      { name: 'irw eval (the runs, the 5 measures)', cmd: process.execPath, args: [CLI, 'eval', ...TABLE_DEFAULTS.measures.flatMap((m) => ['-m', m]), QRELS, ...runPaths] },
      { name: 'irw compare --pool-depth 0', cmd: process.execPath, args: [CLI, 'compare', QRELS, ...runPaths, ...flags, '--pool-depth', '0'] },
      { name: 'irw compare', cmd: process.execPath, args: [CLI, 'compare', QRELS, ...runPaths, ...flags] },
      ...(base ? [{ name: 'irw compare (baseline build)', cmd: process.execPath, args: [base, 'compare', QRELS, ...runPaths, ...flags] }] : []),
    ];
    paired(`irw compare: ${title}`, commands, rounds, base ? 'irw compare (baseline build)' : 'irw compare');
    process.stdout.write(`where the time goes (this process, load ${load()}): ${stages(runPaths, flags.length > 0)}\n`);
  }
}

main();
