import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { InputError } from '../../../../src/core/formats/errors';
import { defaultTmpPath } from '../../../../src/core/durableFs';
import { RankedScores, RunWriter, nextDown32, putFixed6, putUint } from '../../../../src/core/formats/runWriter';

const dir = mkdtempSync(join(tmpdir(), 'irw-runwriter-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** trec_eval 9's order of (docno, text) lines: score read as a 32-bit float descending, then docno descending. */
function trecEvalOrder(lines: [string, string][]): string[] {
  return lines
    .map(([d, t]) => ({ d, s: Math.fround(Number(t)) }))
    .sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : a.d > b.d ? -1 : 0))
    .map((x) => x.d);
}

describe('RunWriter: lines formatted straight into bytes', () => {
  const fixed6 = (x: number) => {
    const b = Buffer.alloc(400);
    return b.toString('latin1', 0, putFixed6(b, 0, x));
  };

  it('putFixed6 writes exactly what toFixed(6) writes, halves and signs included', () => {
    const special = [0, -0, 1e-7, -1e-7, 5e-7, -5e-7, 4.9999999e-7, 0.0000015, 1.0000005, 2.5e-6, 0.1234565, 12.3456785, 999999.9999995, 2 ** 40 / 1e6, 1e15, 1e21, 1e22, -1e22, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE];
    for (const x of special) assert.equal(fixed6(x), x.toFixed(6), String(x));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true }),
          fc.double({ min: -100, max: 100, noNaN: true }),
          fc.float({ min: 0, max: 50, noNaN: true }),
          // n / 10^6 plus exactly half a unit of the 6th decimal: the ties toFixed settles by its own rule
          fc.tuple(fc.integer({ min: -2e9, max: 2e9 }), fc.integer({ min: -3, max: 3 })).map(([n, e]) => (n + 0.5) / 1e6 + e * Number.EPSILON),
        ),
        (x) => assert.equal(fixed6(x), x.toFixed(6), String(x)),
      ),
      { numRuns: 20000 },
    );
  });

  it('putUint writes what String() writes, below and above 2^31', () => {
    const uint = (n: number) => {
      const b = Buffer.alloc(32, 0x7e);
      const end = putUint(b, 3, n);
      assert.equal(b.toString('latin1', 0, 3), '~~~', 'nothing before the number');
      assert.equal(b[end], 0x7e, 'nothing after it');
      return b.toString('latin1', 3, end);
    };
    for (const n of [0, 1, 9, 10, 99, 100, 101, 999, 1000, 1001, 65535, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 7, 10 ** 15, 2 ** 53 - 1]) assert.equal(uint(n), String(n));
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.maxSafeNat()), (n) => assert.equal(uint(n), String(n))),
      { numRuns: 20000 },
    );
  });

  it('query ids and tags of any length, over many write-buffer flushes, give the same lines as string formatting', () => {
    for (const [qid, tag] of [['q', 't'], ['q12', 'bm25-flat-k1=0.9-b=0.4-removeQuery'], ['query-7', 'ab'], ['é', 'tag-é']]) {
      const out = join(dir, 'many.trec');
      const w = new RunWriter(out, tag);
      let expected = '';
      for (let q = 0; q < 30; q++) {
        const ids = Array.from({ length: 1000 }, (_, i) => `d${(q * 7919 + i * 104729) % 100003}`);
        const scores = ids.map((_, i) => Math.fround(40 - i * 0.0371));
        w.writeRanking(`${qid}${q}`, ids, scores);
        expected += ids.map((id, i) => `${qid}${q} Q0 ${id} ${i + 1} ${scores[i].toFixed(6)} ${tag}\n`).join('');
      }
      w.commit();
      assert.equal(readFileSync(out, 'utf8'), expected, `${qid} / ${tag}`);
    }
  });

  it('ids with non-ASCII text and ids longer than the write buffer are written whole, in UTF-8', () => {
    const out = join(dir, 'bytes.trec');
    const long = 'x'.repeat(3 << 20) + 'é';
    const w = new RunWriter(out, 'tag');
    const ids = ['d1', 'déjà-vu', '文書', '🙂doc', long];
    w.writeRanking('q é', ids, [3.5, 2.25, -1, 1e-7, 0.1234565]);
    w.commit();
    const expected = ids.map((id, i) => `q é Q0 ${id} ${i + 1} ${[3.5, 2.25, -1, 1e-7, 0.1234565][i].toFixed(6)} tag\n`).join('');
    assert.equal(readFileSync(out, 'utf8'), expected);
  });
});

describe('RunWriter: ranked scores (fusion) read back in the given order under trec_eval', () => {
  it('neighbours 6 decimals would tie are written with more digits; the rest keep 6 decimals', () => {
    const r = new RankedScores();
    assert.deepEqual(
      [0.5, 0.1234567, 0.1234566, 0.1234566, 0.1].map((s) => r.next(s)),
      ['0.500000', '0.123457', '0.1234566', '0.1234566', '0.100000'],
    );
  });

  it('distinct doubles that share one 32-bit float get the float just below', () => {
    const a = 0.7;
    const b = 0.7 - 1e-12; // Math.fround(a) === Math.fround(b)
    assert.equal(Math.fround(a), Math.fround(b));
    const r = new RankedScores();
    const ta = r.next(a);
    const tb = r.next(b);
    assert.equal(Math.fround(Number(tb)), nextDown32(Math.fround(Number(ta))));
  });

  it('property: any descending list, ids in fusion order (ties by id descending), reads back in that order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: 0, max: 1e-3, noNaN: true }), fc.constantFrom(0.25, 0.25 + 1e-10, 0.25 - 1e-9)), { minLength: 1, maxLength: 60 }),
        (xs) => {
          const items = xs.map((s, i) => ({ s: s + 0, d: `d${String(i).padStart(3, '0')}` }));
          items.sort((a, b) => b.s - a.s || (a.d < b.d ? 1 : -1));
          const r = new RankedScores();
          const lines: [string, string][] = items.map((x) => [x.d, r.next(x.s)]);
          assert.deepEqual(trecEvalOrder(lines), items.map((x) => x.d));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('RunWriter: output path and sidecar', () => {
  it('--out naming a folder is refused as bad input before anything is written', () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    assert.throws(() => new RunWriter(folder, 't', undefined, { retriever: 'x' }), (e: unknown) => e instanceof InputError && e.code === 'unwritable' && /folder/.test(e.message));
    assert.deepEqual(readdirSync(folder), []);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.folder')), []);
  });

  it('a file standing where the output folder should be is bad input, not an internal error', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    assert.throws(() => new RunWriter(join(file, 'sub', 'run.trec'), 't'), (e: unknown) => e instanceof InputError && /plain-file is a file, not a folder/.test(e.message));
  });

  it('a run that fails to commit leaves the previous run and its sidecar as they were', () => {
    const out = join(dir, 'keep.trec');
    writeFileSync(out, 'old run\n');
    writeFileSync(`${out}.json`, '{"old": true}\n');
    const w = new RunWriter(out, 'new', undefined, { retriever: 'bm25' });
    w.writeRanking('q1', ['d1'], [1]);
    // Make the rename fail: the destination becomes a non-empty folder.
    rmSync(out);
    mkdirSync(out);
    writeFileSync(join(out, 'x'), '');
    assert.throws(() => w.commit(), InputError);
    assert.equal(readFileSync(`${out}.json`, 'utf8'), '{"old": true}\n');
    assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.partial')), []);
  });

  it('the sidecar is written with the run, after it', () => {
    const out = join(dir, 'ok.trec');
    const w = new RunWriter(out, 'tag', undefined, { retriever: 'bm25' });
    w.writeRanking('q1', ['d1'], [1]);
    w.commit();
    assert.equal(readFileSync(out, 'utf8'), 'q1 Q0 d1 1 1.000000 tag\n');
    assert.equal(JSON.parse(readFileSync(`${out}.json`, 'utf8')).retriever, 'bm25');
  });

  it("a killed process's .partial is removed by the next write to the same run; a live one is kept", () => {
    const out = join(dir, 'left.trec');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadTmp = defaultTmpPath(out, Number(dead.stdout));
    const liveTmp = defaultTmpPath(out, process.pid);
    writeFileSync(deadTmp, 'half a run');
    writeFileSync(liveTmp, 'being written');
    const w = new RunWriter(out, 'tag');
    w.writeRanking('q1', ['d1'], [1]);
    w.commit();
    assert.equal(existsSync(deadTmp), false);
    assert.equal(existsSync(liveTmp), true);
  });
});
