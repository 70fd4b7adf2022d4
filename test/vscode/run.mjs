/* global AbortController -- Node 16+ */
// `npm run test:vscode` (after `npm run build`): the extension-host integration suite (test/integration/) in a real
// VS Code. First choice: @vscode/test-electron with a desktop VS Code (VSCODE_EXECUTABLE_PATH, or a download);
// where none can be had (offline: the download fails at once), code-server's workbench with its Node extension host,
// from the tools folder that setup-tools.sh fills. Ends with "integration: N passed, N failed" and the suite's exit
// code. Options: --datasets DIR (or IRW_TEST_DATASETS; default ../shared/datasets), env IRW_TEST_GREP (mocha grep),
// IRW_VSCODE_TIMEOUT_MS (default 240000, not counting a first install of the tools), IRW_VSCODE_TOOLS,
// IRW_SETUP_TOOLS=1 (install the code-server tools when missing; without it the suite is skipped, saying so).
// Without the fixture data the suite is skipped too, with one line saying how to get it.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInCodeServer, toolsDir } from './code-server.mjs';
import { REPO, compileSuite, datasetsDir, makeWorkspace, missingFixtures, option } from './prepare.mjs';
import { haveTools, skipSuite } from './tools.mjs';

const TIMEOUT_MS = Number(process.env.IRW_VSCODE_TIMEOUT_MS ?? 240_000);
const SKIPPED = 77; // test-electron.mjs: no VS Code on disk or downloadable
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

// Everything the VS Code runs print, kept to read mocha's summary from.
let transcript = '';
function out(text, isError = false) {
  transcript += text.endsWith('\n') ? text : `${text}\n`;
  (isError ? process.stderr : process.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Mocha's spec reporter ends with "N passing", "N failing", "N pending" (each only when non-zero, but passing). */
function mochaCounts() {
  const plain = transcript.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
  const count = (word) => {
    const hits = [...plain.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\b`, 'gm'))];
    return hits.length ? Number(hits[hits.length - 1][1]) : undefined;
  };
  return { passed: count('passing'), failed: count('failing'), pending: count('pending') };
}

function finish(code) {
  const { passed, failed, pending } = mochaCounts();
  if (passed === undefined && failed === undefined) {
    console.log(`test:vscode: no mocha summary in the output (exit code ${code}): the suite did not run, or stopped before its summary`);
    code ||= 1;
  } else if (code === 0 && failed) {
    code = 1;
  }
  console.log(`test:vscode: ${code === 0 ? 'passed' : `FAILED (exit code ${code})`} in ${elapsed()}`);
  console.log(`integration: ${passed ?? 0} passed, ${failed ?? (code === 0 ? 0 : 1)} failed${pending ? `, ${pending} skipped` : ''}`);
  process.exit(code);
}

// One deadline for the VS Code runs; a cold install of the tools (minutes, once per machine) moves it.
let deadline = Date.now() + TIMEOUT_MS;
const controller = new AbortController();
let timer;
function armTimer() {
  clearTimeout(timer);
  timer = setTimeout(() => controller.abort(new Error(
    `TIMEOUT: the VS Code run took over ${TIMEOUT_MS / 1000} s (IRW_VSCODE_TIMEOUT_MS); stopped it`)), deadline - Date.now());
}
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => controller.abort(new Error(`interrupted (${sig})`)));

/** test-electron.mjs in its own process group, so a hung VS Code dies with it on timeout. */
function testElectron(suite, workspace, profile) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(REPO, 'test', 'vscode', 'test-electron.mjs'), suite, workspace, profile],
      { cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => out(d.toString()));
    child.stderr.on('data', (d) => out(d.toString(), true));
    const kill = () => {
      out(controller.signal.reason.message, true);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    controller.signal.addEventListener('abort', kill, { once: true });
    child.on('close', (code, sig) => {
      controller.signal.removeEventListener('abort', kill);
      done(controller.signal.aborted ? 124 : code ?? (sig ? 128 : 1));
    });
  });
}

/** The suite's test files: what a skipped suite counts as skipped. */
const SUITE_FILES = readdirSync(join(REPO, 'test', 'integration')).filter((f) => f.endsWith('.test.ts')).length;

async function codeServer(suite, workspace, tmp) {
  const tools = toolsDir();
  const setupStart = Date.now();
  if (!haveTools('test:vscode', { tools })) {
    rmSync(tmp, { recursive: true, force: true });
    skipSuite('integration', SUITE_FILES);
  }
  deadline += Date.now() - setupStart;
  armTimer();
  out(`code-server: running the suite (tools: ${tools})`);
  try {
    return await runInCodeServer({
      tools, extensionPath: REPO, suite, workspace, tmp, signal: controller.signal,
      log: (type, text) => out(text, type === 'error' || type === 'warn'),
    });
  } catch (e) {
    out(`code-server: ${e instanceof Error ? e.message : String(e)}`, true);
    return controller.signal.aborted ? 124 : 1;
  }
}

if (!existsSync(join(REPO, 'dist', 'extension.js'))) {
  console.error('test:vscode: dist/extension.js is missing: run `npm run build` first (CI builds before `npm test`).');
  process.exit(1);
}
const missingData = missingFixtures(datasetsDir(option(process.argv.slice(2), '--datasets')));
if (missingData) {
  console.log(`test:vscode: skipped: ${missingData}`);
  skipSuite('integration', SUITE_FILES);
}
const tmp = mkdtempSync(join(tmpdir(), 'irw-vscode-'));
let suite, workspace;
try {
  suite = await compileSuite();
  workspace = makeWorkspace(join(tmp, 'workspace'), datasetsDir(option(process.argv.slice(2), '--datasets')));
} catch (e) {
  rmSync(tmp, { recursive: true, force: true });
  console.error(`test:vscode: ${e instanceof Error ? e.message : String(e)}`); // esbuild has printed its errors above
  finish(1);
}
mkdirSync(join(tmp, 'profile'));
armTimer();
let code = await testElectron(suite, workspace, join(tmp, 'profile'));
if (code === SKIPPED) code = await codeServer(suite, workspace, tmp);
clearTimeout(timer);
if (code === 0) rmSync(tmp, { recursive: true, force: true });
else console.error(`test:vscode: kept ${tmp} (workspace, profile; code-server.log and workbench.log after a code-server run)`);
finish(code);
