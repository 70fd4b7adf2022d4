/* global AbortController, performance -- Node 16+ */
// bench:judging — judging latency as a person feels it, in a real VS Code (code-server, the packaged .vsix):
// SciFact with the four shared runs, the Results, Diff and Holes panels side by side and the Judge sidebar
// open; N digit keys in the sidebar (a think time apart), each timed from the keydown event to
//   - the next pair shown: the sidebar has drawn a frame with the next (query, document) pair;
//   - every view updated: each of the four views has drawn a frame with the figures of the new judgement
//     (the qrels version it shows, body[data-qrels-version], has reached the one after the judgement).
// Times are taken inside the pages (event time stamps, a MutationObserver, the next animation frame), so the
// driver's own polling adds nothing. Prints p50/p95/max per view, the CPU time of every process beside them
// (extension host with the engine, code-server, chromium), the load average, and ends with the line
//   judging: next pair p95 N ms, every view p95 N ms
// usage: npm run bench:judging [-- --busy N] [-- --judgements 30] [-- --think 1000] [-- --vsix FILE] [-- --views results,diff,holes]
//   [-- --profile FILE] (the workbench page's CPU profile meanwhile)
//   [-- --trace FILE] (a Chromium trace meanwhile, and a table of the renderer's main-thread work per judgement)
//   [-- --trace-categories a,b] (more of Chromium's trace categories, e.g. toplevel,v8,mojom, to say what a RunTask holds)
//   [-- --sequence] (the three slowest judgements: the engine's requests and each page's messages, in order)
//   --busy N: N CPU-burning processes beside it (test/bench/busy.ts). Goals (issue 24): next pair p95 < 100 ms,
//   every view p95 < 300 ms, at --busy 1.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { recordShown, shown as state, until } from '../e2e/timings.mjs';
import { Workbench } from '../e2e/workbench.mjs';
import { installExtension, launchChromium, startCodeServer, toolsDir, waitUntilServing } from '../vscode/code-server.mjs';
import { REPO, datasetsDir, makeWorkspace, option } from '../vscode/prepare.mjs';
import { burn, CLOCK_TICKS, load, procStat, settle } from './busy.ts';

const args = process.argv.slice(2);
const BUSY = Number(option(args, '--busy') ?? process.env.BENCH_BUSY ?? 0);
const JUDGEMENTS = Number(option(args, '--judgements') ?? process.env.BENCH_JUDGEMENTS ?? 30);
const THINK_MS = Number(option(args, '--think') ?? 1000);
const vsix = resolve(option(args, '--vsix') ?? join(REPO, 'ir-workbench-linux-x64.vsix'));
const RUNS = join(datasetsDir(), '..', 'runs', 'scifact');
/** --views: the panels open beside the sidebar (to tell what each costs); all three by default. */
const PANELS = (option(args, '--views') ?? 'results,diff,holes').split(',').filter(Boolean);
const VIEWS = ['sidebar', ...PANELS];

const p = (v, q) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(v.length * q))];
const fmt = (v) => `${Math.round(v)}`;

/**
 * What Chromium's threads did, per judgement, by the trace: each thread's CPU (its top-level events' thread time),
 * then on the renderers' main threads (the workbench and every webview run there) the thread time of the events
 * that say what it was (inclusive: a script's forced layout is also under Layout), and the scripts by file.
 */
function chromiumTable(trace, judgements) {
  const events = (trace.traceEvents ?? trace).filter((e) => e.tid !== undefined);
  const thread = (e) => `${e.pid}:${e.tid}`;
  const threadNames = new Map(events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [thread(e), e.args.name]));
  const cpu = (e) => e.tdur ?? e.dur ?? 0;
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const t = thread(e);
    if (!byThread.has(t)) byThread.set(t, []);
    byThread.get(t).push(e);
  }
  const threads = new Map();
  const what = new Map();
  const NAMES = ['HandlePostMessage', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'LayoutView::HitTest', 'MinorGC', 'MajorGC'];
  for (const [t, es] of byThread) {
    es.sort((x, y) => x.ts - y.ts || y.dur - x.dur);
    let end = -Infinity;
    const name = threadNames.get(t) ?? t;
    for (const e of es) {
      if (e.ts >= end) {
        add(threads, name, cpu(e));
        end = e.ts + e.dur;
      }
      if (name !== 'CrRendererMain') continue;
      const k = NAMES.includes(e.name) ? e.name : e.name === 'FunctionCall' && e.args?.data?.url ? `script ${e.args.data.url.replace(/[?#].*/, '').split('/').pop()}` : undefined;
      if (k) add(what, k, cpu(e));
    }
  }
  // Frames the display compositor drew (each composited in software without a GPU), and the CSS animations
  // that ran (an animation draws a frame per tick while it runs).
  const frames = events.filter((e) => e.name === 'Display::DrawAndSwap').length;
  const animations = new Map();
  for (const e of events) if (e.name === 'Animation' && e.ph === 'b') add(animations, e.args.data.displayName, 1);
  const ms = (us) => (us / 1000 / judgements).toFixed(0);
  const rows = (m, n) => [...m].sort((x, y) => y[1] - x[1]).slice(0, n).map(([k, v]) => `| ${k} | ${ms(v)} |`).join('\n');
  return `\n| Chromium's threads (CPU ms a judgement, by the trace) | |\n|---|---|\n${rows(threads, 6)}\n` +
    `\n| on the renderers' main threads (CPU ms a judgement, inclusive) | |\n|---|---|\n${rows(what, 14)}\n` +
    `\nframes drawn a judgement: ${(frames / judgements).toFixed(1)}; CSS animations started: ${[...animations].map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`;
}

/** Per process of this one's tree (chromium, code-server and its extension host): CPU ticks and what it is. */
function processes() {
  const byPid = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const { ppid, ticks } = procStat(`/proc/${d}/stat`);
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ');
      byPid.set(Number(d), { ppid, ticks, cmd });
    } catch {
      // gone meanwhile
    }
  }
  const mine = new Map();
  const walk = (pid) => {
    for (const [c, e] of byPid) {
      if (e.ppid === pid && !mine.has(c)) {
        mine.set(c, e);
        walk(c);
      }
    }
  };
  walk(process.pid);
  return mine;
}

/** What a process of the tree is, for the CPU breakdown. */
function kind(cmd) {
  if (/--type=extensionHost|extensionHostProcess|bootstrap-fork.*extensionHost/.test(cmd)) return 'extension host + engine';
  if (/code-server|entry\.js|server-main|bootstrap-fork/.test(cmd)) return 'code-server';
  if (/--type=renderer/.test(cmd)) return 'chromium renderers';
  if (/chrom/.test(cmd)) return 'chromium (browser, GPU, network)';
  if (/process\.ppid/.test(cmd)) return null; // the --busy loops
  return 'other';
}

/**
 * The extension host's threads (the engine is a worker thread in it): CPU ticks per thread, named by the kernel's
 * comm of the thread ("main" for the process's own), to tell the engine's work from the host's.
 */
function hostThreads(procs) {
  const ticks = new Map();
  for (const [pid, e] of procs) {
    if (kind(e.cmd) !== 'extension host + engine') continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const { ticks: used } = procStat(`/proc/${pid}/task/${tid}/stat`);
        const name = Number(tid) === pid ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        ticks.set(`${tid} ${name}`, used);
      } catch {
        // gone meanwhile
      }
    }
  }
  return ticks;
}

function cpuByThreadName(before, after) {
  const out = new Map();
  for (const [k, t] of after) {
    const name = k.slice(k.indexOf(' ') + 1);
    out.set(name, (out.get(name) ?? 0) + ((t - (before.get(k) ?? 0)) * 1000) / CLOCK_TICKS);
  }
  return out;
}

function cpuByKind(before, after) {
  const out = new Map();
  for (const [pid, e] of after) {
    const k = kind(e.cmd);
    if (!k) continue;
    const used = e.ticks - (before.get(pid)?.ticks ?? 0);
    out.set(k, (out.get(k) ?? 0) + (used * 1000) / CLOCK_TICKS);
  }
  return out;
}

async function main() {
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing: run \`npm run package\` first (npm run bench:judging does)`);
  burn(BUSY);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
  if (BUSY > 0) await settle(BUSY);
  const tools = toolsDir();
  const tmp = mkdtempSync(join(tmpdir(), 'irw-bench-judging-'));
  let server;
  let browser;
  let page;
  try {
    const extensions = join(tmp, 'extensions');
    await installExtension(tools, vsix, extensions);
    const workspace = makeWorkspace(join(tmp, 'workspace'));
    const runs = join(workspace, 'scifact', 'runs');
    mkdirSync(runs, { recursive: true });
    const runFiles = readdirSync(RUNS).filter((f) => /\.(trec|tsv)$/.test(f)).sort();
    for (const f of runFiles) copyFileSync(join(RUNS, f), join(runs, f));
    // The engine's own account of its time (src/core/engine/trace.ts), read back for the judgements measured.
    const tracePath = join(tmp, 'engine-trace.jsonl');
    process.env.IRW_ENGINE_TRACE = tracePath;
    server = await startCodeServer({ tools, tmp, workspace, extensions });
    const controller = new AbortController();
    await waitUntilServing(server.base, server.server, join(tmp, 'code-server.log'), controller.signal);
    browser = await launchChromium(tools);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.base}/?folder=${encodeURIComponent(workspace)}`);
    const wb = new Workbench(page, async () => undefined);
    await wb.ready();

    // The split indexed, with figures for its four runs.
    await wb.openViewContainer('IR Workbench');
    await wb.treeRow('scifact', { expand: true, timeout: 120_000 });
    await wb.treeRow(/^test/, { expand: true, timeout: 120_000 });
    for (const f of runFiles) await wb.treeRow(new RegExp(`${f.replace(/\.(trec|tsv)$/, '').replace(/\./g, '\\.')}.*nDCG@10 \\d`), { timeout: 120_000 });
    const [a, b] = runFiles.map((f) => f.replace(/\.(trec|tsv)$/, ''));

    // Results | Diff | Holes side by side (a hidden webview draws no frames), then the Judge sidebar.
    await page.locator('.part.auxiliarybar').waitFor({ state: 'visible', timeout: 5_000 }).then(
      () => wb.runCommand('View: Hide Secondary Side Bar', { screenshot: false }), () => undefined);
    // A command takes the split (and the Diff its run a, the baseline) from the panel in the active editor: only
    // the picks it still asks are answered, until the view shows `selector`.
    const openView = async (command, picks, selector) => {
      await wb.runCommand(command, { screenshot: false });
      const shown = () => wb.webview(selector, { timeout: 1 }).then(() => true, () => false);
      for (let left = picks; ;) {
        const asked = await wb.waitFor(`${picks.map(([t]) => t).join(' or ')} or ${selector}`, async () => {
          for (const [i, [title]] of left.entries()) if (await wb.quickInput.filter({ hasText: title }).isVisible()) return { i };
          return (await shown()) && { i: -1 };
        }, { timeout: 120_000 });
        if (asked.i < 0) break;
        await wb.pick(...left[asked.i]);
        left = left.slice(asked.i + 1);
      }
      return wb.webview(selector, { timeout: 120_000 });
    };
    const open = {
      results: () => openView('IR Workbench: Show Results', [['Split of scifact', 'test']], '#results tbody tr'),
      diff: () => openView('IR Workbench: Show Run Diff', [['Split of scifact', 'test'], ['Run diff: run a (the reference)', a], ['Run diff: run b (compared with', b]], '#deltas'),
      holes: () => openView('IR Workbench: Show Holes', [['Split of scifact', 'test']], '#pool-size'),
    };
    for (const [i, panel] of PANELS.entries()) {
      await open[panel]();
      if (i > 0) await wb.runCommand('View: Move Editor into Right Group', { screenshot: false });
    }
    const side = await openView('IR Workbench: Judge Holes', [['Split of scifact', 'test']], '#grades');
    await side.locator('#document').waitFor();

    const frames = {};
    const selectors = { sidebar: '#grades', results: '#results', diff: '#deltas', holes: '#pool-size' };
    for (const view of VIEWS) {
      const selector = selectors[view];
      frames[view] = await wb.webviewFrame(selector);
      await recordShown(frames[view]);
    }
    // Every view shows the same judgements before the first key (background figures may still come).
    await wb.waitFor('every view at the same qrels version', async () => {
      const v = await Promise.all(VIEWS.map(async (view) => (await state(frames[view])).version));
      return v.every((x) => x === v[0] && Number.isFinite(x));
    }, { timeout: 120_000 });
    await page.waitForTimeout(THINK_MS);
    mkdirSync(join(REPO, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: join(REPO, 'test-artifacts', 'bench-judging.png') });

    const grades = await side.locator('#grades [data-grade]').evaluateAll((bs) => bs.map((el) => el.getAttribute('data-grade')));
    const next = [];
    const every = [];
    const keys = [];
    const byView = Object.fromEntries(VIEWS.map((v) => [v, []]));
    console.log(`judging ${JUDGEMENTS} pairs in the sidebar (${runFiles.length} runs, ${PANELS.length ? `${PANELS.join(' + ')} open` : 'no panel open'}), ${THINK_MS} ms between a view update and the next key; ${load()}`);
    // --profile FILE: a CPU profile of the workbench page's renderer (the webviews' frames are in it) meanwhile.
    const profiling = option(args, '--profile') && (await page.context().newCDPSession(page));
    if (profiling) {
      await profiling.send('Profiler.enable');
      await profiling.send('Profiler.setSamplingInterval', { interval: 500 });
      await profiling.send('Profiler.start');
    }
    const tracing = option(args, '--trace');
    if (tracing) await browser.startTracing(page, { path: tracing, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'viz', ...(option(args, '--trace-categories')?.split(',') ?? [])] });
    const eventsStart = await Promise.all(VIEWS.map(async (view) => (await state(frames[view])).events));
    const loadStart = loadavg()[0];
    const cpuStart = processes();
    const threadsStart = hostThreads(cpuStart);
    const wallStart = performance.now();
    const clockStart = Date.now();
    for (let i = 0; i < JUDGEMENTS; i++) {
      const before = await state(frames.sidebar);
      const grade = grades[i % 3 === 0 ? grades.length - 1 : 0];
      // Every wait is set up before the key and resolves inside its page: nothing polls the pages meanwhile.
      const index = before.keys.length;
      const waits = Promise.all([
        until(frames.sidebar, 'key', { key: index }),
        until(frames.sidebar, 'pair', { key: index, not: before.pair }),
        ...VIEWS.map((view) => until(frames[view], 'version', { version: before.version + 1 }).then((x) => x.t)),
      ]);
      await side.locator('#document').press(grade);
      const [key, shown, ...updated] = await waits;
      const messages = await Promise.all(VIEWS.map(async (view) => (await state(frames[view])).messages.filter((m) => m.queued >= key.t)));
      keys.push({ key: key.t, shown: Object.fromEntries(VIEWS.map((v, j) => [v, updated[j]])), messages: Object.fromEntries(VIEWS.map((v, j) => [v, messages[j]])) });
      next.push(shown.t - key.t);
      every.push(Math.max(...updated) - key.t);
      VIEWS.forEach((v, j) => byView[v].push(updated[j] - key.t));
      await page.waitForTimeout(THINK_MS);
    }
    const wall = performance.now() - wallStart - JUDGEMENTS * THINK_MS;
    if (profiling) writeFileSync(option(args, '--profile'), JSON.stringify((await profiling.send('Profiler.stop')).profile));
    if (tracing) await browser.stopTracing();
    const cpuEnd = processes();
    const cpu = cpuByKind(cpuStart, cpuEnd);
    const threads = cpuByThreadName(threadsStart, hostThreads(cpuEnd));
    const events = await Promise.all(VIEWS.map(async (view, j) => ((await state(frames[view])).events - eventsStart[j]) / JUDGEMENTS));
    const row = (what, v) => `| ${what} | ${fmt(p(v, 0.5))} | ${fmt(p(v, 0.95))} | ${fmt(Math.max(...v))} |`;
    console.log(`\n| keypress to … (ms, ${JUDGEMENTS} judgements, --busy ${BUSY}) | p50 | p95 | max |\n|---|---|---|---|`);
    console.log(row('next pair shown (sidebar)', next));
    for (const v of VIEWS) console.log(row(`${v} updated`, byView[v]));
    console.log(row('every view updated', every));
    console.log(`every view updated, each judgement (ms, in order): ${every.map(fmt).join(' ')}`);
    const total = [...cpu.values()].reduce((s, x) => s + x, 0);
    console.log(`\nCPU time a judgement (keypress to every view updated, think time included: ${THINK_MS} ms each): ${fmt(total / JUDGEMENTS)} ms in all; ` +
      `${[...cpu].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${fmt(v / JUDGEMENTS)} ms`).join(', ')}`);
    console.log(`the extension host's threads (CPU ms a judgement, by name; the engine is a worker thread): ` +
      `${[...threads].filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${fmt(v / JUDGEMENTS)}`).join(', ')}`);
    console.log(`host events a judgement (models, states): ${VIEWS.map((v, j) => `${v} ${events[j].toFixed(1)}`).join(', ')}`);
    console.log(`wall time of the ${JUDGEMENTS} judgements less think time: ${(wall / 1000).toFixed(1)} s; load average (1 min) ${loadStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`);
    console.log(engineTable(tracePath, clockStart, Date.now()));
    console.log(timeline(tracePath, keys));
    if (tracing) console.log(chromiumTable(JSON.parse(readFileSync(tracing, 'utf8')), JUDGEMENTS));
    console.log(`judging: next pair p95 ${fmt(p(next, 0.95))} ms, every view p95 ${fmt(p(every, 0.95))} ms`);
  } catch (e) {
    // What the workbench showed when it failed.
    const shot = join(REPO, 'test-artifacts', 'bench-judging-failed.png');
    await page?.screenshot({ path: shot }).then(() => console.error(`screenshot: ${shot}`), () => undefined);
    throw e;
  } finally {
    if (browser) await browser.close().catch(() => undefined);
    if (server) await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The engine's requests and background jobs between `from` and `to` (wall clock), by kind: per judgement, and p95. */
function engineTable(path, from, to) {
  if (!existsSync(path)) return '\n(no engine trace: the engine did not write IRW_ENGINE_TRACE)';
  const byKind = new Map();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const t = JSON.parse(line);
    if (t.at < from || t.at > to) continue;
    byKind.set(t.kind, [...(byKind.get(t.kind) ?? []), t.ms]);
  }
  const rows = [...byKind].map(([k, v]) => [k, v.length / JUDGEMENTS, v.reduce((a, x) => a + x, 0) / JUDGEMENTS, p(v, 0.95), Math.max(...v)]).sort((x, y) => y[2] - x[2]);
  return `\n| engine (ms; requests: arrival to answer, background: computing time) | a judgement | ms a judgement | p95 | max |\n|---|---|---|---|---|\n` +
    rows.map(([k, n, ms, q, max]) => `| ${k} | ${n.toFixed(1)} | ${fmt(ms)} | ${fmt(q)} | ${fmt(max)} |`).join('\n');
}

/**
 * Where a judgement's wait goes, by the clocks of the pages and the engine (both wall clock): the key to the
 * engine's `judge` (page, workbench, code-server, extension host), the append, then per view the judgement's
 * answer to the view's request arriving (the host's turnaround) and its answer to the frame that shows it (the
 * model through the host and the workbench to the page, and its drawing). p50 / p95 over the judgements.
 */
function timeline(path, keys) {
  if (!existsSync(path)) return '';
  const traced = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).sort((x, y) => x.at - y.at);
  const request = { sidebar: 'pair', results: 'results', diff: 'diff', holes: 'holes' };
  const phases = new Map();
  const add = (k, v) => phases.set(k, [...(phases.get(k) ?? []), v]);
  for (const { key, shown, messages } of keys) {
    const judge = traced.find((t) => t.kind === 'judge' && t.at >= key - 2);
    if (!judge) continue;
    const judged = judge.at + judge.ms;
    add('key to the engine\'s judge', judge.at - key);
    add('judge (the append)', judge.ms);
    for (const [view, t] of Object.entries(shown)) {
      const r = traced.find((x) => x.kind === request[view] && x.at >= judged - 2);
      if (!r || r.at > t) continue;
      add(`${view}: judged to its request`, r.at - judged);
      add(`${view}: its request`, r.ms);
      const m = messages[view].find((x) => x.queued >= r.at + r.ms - 2 && x.handled <= t + 1);
      if (!m) {
        add(`${view}: answered to drawn`, t - r.at - r.ms);
        continue;
      }
      add(`${view}: answered to queued in the page`, m.queued - r.at - r.ms);
      add(`${view}: queued to handled`, m.handled - m.queued);
      add(`${view}: handled to drawn`, t - m.handled);
    }
  }
  // --sequence: the three slowest judgements, each request and background job (kind@start+ms after the key), then
  // per view each host event's time queued/handled in its page and the frame that showed the judgement.
  const slowest = [...keys].sort((x, y) => Math.max(...Object.values(y.shown)) - y.key - (Math.max(...Object.values(x.shown)) - x.key)).slice(0, 3);
  if (args.includes('--sequence')) for (const { key, shown, messages } of slowest) {
    const seq = traced.filter((t) => t.at >= key - 2 && t.at < key + 1500).map((t) => `${t.kind}@${Math.round(t.at - key)}+${t.ms}`);
    const ms = Object.entries(messages).map(([v, m]) => `${v}:${m.map((x) => `${Math.round(x.queued - key)}/${Math.round(x.handled - key)}`).join(',')} drawn ${Math.round(shown[v] - key)}`);
    console.log(`${seq.join(' ')}\n  ${ms.join('; ')}`);
  }
  return `\n| where a judgement's wait goes (ms) | p50 | p95 |\n|---|---|---|\n` +
    [...phases].map(([k, v]) => `| ${k} | ${fmt(p(v, 0.5))} | ${fmt(p(v, 0.95))} |`).join('\n');
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
