// Runs the webview tests (headless Chromium via playwright-core) on the built bundles in dist/webview.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { requireShared } from './shared-data.mjs';

for (const name of ['results', 'diff', 'holes', 'annotate']) {
  if (existsSync(join('webview', name, 'main.ts')) && !existsSync(join('dist', 'webview', `${name}.js`))) {
    console.error(`dist/webview/${name}.js is missing: run npm run build first`);
    process.exit(1);
  }
}
requireShared('test:webview', ['datasets/scifact', 'runs']);
// Debian's chromium comes with the VS Code test tools; on a fresh machine, install them first (idempotent,
// milliseconds when present) rather than fail: npm test runs these tests before the extension-host suite.
if (!process.env.IRW_CHROMIUM && !existsSync('/usr/bin/chromium')) {
  const setup = spawnSync('bash', [join('test', 'vscode', 'setup-tools.sh')], { stdio: 'inherit' });
  if (setup.status !== 0) {
    console.error('test:webview: chromium is missing and test/vscode/setup-tools.sh could not install it; see above');
    process.exit(1);
  }
}
const filter = process.argv[2];
const files = readdirSync('test/webview')
  .filter((f) => f.endsWith('.test.ts') && (!filter || f.includes(filter)))
  .sort()
  .map((f) => join('test/webview', f));
// node --test with no file runs every test it finds in the repository (e2e included): refuse instead.
if (files.length === 0) {
  console.error(`test:webview: no test/webview/*.test.ts file matches "${filter}"`);
  process.exit(1);
}
// The spec reporter for people, then the suite's `N passed, N failed` line as its last.
const REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./test/summary-reporter.mjs', '--test-reporter-destination=stdout'];
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...REPORTERS, '--test-concurrency=1', ...files], { stdio: 'inherit', env: { ...process.env, IRW_SUITE: 'webview' } });
process.exit(r.status ?? 1);
