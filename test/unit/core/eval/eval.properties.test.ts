import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluate, formatFixed, perQuery } from '../../../../src/core/eval';
import { Qrels } from '../../../../src/core/formats/qrels';
import { Run } from '../../../../src/core/formats/run';

const docId = fc.constantFrom(...Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `d${i}` : String(i * 7))));

/** One query: judged documents with grades -2..3 and a ranking whose scores tie often. */
const query = fc.record({
  judged: fc.uniqueArray(fc.tuple(docId, fc.integer({ min: -2, max: 3 })), { selector: ([d]) => d, maxLength: 20 }),
  ranked: fc.uniqueArray(fc.tuple(docId, fc.integer({ min: 0, max: 4 })), { selector: ([d]) => d, minLength: 1, maxLength: 25 }),
});

function build(q: { judged: [string, number][]; ranked: [string, number][] }) {
  const qrels = Qrels.fromJudgements(q.judged.map(([docid, grade]) => ({ qid: 'q', docid, grade })));
  const run = Run.fromRankings('t', [['q', q.ranked.map(([d]) => d), q.ranked.map(([, s]) => s)]]);
  return { qrels, run };
}

const NDCG = ['ndcg', 'ndcg_cut.1,3,5,10,100', 'ndcg_rel', 'Rndcg'];

describe('evaluation properties', () => {
  it('nDCG variants stay within [0, 1]', () => {
    fc.assert(
      fc.property(query, (q) => {
        fc.pre(q.judged.length > 0);
        const r = evaluate(build(q).qrels, build(q).run, { measures: NDCG });
        for (const v of r.summary) assert.ok(v >= 0 && v <= 1 + 1e-12, `value ${v}`);
      }),
      { numRuns: 500 },
    );
  });

  it('the ideal ranking (judged documents by decreasing grade) scores nDCG 1, and AP 1', () => {
    fc.assert(
      fc.property(query, (q) => {
        const rel = q.judged.filter(([, g]) => g > 0);
        fc.pre(rel.length > 0);
        const ideal = [...rel].sort((a, b) => b[1] - a[1]);
        const qrels = Qrels.fromJudgements(q.judged.map(([docid, grade]) => ({ qid: 'q', docid, grade })));
        const run = Run.fromRankings('t', [['q', ideal.map(([d]) => d), ideal.map((_, i) => 1000 - i)]]);
        const r = evaluate(qrels, run, { measures: ['ndcg', 'ndcg_cut.1000', 'map'] });
        for (const [name, v] of r.mean) assert.ok(Math.abs(v - 1) < 1e-12, `${name} = ${v}`);
      }),
      { numRuns: 300 },
    );
  });

  it('permuting the input order of tied documents changes nothing (ties go by docno, descending)', () => {
    fc.assert(
      fc.property(query, fc.integer({ min: 0, max: 1000 }), (q, seed) => {
        const shuffled = [...q.ranked];
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = (seed * 31 + i * 17) % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
        }
        const a = build(q);
        const b = build({ ...q, ranked: shuffled });
        const opts = { measures: ['official', 'ndcg_cut', 'recall', 'infAP', 'bpref', 'Rndcg', 'unj'] };
        assert.deepEqual(evaluate(a.qrels, a.run, opts).summary, evaluate(b.qrels, b.run, opts).summary);
      }),
      { numRuns: 300 },
    );
  });

  it('ranks ties by docno in descending byte order, ignoring the order given', () => {
    const run = Run.fromRankings('t', [['q', ['10', '9', 'b', 'a'], [1, 1, 1, 1]]]);
    assert.deepEqual(run.ranking('q')!.docs, ['b', 'a', '9', '10']);
  });

  it('negative grades are pooled-but-unjudged: gain 0, counted by unj, not by judged', () => {
    const qrels = Qrels.fromJudgements([
      { qid: 'q', docid: 'a', grade: -1 },
      { qid: 'q', docid: 'b', grade: 2 },
    ]);
    const run = Run.fromRankings('t', [['q', ['a', 'b', 'c'], [3, 2, 1]]]);
    const r = evaluate(qrels, run, { measures: ['ndcg_cut.1', 'unj.3', 'judged.3', 'hole.3', 'num_rel'] });
    assert.equal(r.mean.get('ndcg_cut_1'), 0);
    assert.equal(r.mean.get('unj_3'), 2 / 3);
    assert.equal(r.mean.get('judged_3'), 1 / 3);
    assert.equal(r.mean.get('hole_3'), 2 / 3);
    assert.equal(r.mean.get('num_rel'), 1);
  });

  it('hole.k counts documents judged for no query; judged.k only this query', () => {
    const qrels = Qrels.fromJudgements([
      { qid: 'q1', docid: 'a', grade: 1 },
      { qid: 'q2', docid: 'b', grade: 0 },
    ]);
    const run = Run.fromRankings('t', [['q1', ['a', 'b', 'c', 'd'], [4, 3, 2, 1]]]);
    const r = evaluate(qrels, run, { measures: ['hole.4,10', 'judged.4'] });
    assert.equal(r.mean.get('hole_4'), 2 / 4);
    assert.equal(r.mean.get('hole_10'), 2 / 10);
    assert.equal(r.mean.get('judged_4'), 1 / 4);
  });

  it('recall_cap.k divides by min(R, k)', () => {
    const judged = ['a', 'b', 'c', 'd', 'e'].map((docid) => ({ qid: 'q', docid, grade: 1 }));
    const run = Run.fromRankings('t', [['q', ['a', 'x', 'b'], [3, 2, 1]]]);
    const r = evaluate(Qrels.fromJudgements(judged), run, { measures: ['recall_cap.2,3,10', 'recall.2'] });
    assert.equal(r.mean.get('recall_cap_2'), 1 / 2);
    assert.equal(r.mean.get('recall_cap_3'), 2 / 3);
    assert.equal(r.mean.get('recall_cap_10'), 2 / 5);
    assert.equal(r.mean.get('recall_2'), 1 / 5);
  });

  it('-c averages over all qrels queries; a missing query scores 0 (and gm_map uses its floor)', () => {
    const qrels = Qrels.fromJudgements([
      { qid: 'q1', docid: 'a', grade: 1 },
      { qid: 'q2', docid: 'b', grade: 1 },
    ]);
    const run = Run.fromRankings('t', [['q1', ['a'], [1]]]);
    assert.equal(evaluate(qrels, run, { measures: ['map'] }).mean.get('map'), 1);
    const c = evaluate(qrels, run, { measures: ['map', 'gm_map', 'num_rel'], complete: true });
    assert.equal(c.mean.get('map'), 0.5);
    assert.equal(c.mean.get('num_rel'), 2);
    assert.ok(Math.abs(c.mean.get('gm_map')! - Math.exp((Math.log(1) + Math.log(0.00001)) / 2)) < 1e-15);
    assert.deepEqual([...perQuery(c, 'map')], [['q1', 1], ['q2', 0]]);
  });

  it('the library merges repeated cutoffs; trec_eval semantics (first -m wins) are opt-in', () => {
    const qrels = Qrels.fromJudgements([{ qid: 'q', docid: 'a', grade: 1 }]);
    const run = Run.fromRankings('t', [['q', ['a'], [1]]]);
    assert.deepEqual(evaluate(qrels, run, { measures: ['P.5', 'P.10'] }).columns.map((c) => c.name), ['P_5', 'P_10']);
    assert.deepEqual(evaluate(qrels, run, { measures: ['P.5', 'P.10'], firstParamsWin: true }).columns.map((c) => c.name), ['P_5']);
  });
});

describe('printf-exact formatting', () => {
  it('rounds exact halves to even like C, other values like toFixed', () => {
    assert.equal(formatFixed(0.03125, 4), '0.0312'); // 1/32: an exact tie
    assert.equal(formatFixed(0.09375, 4), '0.0938'); // 3/32: tie, rounds to even 8
    assert.equal(formatFixed(0.12345, 4), '0.1235'); // not exactly representable: nearest
    assert.equal(formatFixed(1, 4), '1.0000');
    assert.equal(formatFixed(0.2, 2), '0.20');
    assert.equal(formatFixed(0.125, 2), '0.12');
  });

  it('matches a reference decimal expansion on random doubles', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1000, noNaN: true }), (x) => {
        // Exact decimal expansion (toFixed(30) is exact enough to decide rounding away from ties).
        const exact = x.toFixed(30);
        const [int, frac] = exact.split('.');
        const keep = BigInt(int + frac.slice(0, 4));
        const rest = frac.slice(4);
        const half = '5'.padEnd(rest.length, '0');
        const up = rest > half || (rest === half && keep % 2n === 1n);
        const n = (keep + (up ? 1n : 0n)).toString().padStart(5, '0');
        assert.equal(formatFixed(x, 4), `${n.slice(0, -4)}.${n.slice(-4)}`);
      }),
      { numRuns: 2000 },
    );
  });
});
