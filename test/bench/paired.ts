/**
 * Whole processes timed side by side: each round runs every command once, in turn, so all see the same machine
 * load; each process is timed by /usr/bin/time (CPU time of the process and its children) and a wall clock.
 * Medians are quoted, with each command's ratio to a reference taken round by round (the pairing survives a
 * machine whose speed drifts), and the load average beside every table.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface Command {
  name: string;
  cmd: string;
  args: string[];
}

export interface Sample {
  wall: number;
  cpu: number;
  rss: number;
}

const TIME = '/usr/bin/time';

export function timed(c: Command): Sample {
  const t0 = process.hrtime.bigint();
  const r = existsSync(TIME)
    ? spawnSync(TIME, ['-f', 'BENCH_TIME %U %S %M', c.cmd, ...c.args], { encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(c.cmd, c.args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${c.name} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const m = /BENCH_TIME ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  return { wall, cpu: m ? Number(m[1]) + Number(m[2]) : NaN, rss: m ? Number(m[3]) * 1024 : NaN };
}

export const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * `rounds` rounds of every command (after one warm-up round, not counted); prints a table of medians (wall,
 * CPU, peak RSS, and the median of the round-by-round ratios to `reference`) with the load before and after.
 */
export function paired(title: string, commands: Command[], rounds: number, reference: string): Map<string, Sample[]> {
  const samples = new Map<string, Sample[]>(commands.map((c) => [c.name, []]));
  const loadBefore = load();
  for (const c of commands) timed(c);
  for (let i = 0; i < rounds; i++) {
    // The order turns every round, so that no command always runs right after the same one.
    for (let k = 0; k < commands.length; k++) {
      const c = commands[(i + k) % commands.length];
      samples.get(c.name)!.push(timed(c));
    }
  }
  const ref = samples.get(reference)!;
  const rows = commands.map((c) => {
    const s = samples.get(c.name)!;
    const ratio = (f: (x: Sample) => number) => median(s.map((x, i) => f(x) / f(ref[i]))).toFixed(2);
    return [c.name, median(s.map((x) => x.wall)).toFixed(3), median(s.map((x) => x.cpu)).toFixed(3), (median(s.map((x) => x.rss)) / 1048576).toFixed(0), ratio((x) => x.wall), ratio((x) => x.cpu)];
  });
  const head = ['command', 'wall s', 'CPU s', 'peak MB', `wall / ${reference}`, `CPU / ${reference}`];
  process.stdout.write(`\n${title}\n${rounds} paired rounds, medians; load average before ${loadBefore}, after ${load()}\n`);
  process.stdout.write(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
  return samples;
}

/** TREC_EVAL (trec_eval built with -O2), or undefined with a note on how to set it. */
export function trecEvalPeer(): string | undefined {
  const te = process.env.TREC_EVAL;
  if (te && existsSync(te)) return te;
  process.stdout.write('(set TREC_EVAL=/path/to/trec_eval, built from usnistgov/trec_eval with -O2, to time the peer side by side)\n');
  return undefined;
}

/** IRW_BASELINE: another build's dist/cli.js (e.g. main's), timed beside this one. */
export function baselineBuild(): string | undefined {
  const b = process.env.IRW_BASELINE;
  return b && existsSync(b) ? b : undefined;
}
