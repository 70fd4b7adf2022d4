import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate, perQuery } from '../../../../../src/core/eval';
import { HoleScorer, prepareHoles, queryInterval, runIntervals } from '../../../../../src/core/eval/holes';
import { holeRanks } from '../../../../../src/core/eval/holes/interval';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { bruteForce, randomCase, scoreOf } from './bruteForce';

// With field names that see the ranking at another level or depth than the evaluation (names.ts).
const MEASURES = ['ndcg_cut.5', 'ndcg_cut.10', 'ndcg', 'P.5', 'recall.10', 'recall_cap.5', 'map', 'map_cut.5', 'recip_rank', 'success.5', 'Rprec', 'set_F', 'bpref', 'infAP', 'Rndcg', 'P(rel=2)@5', 'RR@3', 'RR(rel=2)@4', 'AP(rel=2)'];
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-12;

for (const grades of [[1], [0, 1], [0, 1, 2]]) {
  test(`intervals equal brute force over every assignment (grades ${grades.join(',')}), values equal evaluate()`, () => {
    for (let seed = 1; seed <= 25; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs, { poolDepth: 4 });
      for (const spec of MEASURES) {
        const s = new HoleScorer(spec, set.scale);
        runs.forEach((run, r) => {
          const ev = perQuery(evaluate(qrels, run, { measures: [spec], complete: true }), s.name);
          set.queries.forEach((q) => {
            const got = queryInterval(q, r, s);
            const want = bruteForce(q, s.scale, scoreOf(q, r, s));
            const where = `seed ${seed} ${spec} run ${r} ${q.qid} (${got.holes} holes)`;
            assert.ok(near(got.value, ev.get(q.qid)!), `${where}: value ${got.value} vs evaluate ${ev.get(q.qid)}`);
            assert.ok(got.exact, where);
            assert.ok(near(got.lo, want.lo) && near(got.hi, want.hi), `${where}: [${got.lo}, ${got.hi}] vs brute force [${want.lo}, ${want.hi}]`);
          });
        });
      }
    }
  });
}

test('the scale a hole can take: the dataset grades for gains, {0, first relevant grade} for binary measures', () => {
  assert.deepEqual(new HoleScorer('ndcg_cut.10', [0, 1, 2]).scale, [0, 1, 2]);
  assert.deepEqual(new HoleScorer('P.10', [0, 1, 2]).scale, [0, 1]);
  assert.deepEqual(new HoleScorer('P.10', [0, 1, 2], 2).scale, [0, 2]);
  assert.throws(() => new HoleScorer('ndcg_cut.5,10', [0, 1]), /one score per query/);
  assert.throws(() => new HoleScorer('num_ret', [0, 1]), /one score per query/);
});

test('nDCG is not monotone in a hole: all holes relevant is not the upper end', () => {
  // One judged relevant document at rank 1; the hole is not retrieved. Judging it relevant raises the ideal DCG.
  const qrels = Qrels.fromJudgements([{ qid: 'q', docid: 'a', grade: 1 }]);
  const run = Run.fromRankings('r', [['q', ['a', 'x'], [2, 1]]]);
  const other = Run.fromRankings('o', [['q', ['y'], [1]]]);
  const set = prepareHoles(qrels, [run, other], { poolDepth: 1 });
  const s = new HoleScorer('ndcg_cut.10', set.scale);
  const q = set.queries[0];
  assert.deepEqual(q.holes, ['y']);
  const got = queryInterval(q, 0, s);
  assert.equal(got.hi, 1);
  assert.ok(near(got.lo, 1 / (1 + 1 / Math.log2(3))), `lo ${got.lo}`);
  assert.ok(s.score(q, 0, Int32Array.of(1)) < got.hi, 'the hole judged relevant lowers the score');
});

test('judged-only value is the value of the run with unjudged documents removed (trec_eval -J)', () => {
  for (let seed = 1; seed <= 10; seed++) {
    const { qrels, runs } = randomCase(seed, [0, 1, 2]);
    const set = prepareHoles(qrels, runs, { poolDepth: 4 });
    for (const spec of ['ndcg_cut.5', 'P.5', 'map', 'recip_rank']) {
      const s = new HoleScorer(spec, set.scale);
      runs.forEach((run, r) => {
        const condensed = Run.fromRankings(
          'c',
          run.qids.map((qid) => {
            const judged = new Map(qrels.judgements(qid)!.docs.map((d, i) => [d, qrels.judgements(qid)!.grades[i]]));
            const docs = run.ranking(qid)!.docs.filter((d) => (judged.get(d) ?? -1) >= 0);
            return [qid, docs, docs.map((_, i) => 100 - i)] as [string, string[], number[]];
          }),
        );
        const ev = perQuery(evaluate(qrels, condensed, { measures: [spec], complete: true }), s.name);
        for (const q of set.queries) assert.ok(near(queryInterval(q, r, s).judgedOnly, ev.get(q.qid) ?? 0), `seed ${seed} ${spec} ${q.qid}`);
      });
    }
  }
});

test('over budget: a measure without the shortcut gets its [0, 1] range, marked inexact; the mean is the mean of the queries', () => {
  const { qrels, runs } = randomCase(3, [0, 1]);
  const set = prepareHoles(qrels, runs, { poolDepth: 6 });
  const s = new HoleScorer('bpref', set.scale);
  const q = set.queries.find((x) => x.holes.length > 1)!;
  const got = queryInterval(q, 0, s, 1);
  assert.deepEqual([got.lo, got.hi, got.exact], [0, 1, false]);
  const all = runIntervals(set, 0, new HoleScorer('ndcg_cut.5', set.scale));
  const mean = all.queries.reduce((acc, x) => acc + x.lo, 0) / all.queries.length;
  assert.ok(near(all.mean.lo, mean) && all.mean.lo <= all.mean.value && all.mean.value <= all.mean.hi);
  assert.equal(all.mean.holes, all.queries.reduce((acc, x) => acc + x.holes, 0));
});

test('holeRanks, worked out once per list, is each list\'s own under sets of other depths and judgements of the same runs', () => {
  let lists = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const { qrels, runs } = randomCase(seed, [0, 1, 2]);
    const sets = [2, 6, 4].map((poolDepth) => prepareHoles(qrels, runs, { poolDepth }));
    // Asked in turn, set after set, twice: a memo keyed by query and run, not by list, would give one set's ranks to another.
    for (const round of [0, 1]) {
      for (const set of sets) {
        for (const q of set.queries) {
          runs.forEach((_, r) => {
            const want = new Int32Array(q.holes.length).fill(-1);
            q.lists[r].holeAt.forEach((h, i) => h >= 0 && (want[h] = i));
            const got = holeRanks(q, r);
            assert.deepEqual([...got], [...want], `seed ${seed} depth ${set.poolDepth} ${q.qid} run ${r}`);
            if (round === 1) assert.equal(holeRanks(q, r), got, 'the same array again');
            lists++;
          });
        }
      }
    }
  }
  assert.equal(lists, 10 * 2 * 3 * 3 * 3);
});
