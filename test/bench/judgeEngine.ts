/**
 * bench:judge-engine — the engine's CPU per judgement (issue 24), in one process without a worker or a
 * webview: SciFact's test split opened as the engine opens it (sql.js index, the split state, the shared runs
 * added as the user adds runs), the views of a judging session open (Results against the first run with its
 * tests, ranges and estimates; the Diff of the first two runs; the Holes panel; the Judge sidebar's pair and, in
 * the impact and sampling orders, its queue re-ordered), then
 * N judgements of the pooled top 10 (blind order: the holes of every run's top 10, graded by a seeded draw,
 * about one in four relevant). After each, every model those views ask for is recomputed to completion,
 * phase by phase, timed with process.cpuUsage() (CPU of this process) and a wall clock.
 *
 * usage: npm run bench:judge-engine -- [--judgements N] [--order blind|impact|sample]
 *   [--profile K [--profile-file F]] (a CPU profile of judgement K alone, written to F, and its top entries by
 *   self time) [--digest] (a SHA-256 of the models the views get after each judgement, untimed: two builds that
 *   print the same digests gave the same figures to the bit) [--json] (one last line: the per-judgement figures
 *   as JSON, for a paired comparison of two builds)
 *   Needs the shared data (SciFact and its runs).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { indexWorkspace } from '../../src/core/engine/indexer';
import { evaluationOf } from '../../src/core/engine/settings';
import { SplitModels } from '../../src/core/engine/splits';
import { openDatabase } from '../../src/core/index/database';
import { runFiles } from '../../src/core/index/discovery';
import { uniform } from '../../src/core/random';
import { diffEstimateNeeds, diffModel, diffNeeds } from '../../src/core/split/diff';
import { estimateSteps } from '../../src/core/split/estimates';
import { holesModel, withTitles } from '../../src/core/split/holes';
import { judgingQueue, pairState } from '../../src/core/split/judging';
import { DEFAULT_TESTING, estimateNeeds, resultsModel, resultsNeeds, significanceSteps } from '../../src/core/split/results';
import { similaritySteps } from '../../src/core/split/similarity';
import { trustSteps } from '../../src/core/split/underHoles';
import { runSteps } from '../../src/core/steps';
import type { QueueOrder } from '../../src/protocol/webview';
import { load } from './busy';
import { SHARED } from '../unit/support/paths';

const { values: opts } = parseArgs({
  options: {
    judgements: { type: 'string', default: '20' },
    order: { type: 'string', default: 'blind' },
    profile: { type: 'string' },
    'profile-file': { type: 'string', default: '.bench/judgement.cpuprofile' },
    digest: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(opts.judgements);
const ORDER = opts.order as QueueOrder;
const PROFILE = opts.profile !== undefined ? { at: Number(opts.profile), file: opts['profile-file']! } : undefined;
const DATASET = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');

const PHASES = ['judge', 'foreground', 'significance', 'ranges', 'estimates', 'models'] as const;
type Phase = (typeof PHASES)[number];

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** The profile's functions by self time (ms), the top `n`. */
function topSelf(p: CpuProfile, n: number): { name: string; ms: number }[] {
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, ms]) => ({ name, ms }));
}

async function main(): Promise<void> {
  const { db } = await openDatabase(undefined);
  const evaluation = evaluationOf({ measures: [] });
  await indexWorkspace(db, [DATASET], { ...evaluation, runsFolder: '.no-runs-here' });
  const models = new SplitModels(db, () => evaluation);
  const s = models.state(DATASET, 'test');
  if (!s) throw new Error(`${DATASET} (test) did not index`);
  models.pin([`${DATASET}\ttest`]);
  for (const f of runFiles(RUNS).sort()) models.addExtraRun(DATASET, 'test', f);
  const keys = s.runKeys();
  const [a, b] = keys;
  const baseline = a;
  const testing = DEFAULT_TESTING;

  /** Every model the open views ask for after a judgement, computed to completion; CPU ms per phase. */
  const views = async (): Promise<Record<Exclude<Phase, 'judge' | 'foreground'>, number>> => {
    const out = {} as Record<Exclude<Phase, 'judge' | 'foreground'>, number>;
    const timed = async (phase: Exclude<Phase, 'judge' | 'foreground'>, f: () => unknown): Promise<void> => {
      const c = process.cpuUsage();
      await f();
      out[phase] = cpuMs(process.cpuUsage(c));
    };
    await timed('significance', () => runSteps(significanceSteps(s, baseline, testing)));
    await timed('ranges', () => {
      runSteps(trustSteps(s, resultsNeeds(s, baseline, testing)));
      runSteps(trustSteps(s, diffNeeds(a, b)));
      runSteps(similaritySteps(s, a, b));
    });
    await timed('estimates', () => {
      runSteps(estimateSteps(s, estimateNeeds(s, baseline, testing.compare)));
      runSteps(estimateSteps(s, diffEstimateNeeds(a, b)));
    });
    await timed('models', async () => {
      resultsModel(s, baseline, { skipped: [] }, { pending: true, testing });
      diffModel(s, a, b, { pending: true });
      await withTitles(s, holesModel(s, { runs: keys, depth: 10, listed: 200, order: ORDER }));
      await pairState(s, { impact: ORDER === 'blind' ? undefined : { runs: keys, depth: 10, order: ORDER } });
      // The sidebar re-orders its queue after each grade in the impact and sampling orders.
      if (ORDER !== 'blind') judgingQueue(s, keys, 10, ORDER);
    });
    return out;
  };

  /** The models the open views ask for, as they are before the background steps ran (pending figures). */
  const firstModels = async (): Promise<void> => {
    resultsModel(s, baseline, { skipped: [] }, { pending: true, testing });
    diffModel(s, a, b, { pending: true });
    await withTitles(s, holesModel(s, { runs: keys, depth: 10, listed: 200, order: ORDER }));
    await pairState(s, { impact: ORDER === 'blind' ? undefined : { runs: keys, depth: 10, order: ORDER } });
  };

  const t0 = performance.now();
  const opened = await views();
  console.log(
    `SciFact test, ${keys.length} runs (${keys.map((k) => k.split('/').pop()).join(', ')}), views opened in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
      `(CPU ms: ${Object.entries(opened).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}); ${load()}`,
  );

  const pool = judgingQueue(s, keys, 10, 'blind').items.filter((p) => s.grade(p.queryId, p.docId) === null);
  const scale = s.gradeScale();
  const rand = uniform(24);
  const rows: (Record<Phase, number> & { cpu: number; wall: number })[] = [];
  let session: Session | undefined;
  for (let i = 0; i < N; i++) {
    const p = pool[i];
    const grade = rand() < 0.25 ? scale[scale.length - 1] : 0;
    if (PROFILE?.at === i) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    }
    const c = process.cpuUsage();
    const w = performance.now();
    const j = process.cpuUsage();
    models.judged(DATASET, 'test', p.queryId, p.docId, grade);
    const judge = cpuMs(process.cpuUsage(j));
    // What the views wait for: their models right after the judgement, before any background step.
    const f = process.cpuUsage();
    await firstModels();
    const foreground = cpuMs(process.cpuUsage(f));
    const phases = await views();
    const wall = performance.now() - w;
    const cpu = cpuMs(process.cpuUsage(c));
    if (session) {
      const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
      session.disconnect();
      session = undefined;
      mkdirSync(dirname(PROFILE!.file), { recursive: true });
      writeFileSync(PROFILE!.file, JSON.stringify(profile));
      console.log(`CPU profile of judgement ${i} (${cpu.toFixed(0)} ms CPU) in ${PROFILE!.file}; top entries by self time:`);
      for (const t of topSelf(profile, 20)) console.log(`  ${t.ms.toFixed(1).padStart(8)} ms  ${t.name}`);
    }
    rows.push({ judge, foreground, ...phases, cpu, wall });
    if (opts.digest) {
      const shown = [resultsModel(s, baseline, { skipped: [] }, { pending: true, testing }), diffModel(s, a, b, { pending: true })];
      console.log(`digest ${i} ${createHash('sha256').update(JSON.stringify(shown)).digest('hex').slice(0, 16)}`);
    }
  }

  const cols = [...PHASES, 'cpu', 'wall'] as const;
  console.log(`\n${N} judgements (order ${ORDER}), CPU ms per phase, total CPU and wall ms; ${load()}`);
  console.log(['#', ...cols].map((x) => x.padStart(13)).join(''));
  rows.forEach((r, i) => console.log([String(i), ...cols.map((k) => r[k].toFixed(1))].map((x) => x.padStart(13)).join('')));
  console.log(['median', ...cols.map((k) => median(rows.map((r) => r[k])).toFixed(1))].map((x) => x.padStart(13)).join(''));
  console.log(`judge-engine: CPU per judgement median ${median(rows.map((r) => r.cpu)).toFixed(0)} ms (estimates ${median(rows.map((r) => r.estimates)).toFixed(0)} ms), wall median ${median(rows.map((r) => r.wall)).toFixed(0)} ms; ${load()}`);
  if (opts.json) console.log(JSON.stringify({ rows, load: load() }));
}

main().then(
  () => process.exit(0),
  (e: Error) => {
    console.error(e);
    process.exit(1);
  },
);
