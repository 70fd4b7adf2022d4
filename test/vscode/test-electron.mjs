// First choice for the extension-host suite: a real desktop VS Code through @vscode/test-electron, either the
// build named by VSCODE_EXECUTABLE_PATH or one it downloads. Run by run.mjs as a child process (so a hung VS Code
// can be killed with its process group):
//   node test/vscode/test-electron.mjs SUITE_INDEX WORKSPACE PROFILE_DIR   (fresh user data and extensions)
// Exit code: the suite's, or SKIPPED when no VS Code is on disk and none can be downloaded.
import { lookup } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { REPO } from './prepare.mjs';

const SKIPPED = 77; // run.mjs knows this code
const DOWNLOAD_HOST = 'update.code.visualstudio.com';

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A VS Code executable, or why none can be run here. Offline this answers within seconds (DNS first). */
async function vscodeExecutable() {
  const onDisk = process.env.VSCODE_EXECUTABLE_PATH;
  if (onDisk) {
    if (!existsSync(onDisk)) {
      console.error(`test-electron: VSCODE_EXECUTABLE_PATH=${onDisk} does not exist`);
      process.exit(1);
    }
    return { exe: onDisk };
  }
  const unreachable = (e) => ({ skipped: `no VS Code download reachable (${e instanceof Error ? e.message : String(e)})` });
  try {
    await withTimeout(lookup(DOWNLOAD_HOST), 5000, `DNS lookup of ${DOWNLOAD_HOST}`);
  } catch (e) {
    return unreachable(e);
  }
  // A desktop VS Code on Linux needs an X display: without one, do not fetch ~150 MB that cannot start.
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { skipped: 'no X display for a desktop VS Code: DISPLAY is unset (xvfb-run npm run test:vscode provides one)' };
  }
  try {
    // test-electron's own timeout is per request and per stalled chunk; a whole download of ~150 MB gets 3 minutes.
    const exe = await withTimeout(
      downloadAndUnzipVSCode({ cachePath: join(REPO, '.vscode-test'), timeout: 15_000 }), 180_000, 'VS Code download');
    return { exe };
  } catch (e) {
    return unreachable(e);
  }
}

const [suite, workspace, profile] = process.argv.slice(2);
const { exe, skipped } = await vscodeExecutable();
if (skipped) {
  console.log(`test-electron: skipped: ${skipped}`);
  process.exit(SKIPPED);
}
console.log(`test-electron: running in ${exe}`);
try {
  process.exit(await runTests({
    vscodeExecutablePath: exe,
    extensionDevelopmentPath: REPO,
    extensionTestsPath: suite,
    launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${join(profile, 'user-data')}`,
      `--extensions-dir=${join(profile, 'extensions')}`],
  }));
} catch (e) {
  // TestRunFailedError carries the suite's exit code; anything else is a launch failure.
  console.error(`test-electron: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(typeof e?.code === 'number' && e.code !== 0 ? e.code : 1);
}
