// The holes on real data: SciFact test qrels with a seeded 30 % hidden, the shared MiniLM and rank_bm25 runs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../../src/core/eval';
import { compareUnderHoles, HoleScorer, judgeHole, prepareHoles, runIntervals } from '../../../../../src/core/eval/holes';
import { Qrels, readQrels } from '../../../../../src/core/formats/qrels';
import { readRun } from '../../../../../src/core/formats/run';
import { uniform } from '../../../../../src/core/random';
import { needsShared, SHARED } from '../../../support/paths';

test('SciFact: judging every hole with the hidden truth lands inside every interval and equals evaluate()', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const full = readQrels(join(SHARED, 'datasets/scifact/qrels/test.tsv'));
  const rand = uniform(3);
  const visible: { qid: string; docid: string; grade: number }[] = [];
  const hidden = new Map<string, number>();
  for (const qid of full.queryIds()) {
    const j = full.judgements(qid)!;
    j.docs.forEach((docid, i) => (rand() < 0.3 ? hidden.set(`${qid}\t${docid}`, j.grades[i]) : visible.push({ qid, docid, grade: j.grades[i] })));
  }
  const qrels = Qrels.fromJudgements(visible);
  const runs = ['minilm-faiss.knarfthekant.trec', 'bm25okapi.knarfthekant.trec'].map((f) => readRun(join(SHARED, 'runs/scifact', f)));
  const set = prepareHoles(qrels, runs, { poolDepth: 10 });
  const measures = ['ndcg_cut.10', 'P.10', 'recall.100', 'map', 'recip_rank'];
  const before = measures.map((m) => {
    const s = new HoleScorer(m, set.scale);
    return { spec: m, s, runs: runs.map((_, r) => runIntervals(set, r, s)), cmp: compareUnderHoles(set, 0, 1, s) };
  });
  const judged = [...visible];
  for (const q of set.queries) {
    q.holes.forEach((docid, h) => {
      const grade = hidden.get(`${q.qid}\t${docid}`) ?? 0;
      judgeHole(q, h, grade);
      judged.push({ qid: q.qid, docid, grade });
    });
  }
  const after = Qrels.fromJudgements(judged);
  for (const b of before) {
    runs.forEach((run, r) => {
      const now = runIntervals(set, r, b.s);
      const ev = perQuery(evaluate(after, run, { measures: [b.spec], complete: true }), b.s.name);
      now.queries.forEach((x, i) => {
        const was = b.runs[r].queries[i];
        assert.ok(Math.abs(x.value - ev.get(x.qid)!) < 1e-12, `${b.s.name} ${x.qid}: ${x.value} vs evaluate ${ev.get(x.qid)}`);
        assert.ok(was.lo - 1e-12 <= x.value && x.value <= was.hi + 1e-12, `${b.s.name} ${x.qid}: ${x.value} outside [${was.lo}, ${was.hi}]`);
        assert.equal(x.lo, x.hi);
      });
      assert.ok(b.runs[r].mean.exact, `${b.s.name}: two runs' pool, exact`);
    });
    const c = compareUnderHoles(set, 0, 1, b.s);
    assert.equal(c.verdict, 'settled');
    assert.ok(b.cmp.lo - 1e-12 <= c.mean && c.mean <= b.cmp.hi + 1e-12, `${b.s.name}: ${c.mean} outside [${b.cmp.lo}, ${b.cmp.hi}]`);
  }
});
