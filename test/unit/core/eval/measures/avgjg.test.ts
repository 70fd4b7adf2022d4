import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, MeasureSpecError, perQuery } from '../../../../../src/core/eval';
import { InputError } from '../../../../../src/core/formats/errors';
import { readQrels, readQrelsJg } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';

const dir = mkdtempSync(join(tmpdir(), 'irw-jg-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
// Assessor A finds d1 relevant, assessor B d2; the run ranks d1 above d2.
const qrelsPath = file('qrels', 'q1 A d1 1\nq1 A d2 0\nq1 B d2 1\nq2 A d9 1\n');
const run = readRun(file('run', 'q1 Q0 d1 1 2 r\nq1 Q0 d2 2 1 r\nq2 Q0 d9 1 5 r\n'));

describe('judgment-group measures (-R qrels_jg)', () => {
  it('average the measure over the groups: map_avgjg (1 + 0.5) / 2, P_avgjg_1 (1 + 0) / 2, Rprec_mult_avgjg_1.00 (1 + 0) / 2', () => {
    const r = evaluate(readQrelsJg(qrelsPath), run, { measures: ['map_avgjg', 'P_avgjg.1', 'Rprec_mult_avgjg.1'] });
    assert.equal(perQuery(r, 'map_avgjg').get('q1'), 0.75);
    assert.equal(perQuery(r, 'P_avgjg_1').get('q1'), 0.5);
    assert.equal(perQuery(r, 'Rprec_mult_avgjg_1.00').get('q1'), 0.5);
    // One group: its value, not divided.
    assert.equal(perQuery(r, 'map_avgjg').get('q2'), 1);
  });

  it('the qrels_jg nickname is runid, num_q and the three measures', () => {
    const r = evaluate(readQrelsJg(qrelsPath), run, { measures: ['qrels_jg'] });
    assert.deepEqual(r.measures.map((m) => m.family.name), ['runid', 'num_q', 'map_avgjg', 'P_avgjg', 'Rprec_mult_avgjg']);
  });

  it('refuses a plain measure with judgment groups, and a judgment-group measure with plain qrels, saying what to use', () => {
    assert.throws(() => evaluate(readQrelsJg(qrelsPath), run, { measures: ['map'] }), (e: unknown) => e instanceof MeasureSpecError && /use -m qrels_jg/.test(e.message));
    assert.throws(() => evaluate(readQrels(file('plain', 'q1 0 d1 1\n')), run, { measures: ['map_avgjg'] }), (e: unknown) => e instanceof MeasureSpecError && /add -R qrels_jg/.test(e.message));
  });

  it('a document may be judged once per group, not twice in one group', () => {
    const p = file('dup', 'q1 A d1 1\nq1 A d1 0\n');
    assert.throws(() => readQrelsJg(p), (e: unknown) => e instanceof InputError && e.line === 2 && /judged twice/.test(e.message));
    assert.throws(() => readQrelsJg(file('three', 'q1 A d1\n')), (e: unknown) => e instanceof InputError && /expected 4 columns \(qid judgment-group docid grade\)/.test(e.message));
  });
});
