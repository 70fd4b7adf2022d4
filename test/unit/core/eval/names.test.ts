// The field's measure names (names.ts) against the trec_eval measures they stand for: on the differential suite's
// generated cases (whose trec_eval outputs under -l 2, -M 3 and -c -M 5 -l 2 differential.test.ts checks byte for
// byte), and against trec_eval's own output files where ../shared has them.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { evaluate, MeasureSpecError, perQuery, resolveMeasures, type EvalOptions } from '../../../../src/core/eval';
import { fieldMeasure } from '../../../../src/core/eval/names';
import { readQrels, type Qrels } from '../../../../src/core/formats/qrels';
import { readRun, type Run } from '../../../../src/core/formats/run';
import { GOLDEN, needsShared } from '../../support/paths';
import { generateCase } from './differential/generate';

const tmp = mkdtempSync(join(tmpdir(), 'irw-names-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The generated cases that have a query in both files, read as the differential test reads them. */
const CASES: { qrels: Qrels; run: Run }[] = [];
for (let seed = 0; CASES.length < 150; seed++) {
  const c = generateCase(seed);
  writeFileSync(join(tmp, 'q'), c.qrels);
  writeFileSync(join(tmp, 'r'), c.run);
  const qrels = readQrels(join(tmp, 'q'));
  const run = readRun(join(tmp, 'r'));
  if (qrels.queryIds().some((q) => run.queryIndex(q) >= 0)) CASES.push({ qrels, run });
}

/** Per query and summary values of one column. */
function column(qrels: Qrels, run: Run, measures: string[], name: string, options: EvalOptions) {
  const r = evaluate(qrels, run, { ...options, measures });
  return { perQuery: [...perQuery(r, name)], mean: r.mean.get(name) };
}

/** Each name and the trec_eval measure it is: the same values, printed with trec_eval's id. */
const SAME: [field: string, trec: string, printed: string][] = [
  ['nDCG@10', 'ndcg_cut.10', 'ndcg_cut_10'],
  ['NDCG@3', 'ndcg_cut.3', 'ndcg_cut_3'],
  ['ndcg@3', 'ndcg_cut.3', 'ndcg_cut_3'], // ranx
  ['nDCG', 'ndcg', 'ndcg'],
  ['nDCG(dcg=log2)@3', 'ndcg_cut.3', 'ndcg_cut_3'],
  ['P@10', 'P.10', 'P_10'],
  ['Precision@2', 'P.2', 'P_2'],
  ['P(cutoff=3)', 'P.3', 'P_3'],
  ['R@100', 'recall.100', 'recall_100'],
  ['recall@2', 'recall.2', 'recall_2'], // ranx
  ['AP', 'map', 'map'],
  ['MAP', 'map', 'map'],
  ['AP@4', 'map_cut.4', 'map_cut_4'],
  ['RR', 'recip_rank', 'recip_rank'],
  ['MRR', 'recip_rank', 'recip_rank'],
  ['Rprec', 'Rprec', 'Rprec'],
  ['Bpref', 'bpref', 'bpref'],
  ['infAP', 'infAP', 'infAP'],
  ['Success@2', 'success.2', 'success_2'],
  ['hit_rate@2', 'success.2', 'success_2'], // ranx
  ['IPrec@0.25', 'iprec_at_recall.0.25', 'iprec_at_recall_0.25'],
  ['NumRet', 'num_ret', 'num_ret'],
  ['NumRelRet', 'num_rel_ret', 'num_rel_ret'],
  ['NumRel', 'num_rel', 'num_rel'],
  ['SetP', 'set_P', 'set_P'],
  ['SetP(relative=True)', 'set_relative_P', 'set_relative_P'],
  ['SetRelP', 'set_relative_P', 'set_relative_P'],
  ['SetR', 'set_recall', 'set_recall'],
  ['SetF', 'set_F', 'set_F'],
  ['SetF(beta=0.5)', 'set_F.0.5', 'set_F_0.5'],
  ['SetAP', 'set_map', 'set_map'],
  ['Judged@5', 'judged.5', 'judged_5'],
  ['R_cap@3', 'recall_cap.3', 'recall_cap_3'], // BEIR
  ['Hole@5', 'hole.5', 'hole_5'], // BEIR
];

/** Names trec_eval computes only with another -l or -M than the evaluation's: printed as written. */
const VIEWS: [field: string, trec: string, options: EvalOptions, printed: string][] = [
  ['P(rel=2)@3', 'P.3', { relevanceLevel: 2 }, 'P(rel=2)@3'],
  ['Precision(rel=2)@3', 'P.3', { relevanceLevel: 2 }, 'P(rel=2)@3'],
  ['R(rel=2)@4', 'recall.4', { relevanceLevel: 2 }, 'R(rel=2)@4'],
  ['AP(rel=2)', 'map', { relevanceLevel: 2 }, 'AP(rel=2)'],
  ['AP(rel=2)@4', 'map_cut.4', { relevanceLevel: 2 }, 'AP(rel=2)@4'],
  ['RR(rel=2)', 'recip_rank', { relevanceLevel: 2 }, 'RR(rel=2)'],
  ['Rprec(rel=2)', 'Rprec', { relevanceLevel: 2 }, 'Rprec(rel=2)'],
  ['Bpref(rel=2)', 'bpref', { relevanceLevel: 2 }, 'Bpref(rel=2)'],
  ['infAP(rel=2)', 'infAP', { relevanceLevel: 2 }, 'infAP(rel=2)'],
  ['Success(rel=2)@2', 'success.2', { relevanceLevel: 2 }, 'Success(rel=2)@2'],
  ['NumRel(rel=2)', 'num_rel', { relevanceLevel: 2 }, 'NumRel(rel=2)'],
  ['NumRet(rel=2)', 'num_rel_ret', { relevanceLevel: 2 }, 'NumRet(rel=2)'],
  ['SetP(rel=2)', 'set_P', { relevanceLevel: 2 }, 'SetP(rel=2)'],
  ['SetF(rel=2,beta=0.5)', 'set_F.0.5', { relevanceLevel: 2 }, 'SetF(rel=2,beta=0.5)'],
  ['RR@3', 'recip_rank', { maxRetrieved: 3 }, 'RR@3'],
  ['MRR@3', 'recip_rank', { maxRetrieved: 3 }, 'RR@3'],
  ['mrr@3', 'recip_rank', { maxRetrieved: 3 }, 'RR@3'], // ranx
  ['RR(rel=2)@5', 'recip_rank', { relevanceLevel: 2, maxRetrieved: 5 }, 'RR(rel=2)@5'],
];

describe("the field's measure names are trec_eval's measures (generated cases)", () => {
  for (const complete of [false, true]) {
    for (const [field, trec, printed] of SAME) {
      it(`${field} = -m ${trec}, printed ${printed}${complete ? ' (-c)' : ''}`, () => {
        for (const { qrels, run } of CASES) {
          // Beside other measures, as a user asks for them.
          const got = column(qrels, run, ['P.5', field, 'ndcg_cut.10'], printed, { complete });
          assert.deepEqual(got, column(qrels, run, [trec], printed, { complete }));
        }
      });
    }
    for (const [field, trec, options, printed] of VIEWS) {
      const flags = `${options.relevanceLevel ? ` -l ${options.relevanceLevel}` : ''}${options.maxRetrieved ? ` -M ${options.maxRetrieved}` : ''}`;
      it(`${field} = trec_eval${flags} -m ${trec}, beside measures at -l 1 over the whole ranking; printed ${printed}${complete ? ' (-c)' : ''}`, () => {
        const trecName = resolveMeasures([trec])[0].names[0];
        for (const { qrels, run } of CASES) {
          const got = column(qrels, run, ['P.5', field, 'recip_rank', 'map'], printed, { complete });
          assert.deepEqual(got, column(qrels, run, [trec], trecName, { ...options, complete }), field);
          // The measures beside it keep the evaluation's level and depth.
          assert.deepEqual(column(qrels, run, ['P.5', field, 'recip_rank'], 'recip_rank', { complete }), column(qrels, run, ['recip_rank'], 'recip_rank', { complete }));
        }
      });
    }
  }

  it('Judged@k is 1 - unj.k (trec_eval 10) where the ranking has k documents or more', () => {
    let compared = 0;
    for (const { qrels, run } of CASES) {
      const r = evaluate(qrels, run, { measures: ['Judged@3', 'unj.3'] });
      r.queries.forEach((qid, i) => {
        if (run.queryIndex(qid) < 0 || run.ranking(qid)!.docs.length < 3) return;
        compared++;
        assert.ok(Math.abs(r.values[i * 2] + r.values[i * 2 + 1] - 1) < 1e-12, `${qid}: judged ${r.values[i * 2]} unj ${r.values[i * 2 + 1]}`);
      });
    }
    assert.ok(compared > 50, `${compared} queries compared`);
  });
});

describe("the field's names against trec_eval's output files (shared/golden/edge)", { skip: needsShared('golden') }, () => {
  const edge = join(GOLDEN, 'edge');
  const qrels = () => readQrels(join(edge, 'qrels.trec'));
  const run = () => readRun(join(edge, 'run.trec'));
  /** trec_eval's per-query and summary lines of one measure, with its name replaced. */
  const lines = (file: string, trecName: string, as: string) =>
    readFileSync(join(edge, file), 'utf8').split('\n').filter((l) => l.split(/\s+/)[0] === trecName).map((l) => `${as.padEnd(22)}\t${l.split('\t').slice(1).join('\t')}`);
  const ours = (measures: string[], name: string, options: EvalOptions = {}) => {
    const r = evaluate(qrels(), run(), { ...options, measures });
    const v = perQuery(r, name);
    return [...r.queries.map((q) => `${name.padEnd(22)}\t${q}\t${v.get(q)!.toFixed(name.startsWith('NumRet') ? 0 : 4)}`), `${name.padEnd(22)}\tall\t${r.mean.get(name)!.toFixed(name.startsWith('NumRet') ? 0 : 4)}`];
  };

  for (const [field, trecName] of [['P(rel=2)@10', 'P_10'], ['R(rel=2)@100', 'recall_100'], ['AP(rel=2)', 'map'], ['RR(rel=2)', 'recip_rank'], ['Rprec(rel=2)', 'Rprec'], ['NumRet(rel=2)', 'num_rel_ret'], ['Success(rel=2)@5', 'success_5']]) {
    it(`${field} per query and in the mean is trec_eval -q -l 2's ${trecName} (l2.q.txt), beside nDCG@10 at -l 1`, () => {
      assert.deepEqual(ours(['nDCG@10', field], field), lines('l2.q.txt', trecName, field));
    });
  }
  for (const [field, trecName] of [['nDCG@10', 'ndcg_cut_10'], ['R@100', 'recall_100'], ['P@10', 'P_10'], ['AP', 'map'], ['RR', 'recip_rank'], ['AP@100', 'map_cut_100']]) {
    it(`${field} is trec_eval -q's ${trecName} (default.q.txt)`, () => {
      assert.deepEqual(ours([field], trecName), lines('default.q.txt', trecName, trecName));
    });
  }
  it('Judged@k is 1 - unj_k of trec_eval 10 -c (unj.c.q.txt) on every query with k documents or more', () => {
    const unj = new Map(readFileSync(join(edge, 'unj.c.q.txt'), 'utf8').split('\n').filter((l) => l.startsWith('unj_10 ')).map((l) => [l.split('\t')[1], Number(l.split('\t')[2])]));
    const r = evaluate(qrels(), run(), { measures: ['Judged@10'], complete: true });
    const judged = perQuery(r, 'judged_10');
    let compared = 0;
    for (const [qid, v] of judged) {
      if ((run().ranking(qid)?.docs.length ?? 0) < 10) continue;
      compared++;
      assert.equal((1 - v).toFixed(4), unj.get(qid)!.toFixed(4), qid);
    }
    assert.ok(compared >= 10, `${compared} queries compared`);
  });
});

describe('field names: parsing, errors and what is near', () => {
  it('reads parameters, quoted values and cutoffs as ir_measures writes them', () => {
    assert.deepEqual(fieldMeasure('P(rel=2)@10'), { family: 'P', params: '10', view: { level: 2 }, label: 'P(rel=2)@10' });
    assert.deepEqual(fieldMeasure("nDCG(dcg='log2')@10"), { family: 'ndcg_cut', params: '10', view: undefined, label: 'nDCG@10' });
    assert.deepEqual(fieldMeasure('RR(rel=2)@10'), { family: 'recip_rank', params: undefined, view: { level: 2, depth: 10 }, label: 'RR(rel=2)@10' });
    assert.equal(fieldMeasure('ndcg_cut.10'), undefined, "trec_eval's syntax is not a field name");
    assert.equal(fieldMeasure('nosuch@10'), undefined);
  });

  const refused: [string, RegExp][] = [
    ['P', /^$/], // P alone is trec_eval's P (every default cutoff): not refused
    ['P@0', /P's cutoff '0' must be a positive integer/],
    ['R', /R needs a cutoff, e\.g\. R@10/],
    ['Judged', /Judged needs a cutoff, e.g\. Judged@10/],
    ['Rprec@10', /Rprec takes no cutoff: write Rprec/],
    ['IPrec@2', /IPrec's cutoff '2' must be a recall level from 0 to 1/],
    ['P(rel=x)@10', /rel=x is not an integer grade/],
    ['P(rl=2)@10', /P has no parameter 'rl': did you mean 'rel'\? \(it takes rel\)/],
    ['nDCG(rel=2)@10', /nDCG has no parameter 'rel' \(it takes none\)/],
    ['nDCG(dcg=exp-log2)@10', /only trec_eval's log2 discount/],
    ['nDCG(judged_only=True)@10', /give -J/],
    ['P(cutoff=5)@10', /the cutoff is given twice/],
    ['SetF(beta=x)', /beta=x is not a number/],
    ['ERR@10', /ir_measures' ERR is not computed by trec_eval or irw/],
    ['RBP(p=0.8)', /rbp\.p=0\.8/],
    ['nDGC@10', /unknown measure 'nDGC@10': did you mean 'nDCG@10'\?/],
    ['ndcg_cut@10', /did you mean 'ndcg_cut\.10'\?/],
    ['recall_100', /did you mean 'recall\.100'\?/],
    ['ndgc_cut', /did you mean 'ndcg_cut'\?/],
  ];
  for (const [spec, message] of refused) {
    it(`${spec}: ${message.source === '^$' ? "trec_eval's measure" : 'refused, saying what to write'}`, () => {
      if (message.source === '^$') return assert.doesNotThrow(() => resolveMeasures([spec]));
      assert.throws(() => resolveMeasures([spec]), (e: Error) => e instanceof MeasureSpecError && message.test(e.message), spec);
    });
  }

  it('an unknown measure is one line with what is near and how measures are written, not a list of every name', () => {
    assert.throws(() => resolveMeasures(['nosuch']), (e: Error) => !e.message.includes('\n') && e.message.length < 300 && /nDCG@10/.test(e.message) && /ndcg_cut\.10/.test(e.message));
  });
});

describe('field names in one evaluation', () => {
  it('cutoffs of field names merge, also where trec_eval -m keeps only the first (irw eval)', () => {
    const [m] = resolveMeasures(['nDCG@10', 'nDCG@100', 'NDCG@5'], true);
    assert.deepEqual(m.names, ['ndcg_cut_5', 'ndcg_cut_10', 'ndcg_cut_100']);
    const views = resolveMeasures(['P(rel=2)@10', 'P(rel=2)@5', 'P@10']);
    assert.deepEqual(views.map((v) => v.names), [['P_10'], ['P(rel=2)@5', 'P(rel=2)@10']]);
  });

  it("a later trec_eval -m's parameters are reported where they are dropped (as trec_eval drops them)", () => {
    const ignored: string[] = [];
    const [p] = resolveMeasures(['P.5', 'P.10', 'P.5', 'set_F.0.5', 'set_F.2'], true, 9, (spec, kept, both) => ignored.push(`${spec} < ${kept} ${both ?? '-'}`));
    assert.deepEqual(p.names, ['P_5']);
    assert.deepEqual(ignored, ['P.10 < P.5 P.5,10', 'set_F.2 < set_F.0.5 -']);
    // Without firstParamsWin cutoffs merge; one set_F parameter still wins, and the other is reported.
    ignored.length = 0;
    assert.deepEqual(resolveMeasures(['P.5', 'P.10', 'set_F.0.5', 'set_F.2'], false, 9, (spec, kept) => ignored.push(`${spec} < ${kept}`)).map((m) => m.names), [['P_5', 'P_10'], ['set_F_0.5']]);
    assert.deepEqual(ignored, ['set_F.2 < set_F.0.5']);
    assert.throws(() => resolveMeasures(['SetF(beta=0.5)', 'SetF(beta=2)']), /set_F takes one set of parameters per evaluation/);
  });

  it('the same field name twice is one column', () => {
    const r = evaluate(CASES[0].qrels, CASES[0].run, { measures: ['RR@3', 'MRR@3', 'P(rel=2)@3', 'Precision(rel=2)@3'] });
    assert.deepEqual(r.columns.map((c) => c.name), ['RR@3', 'P(rel=2)@3']);
  });
});
