// A run file read on two threads (startRunRead) is the run readRun gives, and fails with the same error
// (file, line, text) as readRun, wherever the bad line is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, formatTrecEval } from '../../../../src/core/eval';
import { InputError } from '../../../../src/core/formats/errors';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun, type ReadRunOptions, type Run } from '../../../../src/core/formats/run';
import { PARALLEL_MIN_BYTES, startRunRead } from '../../../../src/core/formats/runInParallel';
import { needsShared, requireBuiltCli, RUNS } from '../../support/paths';

const ENTRY = join(__dirname, '../../../../src/core/formats/runInParallel.ts');
const dir = mkdtempSync(join(tmpdir(), 'irw-parallel-'));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** Every part of a run: tag, queries in order, and each query's ranking (docnos and scores). */
function dump(run: Run): unknown {
  return { tag: run.tag, qids: run.qids, n: run.numLines, rankings: run.qids.map((q) => run.ranking(q)) };
}

async function inParallel(path: string, options: ReadRunOptions = {}, headShare = 0.5): Promise<Run> {
  return startRunRead(path, options, ENTRY, { minBytes: 0, headShare }).finish();
}

async function errorOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return e.format();
  }
  assert.fail('no error');
}

describe('reading a run on two threads', () => {
  it('gives the run readRun gives, for real runs and any split point', { skip: needsShared('runs') }, async () => {
    for (const name of ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec']) {
      const path = join(RUNS, 'scifact', name);
      const expected = dump(readRun(path));
      for (const share of [0.01, 0.37, 0.5, 0.99]) assert.deepEqual(dump(await inParallel(path, {}, share)), expected, `${name} split at ${share}`);
    }
  });

  it('merges queries whose lines are in both parts, ties and -M duplicates included, and keeps the last line\'s tag', async () => {
    // Queries interleaved over the whole file; float32 ties ordered by docno; 'same' repeats d1 past rank 2.
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      lines.push(`q${i % 7} Q0 d${i} 0 ${i % 5 === 0 ? '0.3' : i % 5 === 1 ? '0.30000001' : (i / 1000).toFixed(4)} tag${i}`);
    }
    lines.push('same Q0 d1 1 5 t', 'same Q0 d2 2 4 t');
    lines.splice(150, 0, '', '# a comment', 'same Q0 d3 3 3 t', 'same Q0 d1 4 2 t');
    const path = file('interleaved.trec', '\ufeff' + lines.join('\n') + '\n');
    for (const precision of ['float32', 'double'] as const) {
      const options = { precision, duplicatesWithin: 2 };
      const expected = dump(readRun(path, options));
      for (const share of [0.1, 0.4, 0.5, 0.9]) assert.deepEqual(dump(await inParallel(path, options, share)), expected, `${precision} at ${share}`);
    }
    assert.equal((await inParallel(path, { duplicatesWithin: 2 })).tag, 't');
    assert.match(await errorOf(inParallel(path)), /document 'd1' is listed twice for query 'same'/, 'without -M the duplicate is refused');
  });

  it('a bad line in the second part is reported with its line number in the whole file, as readRun does', async () => {
    const good = Array.from({ length: 300 }, (_, i) => `q${i % 3} Q0 d${i} 0 ${i} t`);
    for (const [name, bad, at] of [
      ['columns', 'q1 Q0 d999 1', 260],
      ['score', 'q1 Q0 d999 1 0.5x t', 290],
      ['last line, no newline', 'q2 Q0 d998 1 1e', 300],
    ] as const) {
      const lines = [...good];
      lines.splice(at, 0, bad);
      const path = file(`bad-${at}.trec`, lines.join('\n') + (at === 300 ? '' : '\n'));
      const expected = await errorOf(() => readRun(path));
      assert.match(expected, new RegExp(`bad-${at}.trec:${at + 1}: `), name);
      assert.equal(await errorOf(inParallel(path)), expected, name);
    }
  });

  it('with bad lines in both parts, the first part\'s is reported (as readRun, which stops at the first)', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `q${i % 3} Q0 d${i} 0 ${i} t`);
    lines[20] = 'q0 Q0 d20 0 zero t';
    lines[180] = 'q0 Q0 d180';
    const path = file('bad-both.trec', lines.join('\n') + '\n');
    const expected = await errorOf(() => readRun(path));
    assert.match(expected, /:21: score 'zero'/);
    assert.equal(await errorOf(inParallel(path)), expected);
  });

  it('a document listed twice across the two parts is refused with both line numbers', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `q${i % 3} Q0 d${i} 0 ${i} t`);
    lines[190] = 'q0 Q0 d3 0 7 t';
    const path = file('dup.trec', lines.join('\n') + '\n');
    const expected = await errorOf(() => readRun(path));
    assert.match(expected, /'d3' is listed twice for query 'q0' \(lines 4 and 191\)/);
    assert.equal(await errorOf(inParallel(path)), expected);
  });

  it('duplicates within each part: the one of the first query in byte order is reported, as readRun does', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `${i < 100 ? 'z' : 'a'}${i % 2} Q0 d${i} 0 ${i} t`);
    lines[10] = 'z0 Q0 d2 0 7 t'; // head part, query z0
    lines[190] = 'a0 Q0 d150 0 7 t'; // tail part, query a0
    const path = file('dup-parts.trec', lines.join('\n') + '\n');
    const expected = await errorOf(() => readRun(path));
    assert.match(expected, /'d150' is listed twice for query 'a0' \(lines 151 and 191\)/);
    assert.equal(await errorOf(inParallel(path)), expected);
    lines[190] = 'a0 Q0 d152 0 7 t';
    lines[10] = 'z0 Q0 d20 0 7 t';
    writeFileSync(path, lines.join('\n') + '\n');
    assert.equal(await errorOf(inParallel(path)), await errorOf(() => readRun(path)), 'both parts flag');
  });

  it('a file of comments and blank lines only: the same error as readRun', async () => {
    const path = file('empty.trec', '# nothing\n\n# here either\n\n');
    assert.match(await errorOf(() => readRun(path)), /no result lines/);
    assert.equal(await errorOf(inParallel(path)), await errorOf(() => readRun(path)));
  });

  it('a worker that cannot start (its bundle missing) leaves the reading to this thread', { skip: needsShared('runs') }, async () => {
    const path = join(RUNS, 'scifact', 'bm25okapi.knarfthekant.trec');
    const run = await startRunRead(path, {}, join(dir, 'no-such-run-reader.js'), { minBytes: 0 }).finish();
    assert.deepEqual(dump(run), dump(readRun(path)));
  });

  it('irw eval on a run above the threshold (read by dist/run-reader.js) prints what the one-thread reading gives', () => {
    const qrels = file('big.qrels', Array.from({ length: 50 }, (_, q) => Array.from({ length: 20 }, (_, k) => `q${q} 0 d${k * 37} ${k % 4}`).join('\n')).join('\n') + '\n');
    const parts: string[] = [];
    let size = 0;
    for (let i = 0; size <= PARALLEL_MIN_BYTES + (1 << 20); i++) {
      const line = `q${i % 50} Q0 d${Math.floor(i / 50)} 0 ${(1000 - (i % 977) / 7).toFixed(3)} big\n`;
      parts.push(line);
      size += line.length;
    }
    const run = file('big.trec', parts.join(''));
    const expected = formatTrecEval(evaluate(readQrels(qrels), readRun(run), { measures: ['official'] }), true, true);
    const r = spawnSync(process.execPath, [requireBuiltCli(), 'eval', '-q', qrels, run], { encoding: 'utf8' });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, expected);
    // A bad line at three quarters of the file (in the worker's part): its number in the whole file.
    const badLine = Math.floor(parts.length * 0.75);
    parts[badLine] = parts[badLine].replace(/ \S+ big\n$/, ' oops big\n');
    writeFileSync(run, parts.join(''));
    const bad = spawnSync(process.execPath, [requireBuiltCli(), 'eval', qrels, run], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.ok(bad.stderr.startsWith(`irw eval: ${run}:${badLine + 1}: score 'oops' (column 5) is not a number`), bad.stderr);
  });
});
