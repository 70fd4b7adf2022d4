import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate } from '../../../../src/core/eval';
import { compareBytes, decodeId, encodeId } from '../../../../src/core/formats/idTable';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';

const dir = mkdtempSync(join(tmpdir(), 'irw-prec-'));
function file(name: string, bytes: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, bytes);
  return p;
}

describe('scores rank as trec_eval 9.0.8 reads them (C float), or as doubles with trec_eval 10', () => {
  // 0.30000001 and 0.3 differ as doubles but are the same float32: trec_eval 9 ties them and puts the larger docno first.
  const run = file('near.run', 'q Q0 a 1 0.30000001 t\nq Q0 b 2 0.3 t\nq Q0 c 3 0.2 t\n');
  const shuffled = file('near2.run', 'q Q0 c 3 0.2 t\nq Q0 a 1 0.30000001 t\nq Q0 b 2 0.3 t\n');

  it('float32 by default: a float32 tie is ordered by docno descending', () => {
    for (const p of [run, shuffled]) assert.deepEqual(readRun(p).ranking('q')!.docs, ['b', 'a', 'c']);
  });

  it('double with precision "double" (trec_eval 10)', () => {
    for (const p of [run, shuffled]) assert.deepEqual(readRun(p, { precision: 'double' }).ranking('q')!.docs, ['a', 'b', 'c']);
  });

  it('keeps the full-precision scores beside the ranking', () => {
    assert.deepEqual([...readRun(shuffled).ranking('q')!.scores], [0.3, 0.30000001, 0.2]);
  });

  it('changes P@1 as trec_eval 9 and 10 do', () => {
    const qrels = readQrels(file('near.qrels', 'q 0 a 1\nq 0 b 0\n'));
    assert.equal(evaluate(qrels, readRun(run), { measures: ['P.1'] }).mean.get('P_1'), 0);
    assert.equal(evaluate(qrels, readRun(run, { precision: 'double' }), { measures: ['P.1'] }).mean.get('P_1'), 1);
  });
});

describe('ids are bytes, as in trec_eval', () => {
  it('a docno that is not UTF-8 matches itself, and \\xff and \\xfe stay distinct', () => {
    const qrels = readQrels(file('bytes.qrels', Buffer.from('q 0 \xe9 1\nq 0 \xff 1\nq 0 x 0\n', 'latin1')));
    const run = readRun(file('bytes.run', Buffer.from('q Q0 \xe9 1 3 t\nq Q0 \xfe 2 2 t\nq Q0 x 3 1 t\n', 'latin1')));
    const r = evaluate(qrels, run, { measures: ['num_rel_ret', 'num_rel', 'P.2'] });
    assert.equal(r.mean.get('num_rel_ret'), 1);
    assert.equal(r.mean.get('num_rel'), 2);
    assert.equal(r.mean.get('P_2'), 0.5);
  });

  it('query ids that are not UTF-8 stay distinct and keep byte order', () => {
    const qrels = readQrels(file('qb.qrels', Buffer.from('\xff 0 d 1\n\xfe 0 d 1\n', 'latin1')));
    assert.equal(qrels.queryIds().length, 2);
    assert.deepEqual(qrels.queryIds().map((q) => encodeId(q)[0]), [0xfe, 0xff]);
  });

  it('decodeId and encodeId round-trip any bytes, and compareBytes follows byte order', () => {
    const samples = ['\xe9', '\xff', '\xfe', 'a\xc3\xa9', '\xc3', '\xed\xa0\x80', '\xf0\x9f\x98\x80', '\xef\xbf\xbd', 'z', ''].map((s) => Buffer.from(s, 'latin1'));
    for (const b of samples) assert.deepEqual(encodeId(decodeId(b, 0, b.length)), b);
    for (const a of samples) {
      for (const b of samples) {
        const want = Math.sign(Buffer.compare(a, b));
        assert.equal(Math.sign(compareBytes(decodeId(a, 0, a.length), decodeId(b, 0, b.length))), want, `${a.toString('hex')} vs ${b.toString('hex')}`);
      }
    }
  });
});
