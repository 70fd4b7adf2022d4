import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { evaluate, formatTrecEval, NICKNAMES } from '../../../../src/core/eval';
import { readZScores } from '../../../../src/core/eval/zscores';
import { readPrefs, readQrelsPrefs } from '../../../../src/core/eval/prefs';
import { encodeId } from '../../../../src/core/formats/idTable';
import { readQrels, readQrelsJg } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { restrict } from './differential/spec';

/**
 * trec_eval 9.0.8's own test suite (its Makefile's quicktest), inputs and expected outputs copied from its
 * test/ folder as data (gzip): every all_trec case, -Z, -R qrels_jg, -R qrels_prefs and -R prefs.
 */
const DATA = join(__dirname, 'trec_eval_test');
const ALL_TREC = NICKNAMES.all_trec;

const SET = ['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P', 'set_map', 'set_F'];

const CASES: { out: string; qrels: string; run: string; measures: string[]; flags: { q?: boolean; c?: boolean; M?: number; l?: number; Z?: string; R?: 'qrels_jg' | 'qrels_prefs' | 'prefs' }; only?: string[] }[] = [
  { out: 'out.test', qrels: 'qrels.test', run: 'results.test', measures: ['official'], flags: {} },
  { out: 'out.test.a', qrels: 'qrels.test', run: 'results.test', measures: ALL_TREC, flags: {} },
  { out: 'out.test.aq', qrels: 'qrels.test', run: 'results.test', measures: ALL_TREC, flags: { q: true } },
  { out: 'out.test.aqc', qrels: 'qrels.test', run: 'results.trunc', measures: ALL_TREC, flags: { q: true, c: true } },
  { out: 'out.test.aqcM', qrels: 'qrels.test', run: 'results.trunc', measures: ALL_TREC, flags: { q: true, c: true, M: 100 } },
  { out: 'out.test.aql', qrels: 'qrels.rel_level', run: 'results.test', measures: [...ALL_TREC, 'relstring.20'], flags: { q: true, l: 2 } },
  { out: 'out.test.aq', qrels: 'qrels.test', run: 'results.test', measures: ['all_trec'], flags: { q: true } },
  { out: 'out.test.qrels_jg', qrels: 'qrels.123', run: 'results.test', measures: ['qrels_jg'], flags: { q: true, R: 'qrels_jg' } },
  { out: 'out.test.qrels_prefs', qrels: 'qrels.test', run: 'results.test', measures: ['all_prefs'], flags: { q: true, R: 'qrels_prefs' } },
  { out: 'out.test.prefs', qrels: 'prefs.test', run: 'prefs.results.test', measures: ['all_prefs'], flags: { q: true, R: 'prefs' } },
  { out: 'out.test.aqZ', qrels: 'qrels.test', run: 'results.test', measures: ['all_trec'], flags: { q: true, Z: 'zscores_file' } },
  // The 'set' nickname: its lines in trec_eval's all_trec output, which has the same values.
  { out: 'out.test.aq', qrels: 'qrels.test', run: 'results.test', measures: ['set'], flags: { q: true }, only: SET },
  {
    out: 'out.test.meas_params',
    qrels: 'qrels.test',
    run: 'results.test',
    measures: ['iprec_at_recall..10,.20,.25,.75,.50', 'P.5,7,3', 'recall.20,2000', 'Rprec_mult.5.0,0.2,0.35', 'utility.2,-1,0,0', '11pt_avg..25,.5,.75', 'ndcg.1=3,2=9,4=4.5', 'ndcg_cut.10,20,23.4', 'success.2,5,20'],
    flags: { q: true },
  },
];

describe("trec_eval 9.0.8's own test suite", () => {
  for (const c of CASES) {
    it(`${c.out}${c.only ? ' (set lines)' : ''}: trec_eval ${c.flags.q ? '-q ' : ''}${c.flags.c ? '-c ' : ''}${c.flags.Z ? `-Z ${c.flags.Z} ` : ''}${c.flags.R ? `-R ${c.flags.R} ` : ''}${c.flags.M ? `-M${c.flags.M} ` : ''}${c.flags.l ? `-l${c.flags.l} ` : ''}-m ${c.measures.length > 12 ? 'all_trec' : c.measures.join(' -m ')}`, () => {
      const raw = gunzipSync(readFileSync(join(DATA, `${c.out}.gz`)));
      // -Z and -R qrels_jg outputs have only the measures asked for: compared whole.
      const want = c.flags.Z || c.flags.R ? raw : restrict(raw, new Set(c.only ?? ALL_TREC));
      const qrelsPath = join(DATA, `${c.qrels}.gz`);
      const qrels = c.flags.R === 'qrels_jg' ? readQrelsJg(qrelsPath) : c.flags.R === 'qrels_prefs' ? readQrelsPrefs(qrelsPath) : c.flags.R === 'prefs' ? readPrefs(qrelsPath) : readQrels(qrelsPath);
      const result = evaluate(qrels, readRun(join(DATA, `${c.run}.gz`)), {
        measures: c.measures,
        firstParamsWin: true,
        complete: c.flags.c,
        maxRetrieved: c.flags.M,
        relevanceLevel: c.flags.l,
        zscores: c.flags.Z ? readZScores(join(DATA, `${c.flags.Z}.gz`)) : undefined,
      });
      const got = encodeId(formatTrecEval(result, c.flags.q ?? false));
      assert.ok(want.length > 500);
      assert.equal(got.toString('latin1'), want.toString('latin1'));
    });
  }
});

describe('trec_eval 10.0 on the same files', () => {
  // Recorded with trec_eval 10.0 (dcg and ideal_dcg are not in its all_trec, and it crashes when ndcg and
  // dcg are both given gain parameters, so the differential test cannot cover them).
  it('out10.dcg: trec_eval -q -m dcg -m ideal_dcg -m ndcg', () => {
    const want = gunzipSync(readFileSync(join(DATA, 'out10.dcg.gz')));
    const result = evaluate(readQrels(join(DATA, 'qrels.test.gz')), readRun(join(DATA, 'results.test.gz'), { precision: 'double' }), {
      measures: ['dcg', 'ideal_dcg', 'ndcg'],
      trecEval: 10,
    });
    assert.ok(want.length > 400);
    assert.equal(encodeId(formatTrecEval(result, true)).toString('latin1'), want.toString('latin1'));
  });
});
