import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { evaluate, FAMILIES } from '../../../../src/core/eval';
import { MeasureSpecError } from '../../../../src/core/eval/registry';
import { MAX_LINE } from '../../../../src/core/formats/lines';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { inputError } from '../../support/inputError';
import { requireBuiltCli } from '../../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'irw-conv-'));
function file(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
function irw(args: string[], input?: string) {
  return spawnSync(process.execPath, [requireBuiltCli(), 'eval', ...args], { encoding: 'utf8', input });
}
const qrelsText = 'q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n';
const runText = 'q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d3 1 1 tag\n';
const qrels = file('good.qrels', qrelsText);
const run = file('good.run', runText);

describe('input conventions (issue 16 item 4, issue 11)', () => {
  it('with -M N, a document repeated only past the cutoff is accepted; repeated within the top N it is refused (as trec_eval)', () => {
    // Ranked: d1 3, d3 2.5, d2 2, d3 1 (again), d2 0.5 (again).
    const q = file('dupM.qrels', 'q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\n');
    const r = file('dupM.run', 'q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\nq1 Q0 d2 4 0.5 r\nq1 Q0 d3 5 2.5 r\n');
    const ok = irw(['-q', '-M', '3', '-m', 'P.3', '-m', 'num_ret', q, r]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /^num_ret\s+\tq1\t3\n/m);
    assert.match(ok.stdout, /^P_3\s+\tq1\t0\.6667\n/m);
    const bad = irw(['-M', '4', q, r]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /document 'd3' is listed twice for query 'q1' \(lines 3 and 5\)/);
    assert.equal(irw([q, r]).status, 1, 'without -M the repeat is refused wherever it is');
  });

  it('a UTF-8 byte-order mark is not part of the first id (qrels and run)', () => {
    const q = readQrels(file('bom.qrels', `\ufeff${qrelsText}`));
    assert.deepEqual(q.queryIds(), ['q1', 'q2']);
    const r = readRun(file('bom.run', `\ufeff${runText}`));
    assert.deepEqual(r.qids, ['q1', 'q2']);
    assert.equal(evaluate(q, r, { measures: ['num_rel_ret'] }).mean.get('num_rel_ret'), 2);
  });

  it('an integral grade written as a float is that grade; a fractional one is refused saying what trec_eval reads', () => {
    assert.equal(readQrels(file('float.qrels', 'q1 0 d1 2.0\nq1 0 d2 0.0\n')).grade('q1', 'd1'), 2);
    const e = inputError(() => readQrels(file('frac.qrels', 'q1 0 d1 1.5\n')));
    assert.match(e.message, /not an integer \(trec_eval would silently read it as 1\)/);
    assert.equal(e.line, 1);
  });

  it('grades outside 32 bits are refused instead of wrapping', () => {
    for (const g of ['4294967296', '2147483648', '-2147483649', '99999999999999999999']) {
      const e = inputError(() => readQrels(file('big.qrels', `q1 0 d1 ${g}\n`)));
      assert.match(e.message, /32-bit|not an integer/, g);
    }
    assert.equal(readQrels(file('max.qrels', 'q1 0 d1 2147483647\n')).grade('q1', 'd1'), 2147483647);
  });

  it('an extreme but valid grade costs nDCG nothing extra (sparse grade levels)', () => {
    const q = readQrels(file('extreme.qrels', 'q1 0 d1 2147483647\nq1 0 d2 1\n'));
    const r = readRun(file('extreme.run', 'q1 Q0 d2 1 2 t\nq1 Q0 d1 2 1 t\n'));
    const res = evaluate(q, r, { measures: ['ndcg', 'ndcg_cut.1', 'G', 'Rndcg'] });
    const idcg = 2147483647 + 1 / Math.log2(3);
    const dcg = 1 + 2147483647 / Math.log2(3);
    assert.ok(Math.abs(res.mean.get('ndcg')! - dcg / idcg) < 1e-12);
    assert.ok(Math.abs(res.mean.get('ndcg_cut_1')! - 1 / 2147483647) < 1e-15);
  });

  it('a first qrels line with a typo in its grade is an error, not a header; a real header is skipped', () => {
    const e = inputError(() => readQrels(file('typo.qrels', 'q1\td1\t1x\nq1\td2\t1\n')));
    assert.equal(e.line, 1);
    assert.equal(readQrels(file('header.qrels', 'query-id\tcorpus-id\tscore\nq1\td2\t1\n')).size, 1);
  });

  it('a file with no line break or a huge line is refused with a clear message, in bounded memory', () => {
    const p = join(dir, 'huge.run');
    const fd = openSync(p, 'w');
    const chunk = Buffer.alloc(1 << 20, 'x');
    for (let i = 0; i <= (MAX_LINE >> 20) + 1; i++) writeSync(fd, chunk);
    closeSync(fd);
    const before = process.memoryUsage().rss;
    const e = inputError(() => readRun(p));
    assert.match(e.message, /longer than 32 MiB without a line break/);
    assert.ok(e.text!.length <= 201);
    assert.ok(process.memoryUsage().rss - before < 512 << 20);
  });

  it('fields split on every whitespace trec_eval splits on (isspace: VT, FF, CR inside a line too)', () => {
    const q = readQrels(file('ws.qrels', '1 0\fa 1\n1\v0 b\r1\n1 0 c 0\n'));
    const r = readRun(file('ws.run', '1 Q0 a\f1 1\v run\n1 Q0 b 2\r2 run\n1 Q0 c 3 3 run\n'));
    // trec_eval 9.0.8 on these files: num_ret 3, num_rel 2, P_1 0, P_2 0.5.
    const res = evaluate(q, r, { measures: ['num_ret', 'num_rel', 'P.1,2'] });
    assert.deepEqual([res.mean.get('num_ret'), res.mean.get('num_rel'), res.mean.get('P_1'), res.mean.get('P_2')], [3, 2, 0, 0.5]);
  });

  it('a 200 KB docno matches itself (trec_eval 9.0.8 and 10.0 agree: P_1 = 1)', () => {
    const d = 'd'.repeat(200_000);
    const q = readQrels(file('long.qrels', `q1 0 ${d} 1\nq1 0 x 0\n`));
    const r = readRun(file('long.run', `q1 Q0 ${d} 1 2 t\nq1 Q0 x 2 1 t\n`));
    assert.equal(evaluate(q, r, { measures: ['P.1'] }).mean.get('P_1'), 1);
  });

  it('a quoted bad line is cut at 200 characters, NUL bytes included', () => {
    const e = inputError(() => readRun(file('nul.run', Buffer.concat([Buffer.from('q1 Q0 d1 1 '), Buffer.alloc(1000, 0), Buffer.from('\n')]))));
    assert.ok(e.text!.length <= 201, String(e.text!.length));
    assert.ok(e.format().split('\n')[1].length < 260, e.format());
  });

  it('a score trec_eval would half-read is refused, saying what trec_eval would have read', () => {
    const e = inputError(() => readRun(file('1e.run', 'q1 Q0 d1 1 1e tag\n')));
    assert.match(e.message, /'1e'.*would silently read it as 1\b/);
  });

  it('a gzip qrels or run is read transparently', async () => {
    const q = readQrels(file('q.gz', gzipSync(qrelsText)));
    const r = readRun(file('r.gz', gzipSync(runText)));
    assert.equal(evaluate(q, r, { measures: ['num_rel_ret'] }).mean.get('num_rel_ret'), 2);
  });

  it('an unknown measure suggests the nearest names', () => {
    assert.throws(() => evaluate(readQrels(qrels), readRun(run), { measures: ['recall_10'] }), (e: Error) => e instanceof MeasureSpecError && /did you mean 'recall\.10'\?/.test(e.message));
    assert.throws(() => evaluate(readQrels(qrels), readRun(run), { measures: ['ndgc_cut'] }), /did you mean 'ndcg_cut'\?/);
  });
});

describe('irw eval command line (issue 11)', () => {
  it('-c with qrels sharing no query with the run is refused like without -c', () => {
    const other = file('other.qrels', 'x1 0 d1 1\n');
    for (const flags of [[], ['-c']]) {
      const r = irw([...flags, other, run]);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, /no query is in both/);
    }
  });

  it('a run sharing few queries with the qrels gets a warning with the count', () => {
    const many = file('many.qrels', Array.from({ length: 10 }, (_, i) => `q${i + 1} 0 d1 1\n`).join(''));
    const r = irw([many, run]);
    assert.equal(r.status, 0);
    assert.match(r.stderr, /only 2 queries are in both files \(10 in the qrels, 2 in the run\)/);
    assert.equal(irw([qrels, run]).stderr, '');
  });

  it('swapped QRELS and RUN are recognised and said so', () => {
    const r = irw([run, qrels]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /QRELS and RUN look swapped/);
  });

  it('- reads standard input', () => {
    const r = irw(['-m', 'num_rel_ret', qrels, '-'], runText);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /num_rel_ret\s+all\s+2/);
    const q = irw(['-m', 'num_rel_ret', '-', run], qrelsText);
    assert.match(q.stdout, /num_rel_ret\s+all\s+2/);
  });

  it('-J drops unjudged documents, -n drops the summary, -o is accepted, -v prints the version', () => {
    const withUnjudged = file('unj.run', 'q1 Q0 u1 1 3 t\nq1 Q0 d1 2 2 t\nq1 Q0 d2 3 1 t\n');
    assert.match(irw(['-m', 'P.1', qrels, withUnjudged]).stdout, /P_1\s+all\s+0\.0000/);
    assert.match(irw(['-J', '-m', 'P.1', '-m', 'num_ret', qrels, withUnjudged]).stdout, /num_ret\s+all\s+2\n(.|\n)*P_1\s+all\s+1\.0000/);
    assert.equal(irw(['-q', '-n', '-o', '-m', 'P.1', qrels, withUnjudged]).stdout, 'P_1                   \tq1\t0.0000\n');
    const v = irw(['-v']);
    assert.equal(v.status, 0);
    assert.match(v.stderr, /trec_eval version 9\.0\.8/);
  });

  it('-h -m MEASURE explains the measure from the registry; every measure has an explanation', () => {
    const r = irw(['-h', '-m', 'ndcg_cut', '-m', 'relstring']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^relstring\n {4}Relevance of the top n(.|\n)*ndcg_cut\n {4}nDCG at cutoffs/);
    for (const f of FAMILIES) assert.ok(f.help.length > 20, f.name);
    assert.equal(irw(['-h', '-m', 'nope']).status, 2);
  });

  it('--trec-eval 10 ranks on doubles; a bad value is a usage error', () => {
    const near = file('near.run', 'q1 Q0 d1 1 0.30000001 t\nq1 Q0 d2 2 0.3 t\n');
    assert.match(irw(['-m', 'P.1', qrels, near]).stdout, /P_1\s+all\s+0\.0000/);
    assert.match(irw(['--trec-eval', '10', '-m', 'P.1', qrels, near]).stdout, /P_1\s+all\s+1\.0000/);
    assert.equal(irw(['--trec-eval', '8', qrels, run]).status, 2);
  });
});
