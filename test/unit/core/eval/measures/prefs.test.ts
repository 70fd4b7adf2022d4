import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, MeasureSpecError, perQuery } from '../../../../../src/core/eval';
import { readPrefs, readQrelsPrefs } from '../../../../../src/core/eval/prefs';
import { InputError } from '../../../../../src/core/formats/errors';
import { readQrels } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';

const dir = mkdtempSync(join(tmpdir(), 'irw-prefs-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
// One group: a (grade 2) > b (1) > c (0), and a, b > d (0). The run retrieves b, a, x (unjudged), c.
// Preferences: a>b, a>c, a>d, b>c, b>d = 5 possible. Both retrieved: a>b failed, a>c ok, b>c ok;
// one retrieved: a>d, b>d fulfilled (implied). Fulfilled 4 of 5; among retrieved 2 of 3.
const prefs = readQrelsPrefs(file('q', 'q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq1 0 d 0\n'));
const run = readRun(file('r', 'q1 Q0 b 1 4 r\nq1 Q0 a 2 3 r\nq1 Q0 x 3 2 r\nq1 Q0 c 4 1 r\n'));

describe('preference measures (-R qrels_prefs)', () => {
  it('count preferences possible and fulfilled, in all, among retrieved, and with one retrieved', () => {
    const r = evaluate(prefs, run, { measures: ['all_prefs'] });
    const v = (name: string) => perQuery(r, name).get('q1');
    assert.equal(v('prefs_num_prefs_poss'), 5);
    assert.equal(v('prefs_num_prefs_ful'), 4);
    assert.equal(v('prefs_num_prefs_ful_ret'), 2);
    assert.equal(v('prefs_simp'), 4 / 5);
    assert.equal(v('prefs_simp_ret'), 2 / 3);
    assert.equal(v('prefs_simp_imp'), 4 / 5);
    assert.equal(v('prefs_avgjg'), 4 / 5);
  });

  it('the prefs nickname is trec_eval\'s short list', () => {
    const r = evaluate(prefs, run, { measures: ['prefs'] });
    assert.deepEqual(r.measures.map((m) => m.family.name), [
      'runid', 'num_q', 'prefs_num_prefs_poss', 'prefs_num_prefs_ful', 'prefs_num_prefs_ful_ret', 'prefs_simp', 'prefs_pair', 'prefs_avgjg',
    ]);
  });

  it('refuses plain measures with preferences and preference measures without them, saying what to use', () => {
    assert.throws(() => evaluate(prefs, run, { measures: ['map'] }), (e: unknown) => e instanceof MeasureSpecError && /use -m all_prefs/.test(e.message));
    assert.throws(() => evaluate(readQrels(file('plain', 'q1 0 a 1\n')), run, { measures: ['prefs_simp'] }), (e: unknown) => e instanceof MeasureSpecError && /add -R qrels_prefs/.test(e.message));
  });

  it('-R prefs: sub-groups combine transitively (a > b in one, b > c in another gives a > c); a cycle is refused (trec_eval aborts)', () => {
    const chain = readPrefs(file('chain', 'q1 g s1 a 2\nq1 g s1 b 1\nq1 g s2 b 2\nq1 g s2 c 1\n'));
    const r = evaluate(chain, readRun(file('cba', 'q1 Q0 c 1 3 r\nq1 Q0 b 2 2 r\nq1 Q0 a 3 1 r\n')), { measures: ['prefs_num_prefs_poss', 'prefs_num_prefs_ful'] });
    assert.equal(perQuery(r, 'prefs_num_prefs_poss').get('q1'), 3);
    assert.equal(perQuery(r, 'prefs_num_prefs_ful').get('q1'), 0);
    const cycle = readPrefs(file('cycle', 'q1 g s1 a 2\nq1 g s1 b 1\nq1 g s2 b 2\nq1 g s2 a 1\n'));
    assert.throws(() => evaluate(cycle, run, { measures: ['prefs_simp'] }), (e: unknown) => e instanceof InputError && /contradict each other/.test(e.message));
  });

  it('refuses a document with two grades in one judgment group, as trec_eval does', () => {
    const twice = readQrelsPrefs(file('twice', 'q1 0 a 2\nq1 0 a 0\n'));
    assert.throws(() => evaluate(twice, run, { measures: ['prefs_simp'] }), (e: unknown) => e instanceof InputError && /two different grades in judgment group '0'/.test(e.message));
  });
});
