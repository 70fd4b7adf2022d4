import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { inputError } from '../../support/inputError';
import { requireBuiltCli } from '../../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'irw-bad-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const goodQrels = file('good.qrels', 'q1 0 d1 1\nq1 0 d2 0\n');
const goodRun = file('good.run', 'q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n');

function irw(...args: string[]) {
  return spawnSync(process.execPath, [requireBuiltCli(), ...args], { encoding: 'utf8' });
}


describe('bad input gets an error naming the file, the line and what to do', () => {
  it('unreadable file', () => {
    const missing = join(dir, 'nope.run');
    const e = inputError(() => readRun(missing));
    assert.equal(e.code, 'unreadable');
    assert.equal(e.file, missing);
    const r = irw('eval', goodQrels, missing);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /nope\.run: cannot read file: no such file/);
  });

  it('malformed run line (too few columns)', () => {
    const p = file('short.run', 'q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2\n');
    const e = inputError(() => readRun(p));
    assert.equal(e.code, 'malformed');
    assert.equal(e.line, 2);
    assert.equal(e.text, 'q1 Q0 d2 2');
    const r = irw('eval', goodQrels, p);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /short\.run:2: expected 6 columns, found 4/);
    assert.match(r.stderr, /line 2: "q1 Q0 d2 2"/);
    assert.match(r.stderr, /qid Q0 docid rank score tag/);
  });

  it('non-numeric score', () => {
    const p = file('score.run', 'q1\tQ0\td1\t1\thigh\ttag\n');
    const e = inputError(() => readRun(p));
    assert.equal(e.code, 'not-a-number');
    assert.equal(e.line, 1);
    assert.match(irw('eval', goodQrels, p).stderr, /score\.run:1: score 'high' \(column 5\) is not a number/);
  });

  it('non-numeric or fractional grade', () => {
    const p = file('grade.qrels', 'q1 0 d1 1\nq1 0 d2 relevant\n');
    const e = inputError(() => readQrels(p));
    assert.equal(e.code, 'not-a-number');
    assert.equal(e.line, 2);
    assert.equal(inputError(() => readQrels(file('frac.qrels', 'q1 0 d1 1.5\n'))).code, 'not-a-number');
    const r = irw('eval', p, goodRun);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /grade\.qrels:2: relevance grade 'relevant' is not an integer/);
  });

  it('malformed qrels line (column count changes)', () => {
    const p = file('cols.qrels', 'q1 0 d1 1\nq1 d2 1\n');
    const e = inputError(() => readQrels(p));
    assert.equal(e.line, 2);
    assert.match(e.message, /expected 4 columns/);
  });

  it('a document listed twice for one query in a run: refused, naming qid, docid and both lines', () => {
    const p = file('dup.run', 'q1 Q0 d1 1 2.5 tag\nq2 Q0 d1 1 2.5 tag\nq1 Q0 d1 2 1.5 tag\n');
    const e = inputError(() => readRun(p));
    assert.equal(e.code, 'duplicate');
    assert.match(e.message, /document 'd1' is listed twice for query 'q1' \(lines 1 and 3\)/);
    const r = irw('eval', goodQrels, p);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /dup\.run:3: document 'd1' is listed twice for query 'q1'/);
  });

  it('a (query, document) judged twice in qrels: refused by default, last wins on request', () => {
    const p = file('dup.qrels', 'q1 0 d1 1\nq1 0 d1 2\n');
    const e = inputError(() => readQrels(p));
    assert.equal(e.code, 'duplicate');
    assert.equal(e.line, 2);
    assert.match(e.message, /judged twice for query 'q1' \(first on line 1\)/);
    assert.equal(readQrels(p, { duplicates: 'last' }).grade('q1', 'd1'), 2);
  });

  it('usage errors exit 2 with a hint', () => {
    const unknown = irw('eval', '-m', 'ndgc_cut.10', goodQrels, goodRun);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown measure 'ndgc_cut'/);
    assert.equal(irw('eval', goodQrels).status, 2);
    assert.equal(irw('eval', '-m', 'P.0', goodQrels, goodRun).status, 2);
    assert.equal(irw('nosuchcommand').status, 2);
  });

  it('no query in common is an error, not an empty table', () => {
    const other = file('other.run', 'q9 Q0 d1 1 2.5 tag\n');
    const r = irw('eval', goodQrels, other);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no query is in both/);
  });

  it('--help documents the exit codes', () => {
    const r = irw('--help');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /exit codes:/);
    assert.match(r.stdout, /1 {2}bad input/);
  });
});
