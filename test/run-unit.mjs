// Runs the plain-Node unit tests with node's test runner (Node 20's --test takes no globs).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { requireShared } from './shared-data.mjs';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}
const filter = process.argv[2];
requireShared('test:unit');
const files = find('test/unit').filter((f) => !filter || f.includes(filter)).sort();
// node --test with no file runs every test it finds in the repository (e2e included): refuse instead.
if (files.length === 0) {
  console.error(`test:unit: no test/unit/**/*.test.ts file matches "${filter}"`);
  process.exit(1);
}
// The spec reporter for people, then the suite's `N passed, N failed` line as its last.
const REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./test/summary-reporter.mjs', '--test-reporter-destination=stdout'];
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...REPORTERS, ...files], { stdio: 'inherit', env: { ...process.env, IRW_SUITE: 'unit' } });
process.exit(r.status ?? 1);
