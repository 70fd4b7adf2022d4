import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../../src/core/eval';
import { HoleScorer, prepareHoles, QueryListValues } from '../../../../../src/core/eval/holes';
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

test('QueryListValues: one memo of a query, kept across every grading and list, gives each list\'s value to the bit (keys tell gradings apart)', () => {
  let checked = 0;
  let remembered = 0;
  for (const grades of [[1], [0, 1, 2]]) {
    for (let seed = 1; seed <= 20; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 2 + (seed % 4) });
      const next = mulberry32(seed * 7);
      for (const spec of MEASURES) {
        const s = new HoleScorer(spec, set.scale);
        for (const q of set.queries) {
          const values = new QueryListValues(s, q);
          // Every grading of up to 6 holes (a random sample beyond), some of them twice, some past the
          // scorer's scale (scored directly): a key that left out a read hole or a count would mix them up.
          const total = Math.min(s.scale.length ** q.holes.length, 729);
          for (let k = 0; k < total * 2; k++) {
            let x = k % total;
            const g = Int32Array.from(q.holes, () => {
              const pick = q.holes.length <= 6 ? x % s.scale.length : next() % s.scale.length;
              x = Math.floor(x / s.scale.length);
              return next() % 9 === 0 ? -1 : s.scale[pick];
            });
            if (k > total && k % 3 === 0 && g.length) g[next() % g.length] = s.scale[s.scale.length - 1] + 1 + (next() % 2);
            runs.forEach((_, r) => {
              const want = s.score(q, r, g);
              const got = values.score(r, g);
              assert.ok(Object.is(got, want), `seed ${seed} ${spec} ${q.qid} run ${r} grades ${g.join(',')}: ${got} vs ${want}`);
              checked++;
            });
          }
          remembered += values.size;
        }
      }
    }
  }
  assert.ok(checked > 50_000 && remembered > 5_000, `${checked} values checked, ${remembered} remembered`);
});
