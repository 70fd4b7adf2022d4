import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../../src/core/eval';
import { HoleScorer, prepareHoles } from '../../../../../src/core/eval/holes';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { mulberry32 } from '../../../../../src/core/random';
import { randomCase } from './bruteForce';

const MEASURES = ['recip_rank', 'RR@3', 'RR(rel=2)@4', 'success.3', 'ndcg_cut.5', 'P.5', 'recall.10', 'map', 'Rprec'];

test('a list scored with its holes graded is evaluate() on qrels that hold those grades, to the bit (recip_rank stops at the first relevant document)', () => {
  let relevantHoles = 0;
  for (const grades of [[1], [0, 1, 2]]) {
    for (let seed = 1; seed <= 25; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 5 });
      const next = mulberry32(seed * 31);
      const judgements: { qid: string; docid: string; grade: number }[] = [];
      for (const qid of qrels.queryIds()) qrels.judgements(qid)!.docs.forEach((docid, i) => judgements.push({ qid, docid, grade: qrels.judgements(qid)!.grades[i] }));
      const assigned = set.queries.map((q) => Int32Array.from(q.holes, () => set.scale[next() % set.scale.length]));
      set.queries.forEach((q, qi) => q.holes.forEach((docid, h) => judgements.push({ qid: q.qid, docid, grade: assigned[qi][h] })));
      relevantHoles += assigned.reduce((n, a) => n + a.filter((g) => g > 0).length, 0);
      const graded = Qrels.fromJudgements(judgements);
      for (const spec of MEASURES) {
        const s = new HoleScorer(spec, set.scale);
        runs.forEach((run, r) => {
          const ev = perQuery(evaluate(graded, run, { measures: [spec], complete: true }), s.name);
          set.queries.forEach((q, qi) => {
            const got = s.score(q, r, assigned[qi]);
            assert.ok(Object.is(got, ev.get(q.qid)), `seed ${seed} ${spec} run ${r} ${q.qid}: ${got} vs evaluate ${ev.get(q.qid)}`);
          });
        });
      }
    }
  }
  assert.ok(relevantHoles > 100, `holes graded relevant: ${relevantHoles}`);
});
