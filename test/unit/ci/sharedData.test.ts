// Every test that reads the shared real data says so: a fresh clone without ../shared must skip it with one line
// saying what is missing (needsShared), or fall back to generated data (existsSync), never fail with ENOENT. The
// fresh-clone CI stage runs only the files that call needsShared, so a file that reads the data without it would
// go unnoticed there (nine did, from four branches).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';
import { REPO } from '../support/paths';

/** The names through which a test reaches the shared data (test/shared-data.cjs and the helpers over it). */
const READERS = /\b(SHARED|DATASETS|RUNS|GOLDEN|SCIFACT|SCIFACT_RUNS|scifactWorkspace)\b/;
const HELPERS = /from '(?:\.\.\/)+(?:support\/paths|helpers\/storeFixtures|shared-data\.cjs)'/;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? testFiles(p) : /\.test\.ts$/.test(f) ? [p] : [];
  });
}

it('a test file that reads ../shared skips without it (needsShared) or generates what it lacks (existsSync)', () => {
  const unguarded = ['unit', 'faults']
    .flatMap((d) => testFiles(join(REPO, 'test', d)))
    .filter((f) => f !== __filename)
    .filter((f) => {
      const text = readFileSync(f, 'utf8');
      const body = text.replace(/^import [^;]*;$/gm, '');
      return HELPERS.test(text) && READERS.test(body) && !/\b(needsShared|missingShared)\(|\bexistsSync\(/.test(body);
    })
    .map((f) => relative(REPO, f));
  assert.deepEqual(unguarded, []);
});
