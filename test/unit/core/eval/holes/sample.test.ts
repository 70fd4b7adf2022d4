import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoleEstimator, HoleScorer, prepareHoles, SampleQueue, type HoleSet, type ValueScorer } from '../../../../../src/core/eval/holes';
import { drawUniform } from '../../../../../src/core/eval/holes/sample';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { mulberry32 } from '../../../../../src/core/random';

/** Two runs over 40 queries, their top 10 mostly unjudged; `truth` grades every hole (relevance falls with rank). */
function split(seed: number): { set: HoleSet; truth: Int32Array[] } {
  const next = mulberry32(seed);
  const u = () => next() / 4294967296;
  const judgements: { qid: string; docid: string; grade: number }[] = [];
  const rankings: [string, string[], number[]][][] = [[], []];
  const rel = new Map<string, number>();
  for (let i = 0; i < 40; i++) {
    const qid = `q${i}`;
    const docs = Array.from({ length: 16 }, (_, d) => `d${d}`);
    docs.forEach((d, j) => rel.set(`${qid}\t${d}`, u() < 0.5 / (1 + j / 3) ? 1 : 0));
    for (const r of [0, 1]) {
      const order = docs.map((d, j) => [j + (r ? 2 : 30) * u(), d] as const).sort((x, y) => x[0] - y[0]).map(([, d]) => d).slice(0, 10);
      rankings[r].push([qid, order, order.map((_, j) => 10 - j)]);
    }
    judgements.push({ qid, docid: 'd0', grade: rel.get(`${qid}\td0`)! });
  }
  const runs = rankings.map((r, i) => Run.fromRankings(`r${i}`, r));
  const set = prepareHoles(Qrels.fromJudgements(judgements), runs, { poolDepth: 10 });
  return { set, truth: set.queries.map((q) => Int32Array.from(q.holes, (d) => rel.get(`${q.qid}\t${d}`)!)) };
}

const p10 = (scale: readonly number[]): { hs: HoleScorer; vs: ValueScorer } => {
  const hs = new HoleScorer('P.10', scale);
  return { hs, vs: { scale: hs.scale, cutoff: 10, score: (q, r, g) => hs.score(q, r, g) } };
};

test('the design-based estimate is unbiased over the queue\'s seeds and its 95 % interval holds the truth in most trials (P@10, where effects add)', () => {
  const { set, truth } = split(11);
  const { hs, vs } = p10(set.scale);
  let want = 0;
  for (const [qi, q] of set.queries.entries()) want += (hs.score(q, 1, truth[qi]) - hs.score(q, 0, truth[qi])) / set.queries.length;
  const seeds = 100;
  const draws = 40;
  const estimates: number[] = [];
  let covered = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const fresh = { ...set, queries: set.queries.map((q) => ({ ...q, grades: Int32Array.from(q.grades) })) };
    const est = new HoleEstimator(fresh, [0, 1], { p: vs }, { seed: 1 });
    const queue = new SampleQueue(est, 'p', seed);
    for (let k = 0; k < draws; k++) {
      const it = queue.next()!;
      queue.judge(it.query, it.hole, truth[it.query][it.hole]);
    }
    const d = queue.design();
    assert.equal(d.sampled, draws);
    estimates.push(d.estimate);
    if (d.lo <= want && want <= d.hi) covered++;
  }
  const mean = estimates.reduce((s, x) => s + x, 0) / seeds;
  const sd = Math.sqrt(estimates.reduce((s, x) => s + (x - mean) ** 2, 0) / (seeds - 1));
  // Unbiased: the mean of the estimates is within 3.3 standard errors of the truth (a chance of 0.1 % to fail).
  assert.ok(Math.abs(mean - want) < (3.3 * sd) / Math.sqrt(seeds), `mean ${mean} vs truth ${want} (sd ${sd})`);
  assert.ok(sd > 0, 'the estimates vary with the seed');
  // The normal interval from 40 draws under-covers: the queue draws where the model's variance is (not
  // where the errors' spread is), so the terms are heavy-tailed; 83 of 100 here. It must not fall further.
  assert.ok(covered >= 0.75 * seeds, `covered ${covered} of ${seeds}`);
});

test('the queue is seeded and blind: the same seed gives the same draws whatever the runs are called; judgements out of its order are not draws', () => {
  const { set, truth } = split(12);
  const { vs } = p10(set.scale);
  const order = (s: HoleSet, seed: number) => {
    const est = new HoleEstimator(s, [0, 1], { p: vs });
    const queue = new SampleQueue(est, 'p', seed);
    const out: string[] = [];
    for (let k = 0; k < 8; k++) {
      const it = queue.next()!;
      out.push(`${it.qid} ${it.docId}`);
      queue.judge(it.query, it.hole, truth[it.query][it.hole]);
    }
    return { out, queue };
  };
  const copy = () => ({ ...set, queries: set.queries.map((q) => ({ ...q, grades: Int32Array.from(q.grades) })) });
  const a = order(copy(), 3).out;
  assert.deepEqual(order({ ...copy(), runIds: ['x', 'y'] }, 3).out, a);
  assert.notDeepEqual(order(copy(), 4).out, a);
  // A hole judged elsewhere (not the one the draw gives) counts among the judged, not in the sample.
  const { queue } = order(copy(), 3);
  const next = queue.next()!;
  const other = set.queries.findIndex((q, qi) => qi !== next.query && q.holes.length > 0);
  queue.judge(other, 0, 1);
  assert.equal(queue.sampled, 8);
  // Each draw's uniform is in (0, 1) and depends only on the seed and the draw's number.
  for (let k = 0; k < 100; k++) {
    const x = drawUniform(3, k);
    assert.ok(x > 0 && x < 1 && x === drawUniform(3, k));
  }
});

test('a hole\'s chance in a draw is proportional to the square of its weight (with a floor of a thousandth of the mean), so draws go where judging narrows the estimate most', () => {
  const { set, truth } = split(13);
  const { vs } = p10(set.scale);
  const est = new HoleEstimator(set, [0, 1], { p: vs });
  const queue = new SampleQueue(est, 'p', 5);
  for (let k = 0; k < 12; k++) {
    const w = est.holeWeights('p');
    const unjudged: number[] = [];
    set.queries.forEach((q, qi) => q.grades.forEach((g, h) => g < 0 && unjudged.push(est.offsets[qi] + h)));
    const squares = unjudged.map((i) => w[i] ** 2);
    const floor = (1e-3 * squares.reduce((s, x) => s + x, 0)) / unjudged.length;
    const total = squares.reduce((s, x) => s + x + floor, 0);
    const it = queue.next()!;
    const want = (w[est.offsets[it.query] + it.hole] ** 2 + floor) / total;
    assert.ok(Math.abs(it.chance - want) <= 1e-12 * want, `draw ${k}: chance ${it.chance}, want ${want}`);
    // The weights differ, so the square draws differently from the weight itself.
    assert.ok(Math.max(...squares) > 4 * Math.min(...squares));
    queue.judge(it.query, it.hole, truth[it.query][it.hole]);
  }
});
