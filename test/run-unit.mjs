// Runs the plain-Node unit tests with node's test runner (Node 20's --test takes no globs).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}
// Arguments: parts of the paths of the test files to run (any of them; none: all).
const filters = process.argv.slice(2);
const files = find('test/unit').filter((f) => !filters.length || filters.some((p) => f.includes(p))).sort();
// node --test with no file runs every test it finds in the repository (e2e included): refuse instead.
if (files.length === 0) {
  console.error(`test:unit: no test/unit/**/*.test.ts file matches ${filters.map((p) => `"${p}"`).join(' or ')}`);
  process.exit(1);
}
// The spec reporter for people, then the suite's `N passed, N failed` line as its last.
const REPORTERS = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./test/summary-reporter.mjs', '--test-reporter-destination=stdout'];
// Two files at a time at least: many tests wait on child processes, so one core's worth of files left the
// second core idle (node's default is one fewer than the cores: one file at a time on 2 cores).
const CONCURRENCY = `--test-concurrency=${Math.max(2, availableParallelism())}`;
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', CONCURRENCY, ...REPORTERS, ...files], { stdio: 'inherit', env: { ...process.env, IRW_SUITE: 'unit' } });
process.exit(r.status ?? 1);
