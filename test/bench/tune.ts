/**
 * Tuning benchmark (`npm run bench:tune [-- --rounds 3]`). On SciFact and NFCorpus (test split, nDCG@10, 5-fold
 * cross-validation over queries, seed 1), prints with the load average beside every time:
 *  1. BM25 over k1 0.5-1.5 and b 0.2-1.0 (steps 0.1: 99 settings): the cross-validation table (each fold's
 *     choice, tuning and held-out means against the default k1 0.9 b 0.4), the held-out gain with its paired
 *     bootstrap interval and t-test, the tuning-fold gain, and the time of the whole `irw tune` process (wall and
 *     CPU, best and median of the rounds, the datasets alternating). The grid searches one index: the time of
 *     one index build beside it says what a rebuild per setting would cost.
 *  2. The fusion of our BM25 run with the shared all-MiniLM-L6-v2 run (SciFact only: there is no MiniLM run of
 *     NFCorpus) over normalizations, methods and the MiniLM share of the weight (0-1, step 0.1): the same table.
 * Needs a build (`npm run build` is run by the npm script) and ../shared. Figures depend on the machine and its load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { TuneReport } from '../../src/core/tune/tune';

const ROOT = resolve(__dirname, '../..');
const SHARED = resolve(ROOT, '../shared');
const WORK = join(ROOT, '.bench', 'tune');
const CLI = join(ROOT, 'dist', 'cli.js');
const MINILM = join(SHARED, 'runs/scifact/minilm-faiss.knarfthekant.trec');

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2;
};

/** One whole CLI process: wall, CPU (user + system) and peak RSS from GNU time, and its JSON report. */
function irw(args: string[]): { report: TuneReport; ms: number; cpuMs: number; rssMb: number; load: string } {
  const before = load();
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'IRW_TIME %M %U %S', CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`irw ${args.join(' ')}: ${r.stderr}`);
  const [, rss, user, sys] = /IRW_TIME (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr)!;
  return { report: JSON.parse(r.stdout) as TuneReport, ms, cpuMs: (Number(user) + Number(sys)) * 1000, rssMb: Number(rss) / 1024, load: before };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => `| ${r.map((x, c) => x.padEnd(widths[c])).join(' | ')} |`).join('\n').replace(/\n/, `\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
}

function report(title: string, r: TuneReport): string {
  const cv = r.cv;
  const rows = [
    ['fold', 'queries', 'chosen on the other folds', 'tuning', 'default', 'held-out', 'default', 'gain'],
    ...cv.folds.map((f, i) => [String(i + 1), String(f.queries.length), r.settings[f.chosen], f.tuning.toFixed(4), f.tuningDefault.toFixed(4), f.heldOut.toFixed(4), f.heldOutDefault.toFixed(4), signed(f.heldOut - f.heldOutDefault)]),
  ];
  return [
    `### ${title}`,
    '',
    `${r.settings.length} settings; default ${r.settings[r.defaultIndex]}; ${r.measure}, ${cv.queries} queries, ${r.options.folds}-fold cross-validation over queries (seed ${r.options.seed}).`,
    '',
    table(rows),
    '',
    `- held-out gain over the default: **${signed(cv.heldOutGain)}**, 95% CI [${signed(cv.ci.lo)}, ${signed(cv.ci.hi)}] (paired bootstrap), ${cv.test} p ${cv.p.toFixed(3)}`,
    `- gain on the tuning folds: ${signed(cv.tuningGain)}${cv.overfit ? ' — above the held-out interval: **overfitting warning**' : ' (within the held-out interval)'}`,
    `- chosen on all queries: ${r.settings[cv.chosenOnAll]}, ${cv.allScore.toFixed(4)} vs ${cv.allDefault.toFixed(4)} (on the queries it was chosen on: not held out)`,
  ].join('\n');
}

function main(): void {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '2' } } });
  const rounds = Math.max(1, Number(values.rounds));
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  mkdirSync(WORK, { recursive: true });
  const common = ['--measure', 'ndcg_cut.10', '--folds', '5', '--seed', '1', '--format', 'json'];
  const jobs: { name: string; args: string[] }[] = [];
  for (const ds of ['scifact', 'nfcorpus']) {
    jobs.push({ name: `BM25 ${ds}`, args: ['tune', '--dataset', join(SHARED, 'datasets', ds), '--k1', '0.5:1.5:0.1', '--b', '0.2:1.0:0.1', ...common, '--out', join(WORK, `${ds}-bm25-tuned.trec`)] });
  }
  // Our default BM25 run of SciFact, the fusion's first input (made once, not timed).
  const bm25 = join(WORK, 'scifact-bm25.trec');
  const made = spawnSync(CLI, ['run', '--dataset', join(SHARED, 'datasets/scifact'), '--out', bm25], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(made.stderr);
  jobs.push({
    name: 'fusion scifact',
    args: ['tune', '--qrels', join(SHARED, 'datasets/scifact/qrels/test.tsv'), bm25, MINILM, '--norm', 'min-max,max,sum,l2,z-score,rank', '--method', 'arithmetic,combsum,combmnz,rrf', '--weight-share', '0:1:0.1', ...common, '--out', join(WORK, 'scifact-fused-tuned.trec')],
  });
  const results = new Map<string, ReturnType<typeof irw>[]>();
  // Rounds interleave the jobs, so a change of load hits them alike.
  for (let round = 0; round < rounds; round++) {
    for (const job of jobs) {
      const r = irw(job.args);
      results.set(job.name, [...(results.get(job.name) ?? []), r]);
      process.stderr.write(`round ${round + 1}: ${job.name} ${(r.ms / 1000).toFixed(1)} s wall, ${(r.cpuMs / 1000).toFixed(1)} s CPU, load ${r.load}\n`);
    }
  }
  const out: string[] = [`bench:tune, ${rounds} round(s), ${new Date().toISOString().slice(0, 10)}`, ''];
  const times: string[][] = [['job', 'settings', 'wall best / median', 'CPU best / median', 'index build (once)', 'grid', 'peak RSS', 'load average (1, 5, 15 min) at start']];
  for (const job of jobs) {
    const rs = results.get(job.name)!;
    const r = rs[0].report;
    out.push(report(`${job.name}${job.name.startsWith('fusion') ? ' (our BM25 + the shared all-MiniLM-L6-v2 run)' : ''}`, r), '');
    const ms = rs.map((x) => x.ms);
    const cpu = rs.map((x) => x.cpuMs);
    times.push([
      job.name,
      String(r.settings.length),
      `${(Math.min(...ms) / 1000).toFixed(1)} / ${(median(ms) / 1000).toFixed(1)} s`,
      `${(Math.min(...cpu) / 1000).toFixed(1)} / ${(median(cpu) / 1000).toFixed(1)} s`,
      r.kind === 'bm25' ? `${(median(rs.map((x) => x.report.millis.prepare)) / 1000).toFixed(1)} s` : '-',
      `${(median(rs.map((x) => x.report.millis.grid)) / 1000).toFixed(1)} s (${(median(rs.map((x) => x.report.millis.grid)) / r.settings.length).toFixed(0)} ms a setting)`,
      `${Math.max(...rs.map((x) => x.rssMb)).toFixed(0)} MB`,
      rs.map((x) => x.load.split(' ')[0]).join(', '),
    ]);
  }
  out.push('### Time', '', table(times), '', 'NFCorpus fusion: no MiniLM run of NFCorpus is available here (no model weights can be downloaded), so only SciFact is fused.');
  process.stdout.write(`${out.join('\n')}\n`);
}

main();
