// Runs the webview tests (headless Chromium via playwright-core) on the built bundles in dist/webview.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { missingShared, missingSharedMessage } from './shared-data.cjs';
import { haveTools, skipSuite } from './vscode/tools.mjs';

for (const name of ['results', 'diff', 'holes', 'annotate']) {
  if (existsSync(join('webview', name, 'main.ts')) && !existsSync(join('dist', 'webview', `${name}.js`))) {
    console.error(`dist/webview/${name}.js is missing: run npm run build first`);
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
// Every view is tested on the SciFact test split and the shared runs, in a browser: without either, the files are
// skipped (one line says why), each counted once.
const missing = missingShared(['datasets/scifact', 'runs']);
if (missing.length) console.log(`test:webview: skipped ${files.length} test files: ${missingSharedMessage(missing)}`);
if (missing.length || !haveTools('test:webview', { chromium: true })) skipSuite('webview', files.length);
// The spec reporter for people, then the suite's `N passed, N failed` line as its last.
const REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./test/summary-reporter.mjs', '--test-reporter-destination=stdout'];
// Two files at a time: each has its own browser, and one at a time left a core idle while a file waited on its
// pages (233 s against 198-208 s for the suite, load 2-6).
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...REPORTERS, '--test-concurrency=2', ...files], { stdio: 'inherit', env: { ...process.env, IRW_SUITE: 'webview' } });
process.exit(r.status ?? 1);
