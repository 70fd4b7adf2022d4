// Fault class: blocks of NUL bytes in run and qrels files (what a crash or a damaged disk leaves: a file system
// extends a file with zeros whose data never reached the disk). A block at every offset of real files (SciFact's
// BM25 run, its test qrels), of the sizes crashes leave (a byte, a sector, a page): each must be refused naming the
// file and the first damaged line, by every reader (one thread, two threads, the engine's bad-line pass), never
// read as figures.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../src/core/formats/errors';
import { readQrels } from '../../src/core/formats/qrels';
import { readRun } from '../../src/core/formats/run';
import { startRunRead } from '../../src/core/formats/runInParallel';
import { DATASETS, REPO, RUNS } from '../unit/support/paths';
import { tally } from './tally';

const ENTRY = join(REPO, 'dist', 'run-reader.js');
const dir = mkdtempSync(join(tmpdir(), 'irw-faults-nul-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const RUN = join(RUNS, 'scifact', 'bm25okapi.knarfthekant.trec');
const QRELS = join(DATASETS, 'scifact', 'qrels', 'test.tsv');
const missing = [RUN, QRELS].filter((f) => !existsSync(f));
const NO_DATA = missing.length ? `needs ${missing.join(' and ')} (the project's shared data)` : undefined;

/** `good` with NUL bytes over [at, at + size): the path, and the first line they touch. */
function damaged(name: string, good: Buffer, at: number, size: number): { path: string; line: number } {
  const bad = Buffer.from(good);
  bad.fill(0, at, Math.min(good.length, at + size));
  const path = join(dir, name);
  writeFileSync(path, bad);
  return { path, line: good.subarray(0, at).toString('latin1').split('\n').length };
}

const refusal = (path: string, line: number) => (e: unknown) => e instanceof InputError && e.file === path && e.line === line && /NUL bytes/.test(e.message);

describe('fault class: NUL blocks in run and qrels files', { skip: NO_DATA }, () => {
  it('a run (the first 256 KiB of a real BM25 run): a block at every page offset and at odd offsets, 1 byte to 4 KiB', async () => {
    const counts = tally('NUL blocks in a run file');
    const good = readFileSync(RUN).subarray(0, 256 << 10);
    const offsets = new Set<number>();
    for (let at = 0; at < good.length; at += 4096) offsets.add(at);
    for (let at = 1; at < good.length; at += 4099 * 5) offsets.add(at);
    for (const at of offsets) {
      for (const size of [1, 512, 4096]) {
        const { path, line } = damaged(`run-${at}-${size}.trec`, good, at, size);
        let held: boolean;
        try {
          readRun(path);
          held = false;
        } catch (e) {
          held = refusal(path, line)(e);
        }
        if (size === 4096 && at % (4096 * 8) === 0) {
          // Two threads (the CLI's reader for large runs), split in the middle.
          held &&= await startRunRead(path, {}, ENTRY, { minBytes: 0, headShare: 0.5 }).finish().then(() => false, refusal(path, line));
          // The engine's pass that lists every bad line: the damaged one is among them.
          const bad: InputError[] = [];
          try {
            readRun(path, { onBadLine: (e) => bad.push(e) });
          } catch {
            // nothing left to read: the bad lines were reported first
          }
          held &&= bad.some((e) => e.line === line && /NUL/.test(e.message));
        }
        counts.case(held);
        assert.ok(held, `offset ${at}, ${size} bytes`);
      }
    }
    counts.report();
  });

  it("qrels (SciFact's test qrels): a block at every offset", () => {
    const counts = tally('NUL blocks in a qrels file');
    const good = readFileSync(QRELS);
    for (let at = 0; at < good.length; at += at < 2048 ? 1 : 97) {
      for (const size of [1, 4096]) {
        const { path, line } = damaged(`qrels-${at}-${size}.tsv`, good, at, size);
        let held: boolean;
        try {
          readQrels(path);
          held = false;
        } catch (e) {
          held = refusal(path, line)(e);
        }
        counts.case(held);
        assert.ok(held, `offset ${at}, ${size} bytes`);
      }
    }
    counts.report();
  });
});
