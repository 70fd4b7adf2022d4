// NUL bytes in a run file (what a crash leaves) are refused with file:line, never scored (issue 28 item 7).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../../src/core/formats/errors';
import { readRun } from '../../../../src/core/formats/run';
import { startRunRead } from '../../../../src/core/formats/runInParallel';
import { RUNS } from '../../support/paths';

const ENTRY = join(__dirname, '../../../../src/core/formats/runInParallel.ts');
const dir = mkdtempSync(join(tmpdir(), 'irw-runnul-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `good` with `bytes` NUL bytes written over it at `at` (a crash's zero-filled block): the file and the first line hit. */
function damaged(good: Buffer, at: number, bytes: number): { path: string; line: number } {
  const bad = Buffer.from(good);
  bad.fill(0, at, Math.min(bad.length, at + bytes));
  const path = join(dir, `run-${at}-${bytes}.trec`);
  writeFileSync(path, bad);
  return { path, line: good.subarray(0, at).toString('latin1').split('\n').length };
}

const isNulError = (path: string, line: number) => (e: unknown) =>
  e instanceof InputError && e.file === path && e.line === line && /NUL bytes/.test(e.message) && /damaged/.test(e.message);

describe('NUL bytes in a run', () => {
  it('a few NUL bytes at any offset of a small run: refused naming the line, by every reading path', () => {
    const good = Buffer.from(Array.from({ length: 12 }, (_, i) => `q${i >> 2} Q0 d${i} ${(i & 3) + 1} ${10 - i}.5 tag\n`).join(''));
    for (let at = 0; at < good.length; at++) {
      const { path, line } = damaged(good, at, 2);
      assert.throws(() => readRun(path), isNulError(path, line), `offset ${at}`);
      const bad: InputError[] = [];
      readRunQuietly(path, bad);
      assert.equal(bad[0]?.line, line, `onBadLine, offset ${at}`);
    }
  });

  it('a 4 KiB block of NUL bytes in a real run (SciFact BM25), aligned as a file system leaves it: never figures', async () => {
    const good = readFileSync(join(RUNS, 'scifact', 'bm25okapi.knarfthekant.trec')).subarray(0, 1 << 18);
    for (let at = 0; at < good.length; at += 4096 * 7) {
      const { path, line } = damaged(good, at, 4096);
      assert.throws(() => readRun(path), isNulError(path, line), `offset ${at}`);
      await assert.rejects(startRunRead(path, {}, ENTRY, { minBytes: 0, headShare: 0.5 }).finish(), isNulError(path, line), `two threads, offset ${at}`);
    }
  });
});

function readRunQuietly(path: string, bad: InputError[]): void {
  try {
    readRun(path, { onBadLine: (e) => bad.push(e) });
  } catch {
    // a run whose every line is bad has no result lines: the bad lines were reported first
  }
}
