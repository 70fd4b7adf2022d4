// readRun's fast path (RunParser.bulk) reads a run exactly as its line-by-line path (RunParser.onLine) alone
// does: same run, same bad lines with the same line numbers, whatever lines it meets and wherever a 1 MiB
// read cuts them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { InputError } from '../../../../src/core/formats/errors';
import { forEachLineSync } from '../../../../src/core/formats/lines';
import { readRun, RunParser, type ReadRunOptions, type Run } from '../../../../src/core/formats/run';
import { uniform } from '../../../../src/core/random';

const dir = mkdtempSync(join(tmpdir(), 'irw-run-'));

function dump(run: Run): unknown {
  return { tag: run.tag, qids: run.qids, n: run.numLines, rankings: run.qids.map((q) => run.ranking(q)) };
}

/** The run and every bad line, read by readRun (fast path and onLine) or by onLine alone. */
function read(path: string, lineByLine: boolean, options: ReadRunOptions = {}): { run?: unknown; bad: string[] } {
  const bad: string[] = [];
  const opts = { ...options, onBadLine: (e: InputError) => void bad.push(e.format()) };
  try {
    if (!lineByLine) return { run: dump(readRun(path, opts)), bad };
    const parser = new RunParser(path, opts);
    forEachLineSync(path, parser.onLine);
    return { run: dump(parser.finish()), bad };
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return { bad: [...bad, e.format()] };
  }
}

const SEPARATORS = [' ', '\t', '  ', ' \t', '\v', '\f', '\r'];
const SCORES = ['1', '0.5', '-2.25', '.5', '3.', '1e-3', '2E+2', 'inf', '-Infinity', '0.30000001', '0.3', '12345678901234567890', '1e', 'x', '--1', '+0'];

/** A random run line, mostly well-formed; sometimes blank, a comment, short, long, or with a bad score. */
function line(rnd: () => number, n: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const r = rnd();
  if (r < 0.02) return pick(['', '   ', '\t', '# a comment', '#q1 Q0 d1 1 1 t']);
  const sep = () => (rnd() < 0.8 ? ' ' : pick(SEPARATORS));
  const doc = rnd() < 0.05 ? pick(['d\xe9', 'D1', 'ü-doc', 'x'.repeat(300)]) : `d${rnd() < 0.001 ? Math.floor(rnd() * n) : n}`; // a few listed twice
  const fields = [`q${Math.floor(rnd() * 5)}${rnd() < 0.02 ? 'é' : ''}`, 'Q0', doc, String(Math.floor(rnd() * 100)), rnd() < 0.9 ? pick(SCORES.slice(0, 4)) : pick(SCORES), rnd() < 0.9 ? 'tag' : pick(['t2', 'run-é'])];
  if (rnd() < 0.03) fields.length = Math.floor(rnd() * 6); // too few columns
  if (rnd() < 0.05) fields.push('extra', 'columns');
  const lead = rnd() < 0.03 ? pick(SEPARATORS) : '';
  const trail = rnd() < 0.05 ? pick(SEPARATORS) : '';
  return lead + fields.join(sep()) + trail + (rnd() < 0.05 ? '\r' : '');
}

describe('readRun fast path', () => {
  it('reads random lines as onLine alone does, across 1 MiB reads, with and without -M', () => {
    const rnd = uniform(7);
    for (let k = 0; k < 3; k++) {
      // ~2.5 MB: several reads, each cutting a line; the last line with or without a line break.
      const lines = Array.from({ length: 60000 }, (_, n) => line(rnd, n));
      const path = join(dir, `random${k}.run`);
      // latin1: 'é' is the byte E9, an id that is not UTF-8; the first file starts with a UTF-8 byte-order mark.
      const text = Buffer.from(lines.join('\n') + (k === 1 ? '' : '\n'), 'latin1');
      writeFileSync(path, k === 0 ? Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), text]) : text);
      for (const options of [{}, { duplicatesWithin: 3 }, { precision: 'double' as const }]) {
        const expected = read(path, true, options);
        assert.ok(expected.bad.length > 0 && expected.run !== undefined);
        assert.deepEqual(read(path, false, options), expected, `file ${k}, ${JSON.stringify(options)}`);
      }
    }
  });

  it('throws the first bad line as onLine alone does', () => {
    const good = Array.from({ length: 40000 }, (_, i) => `q${i % 3} Q0 d${i} ${i} ${1 / (i + 1)} t`);
    for (const bad of ['q1 Q0 dx 1 1e t', 'q1 Q0 dx 1', 'q1 Q0 d4 1 1 t']) {
      const path = join(dir, 'bad.run');
      writeFileSync(path, [...good.slice(0, 30001), bad, ...good.slice(30001)].join('\n') + '\n');
      const first = (lineByLine: boolean) => {
        try {
          if (lineByLine) {
            const parser = new RunParser(path, {});
            forEachLineSync(path, parser.onLine);
            parser.finish();
          } else readRun(path);
        } catch (e) {
          return (e as InputError).format();
        }
        return 'no error';
      };
      const expected = first(true);
      assert.match(expected, /:30002|lines \d+ and 30002/, bad);
      assert.equal(first(false), expected, bad);
    }
  });
});

describe('readRun onRead', () => {
  it("hands over the file's bytes as read, in order (a gzip file's compressed ones): their hash is the file's", () => {
    const lines = Array.from({ length: 60000 }, (_, i) => `q${i % 7} Q0 d${i} ${i} ${1 / (i + 1)} t`);
    const text = Buffer.from(`${lines.join('\n')}\n`); // > 1 MiB: several reads
    for (const [name, bytes] of [['big.run', text], ['big.run.gz', gzipSync(text)]] as const) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const sha = createHash('sha256');
      const run = readRun(path, { onRead: (b) => sha.update(b) });
      assert.equal(sha.digest('hex'), createHash('sha256').update(bytes).digest('hex'), name);
      assert.equal(run.numLines, 60000);
    }
  });
});

describe('Run.top', () => {
  it('keeps the first N of every ranking, in rank order, and every query', () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-run-top-'));
    const path = join(dir, 'r.trec');
    writeFileSync(path, 'q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\nq2 Q0 d 1 5 t\n');
    const run = readRun(path);
    const top = run.top(2);
    assert.deepEqual(top.qids, ['q1', 'q2']);
    assert.deepEqual(top.ranking('q1'), { docs: ['a', 'b'], scores: Float64Array.of(3, 2) });
    assert.deepEqual(top.ranking('q2'), run.ranking('q2'));
    assert.equal(top.tag, 't');
  });
});
