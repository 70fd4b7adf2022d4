// The --busy mechanism of the benchmarks: N processes that each keep one core busy beside the measurement, so
// that the loads the goals are stated at can be reproduced on an otherwise idle machine.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** The kernel's clock ticks a second, the unit of /proc's CPU times. */
export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * A process's or thread's /proc stat file (`/proc/PID/stat`, `/proc/PID/task/TID/stat`): its parent's pid and
 * the CPU ticks it has used (user + system). Throws when it is gone.
 */
export function procStat(path: string): { ppid: number; ticks: number } {
  const stat = readFileSync(path, 'utf8');
  // The command name in parentheses may hold spaces: the fields are counted from its closing one.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
}

/** "load average 1.23 1.10 0.98": printed beside every figure. */
export const load = (): string => `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;

/**
 * N child processes that each keep one core busy until killed or until this process is gone (each checks its
 * parent ten times a second, so none outlives a killed bench); all are killed when this process exits.
 */
export function burn(n: number): ChildProcess[] {
  if (!Number.isInteger(n) || n < 0) throw new Error(`--busy takes a number of processes (0 or more), not ${n}`);
  const loop = `for (;;) { const t = Date.now() + 100; while (Date.now() < t); if (process.ppid !== ${process.pid}) process.exit(); }`;
  const busy = Array.from({ length: n }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }));
  process.on('exit', () => busy.forEach((c) => c.kill()));
  return busy;
}

/** Waits until the 1-minute load average has risen to what the busy loops add (it follows them in about a minute). */
export async function settle(n: number): Promise<void> {
  const start = performance.now();
  while (loadavg()[0] < n + 0.5 && performance.now() - start < 90_000) await new Promise((r) => setTimeout(r, 2000));
  console.log(`${n} busy process${n === 1 ? '' : 'es'} beside the bench; ${load()}`);
}
