// Whether the suites that need a browser or a VS Code workbench may run: their tools (test/vscode/setup-tools.sh)
// are installed, or the person asked for them to be. Installing them touches the system (apt-get, root), so
// `npm test` never does it unasked: without the tools and without IRW_SETUP_TOOLS=1 such a suite says what it
// would install and at what cost, and counts as skipped. CI (.ci/run) installs them first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../shared-data.cjs';

export const SETUP = join(REPO, 'test', 'vscode', 'setup-tools.sh');
/** Set to 1 to let a suite install its tools (what `npm run setup:vscode` does). */
export const OPT_IN = 'IRW_SETUP_TOOLS';
export const COST =
  'apt-get, system-wide (root or password-less sudo): chromium (~300 MB with its libraries) and libkrb5-dev; ' +
  'npm, into ~/.cache/ir-workbench/vscode-tools (IRW_VSCODE_TOOLS): Node 24, playwright-core and code-server (~0.8 GB); ' +
  'a few minutes, once per machine';

/** The chromium the webview tests drive. */
export const chromiumPath = () => process.env.IRW_CHROMIUM ?? '/usr/bin/chromium';

/** Whether setup-tools.sh finds its install complete (it checks, installs nothing). */
export function toolsReady(tools) {
  return spawnSync('bash', [SETUP, '--check', ...(tools ? [tools] : [])], { stdio: 'ignore' }).status === 0;
}

/**
 * True when the tools are there (`chromium`: only the browser) or were just installed because the person opted
 * in; false, after one line saying what is missing, what it costs and how to opt in, when the suite must skip.
 * Exits 1 when an install the person asked for fails.
 */
export function haveTools(suite, { tools, chromium = false } = {}) {
  if (chromium ? existsSync(chromiumPath()) : toolsReady(tools)) return true;
  if (process.env[OPT_IN] !== '1') {
    console.log(`${suite}: skipped: needs ${chromium ? `chromium (${chromiumPath()})` : 'the VS Code test tools (code-server, Node 24, chromium)'}, not installed. ` +
      `\`npm run setup:vscode\` (or ${OPT_IN}=1 npm test) installs them: ${COST}.`);
    return false;
  }
  const setup = spawnSync('bash', [SETUP, ...(tools ? [tools] : [])], { stdio: 'inherit' });
  if (setup.status !== 0) {
    console.error(`${suite}: test/vscode/setup-tools.sh failed (exit ${setup.status ?? setup.signal}); see its output above`);
    process.exit(1);
  }
  return true;
}

/** Ends a suite that cannot run: its `N passed, N failed, N skipped` line, counting what it would have run. */
export function skipSuite(name, skipped) {
  console.log(`${name}: 0 passed, 0 failed, ${skipped} skipped`);
  process.exit(0);
}
