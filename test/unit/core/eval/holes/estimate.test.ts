import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CELLS, HoleEstimator, HoleScorer, prepareHoles, SharedListScores, valueScorer, type HoleQuery, type HoleSet, type ValueScorer } from '../../../../../src/core/eval/holes';
import { Qrels } from '../../../../../src/core/formats/qrels';
import { Run } from '../../../../../src/core/formats/run';
import { mulberry32 } from '../../../../../src/core/random';
import { randomCase } from './bruteForce';

const scorer = (spec: string, scale: readonly number[], cutoff: number): { hs: HoleScorer; vs: ValueScorer } => {
  const hs = new HoleScorer(spec, scale);
  return { hs, vs: { scale: hs.scale, cutoff, score: (q, r, g) => hs.score(q, r, g) } };
};

/**
 * The mean and variance of b - a over the queries when each free hole independently takes grade 0 or a
 * positive grade with the given rates (rates(h): per positive grade), by enumerating every grading.
 */
function bruteMoments(set: HoleSet, hs: HoleScorer, rates: (q: HoleQuery, h: number) => number[], positive: readonly number[]): { mean: number; variance: number } {
  let mean = 0;
  let variance = 0;
  const n = set.queries.length;
  for (const q of set.queries) {
    const free: number[] = [];
    q.grades.forEach((g, h) => g < 0 && free.push(h));
    const grades = Int32Array.from(q.grades);
    const options = positive.length + 1;
    let m1 = 0;
    let m2 = 0;
    for (let k = 0; k < options ** free.length; k++) {
      let x = k;
      let p = 1;
      for (const h of free) {
        const o = x % options;
        x = Math.floor(x / options);
        const r = rates(q, h);
        const rel = r.reduce((s, v) => s + v, 0);
        grades[h] = o === 0 ? 0 : positive[o - 1];
        p *= o === 0 ? 1 - rel : r[o - 1];
      }
      const v = hs.score(q, 1, grades) - hs.score(q, 0, grades);
      m1 += p * v;
      m2 += p * v * v;
    }
    mean += m1 / n;
    variance += (m2 - m1 * m1) / (n * n);
  }
  return { mean, variance };
}

for (const grades of [[1], [0, 1, 2]]) {
  test(`per draw of the relevance model, the estimate's mean and variance equal brute force over every grading (P@5, additive; grades ${grades.join(',')})`, () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const set = prepareHoles(qrels, runs.slice(0, 2), { poolDepth: 4 });
      const { hs, vs } = scorer('P.5', set.scale, 5);
      const est = new HoleEstimator(set, [0, 1], { p: vs }, { seed });
      // Some holes judged: their grades are exact, the rest follow the model.
      set.queries.forEach((q, qi) => q.holes.forEach((_, h) => h % 3 === 0 && est.judge(qi, h, grades[(h + seed) % grades.length])));
      const draws = est.model.draws();
      const { mu, sd } = est.mixture('p');
      const positive = est.model.positive;
      for (const k of [0, 7, draws.draws - 1]) {
        const rates = (q: HoleQuery, h: number) => {
          const c = est.slotCells[est.offsets[set.queries.indexOf(q)] + h];
          return positive.map((_, g) => draws.rates[(k * CELLS + c) * draws.grades + g]);
        };
        const want = bruteMoments(set, hs, rates, positive);
        assert.ok(Math.abs(mu[k] - want.mean) < 1e-12, `seed ${seed} draw ${k}: mean ${mu[k]} vs brute force ${want.mean}`);
        assert.ok(Math.abs(sd[k] ** 2 - want.variance) < 1e-12, `seed ${seed} draw ${k}: variance ${sd[k] ** 2} vs brute force ${want.variance}`);
      }
    }
  });
}

test('every hole judged: the estimate is the value itself, its interval a point', () => {
  const { qrels, runs } = randomCase(3, [0, 1, 2]);
  const set = prepareHoles(qrels, runs.slice(0, 2), { poolDepth: 4 });
  const { hs, vs } = scorer('ndcg_cut.5', set.scale, 5);
  const est = new HoleEstimator(set, [0, 1], { n: vs });
  set.queries.forEach((q, qi) => q.holes.forEach((_, h) => est.judge(qi, h, h % 3)));
  let want = 0;
  for (const q of set.queries) want += (hs.score(q, 1, q.grades) - hs.score(q, 0, q.grades)) / set.queries.length;
  const e = est.estimate('n');
  assert.equal(e.holes, 0);
  assert.ok(Math.abs(e.estimate - want) < 1e-12 && Math.abs(e.lo - want) < 1e-9 && Math.abs(e.hi - want) < 1e-9, JSON.stringify(e));
});

/**
 * A synthetic split whose holes are relevant as the model supposes (a rate falling with the rank in each of
 * two runs that share much of their top 20): `truth` grades every hole.
 */
function synthetic(seed: number, queries = 60): { set: HoleSet; truth: Int32Array[] } {
  const next = mulberry32(seed);
  const u = () => next() / 4294967296;
  const judgements: { qid: string; docid: string; grade: number }[] = [];
  const rankings: [string, string[], number[]][][] = [[], []];
  const relevantAt = new Map<string, boolean>();
  for (let i = 0; i < queries; i++) {
    const qid = `q${i}`;
    const docs = Array.from({ length: 30 }, (_, d) => `d${d}`);
    // The documents' relevance falls with their place in a shared order; each run perturbs that order.
    docs.forEach((d, j) => relevantAt.set(`${qid}\t${d}`, u() < 0.6 / (1 + j / 2)));
    for (const r of [0, 1]) {
      const order = docs.map((d, j) => [j + 6 * u() + (r ? 2 * u() : 0), d] as const).sort((x, y) => x[0] - y[0]).map(([, d]) => d).slice(0, 20);
      rankings[r].push([qid, order, order.map((_, j) => 100 - j)]);
    }
    // 40 % of the documents are in the qrels; the rest are holes.
    let any = false;
    for (const d of docs) {
      if (u() < 0.4) {
        judgements.push({ qid, docid: d, grade: relevantAt.get(`${qid}\t${d}`) ? 1 : 0 });
        any = true;
      }
    }
    if (!any) judgements.push({ qid, docid: 'none', grade: 0 });
  }
  const runs = rankings.map((r, i) => Run.fromRankings(`r${i}`, r));
  const set = prepareHoles(Qrels.fromJudgements(judgements), runs, { poolDepth: 20 });
  const truth = set.queries.map((q) => Int32Array.from(q.holes, (d) => (relevantAt.get(`${q.qid}\t${d}`) ? 1 : 0)));
  return { set, truth };
}

test('calibration: the 95 % interval of b - a holds the value with every hole judged in most of 40 synthetic splits (a fifth of the holes judged at random)', () => {
  let covered = 0;
  const zs: number[] = [];
  const trials = 40;
  for (let seed = 1; seed <= trials; seed++) {
    const { set, truth } = synthetic(seed);
    const { hs, vs } = scorer('ndcg_cut.10', set.scale, 10);
    let trueDelta = 0;
    for (const [qi, q] of set.queries.entries()) trueDelta += (hs.score(q, 1, truth[qi]) - hs.score(q, 0, truth[qi])) / set.queries.length;
    const est = new HoleEstimator(set, [0, 1], { n: vs }, { seed });
    const pick = mulberry32(seed * 7919);
    set.queries.forEach((q, qi) => q.holes.forEach((_, h) => pick() % 5 === 0 && est.judge(qi, h, truth[qi][h])));
    const e = est.estimate('n');
    // The error in units of the estimate's standard deviation (the mixture's: the model's and the holes' own).
    const { mu, sd } = est.mixture('n');
    let m1 = 0;
    let m2 = 0;
    for (let k = 0; k < mu.length; k++) {
      m1 += mu[k] / mu.length;
      m2 += (mu[k] ** 2 + sd[k] ** 2) / mu.length;
    }
    zs.push((trueDelta - e.estimate) / Math.sqrt(m2 - m1 * m1));
    if (e.lo <= trueDelta && trueDelta <= e.hi) covered++;
    // The interval's ends are the 2.5 % and 97.5 % points of the estimate's distribution.
    assert.ok(Math.abs(est.cdf('n', e.lo) - 0.025) < 1e-6 && Math.abs(est.cdf('n', e.hi) - 0.975) < 1e-6, `seed ${seed}: cdf at the ends ${est.cdf('n', e.lo)}, ${est.cdf('n', e.hi)}`);
  }
  // Binomial(40, 0.95) is below 34 with chance 0.5 %.
  assert.ok(covered >= 34, `covered ${covered} of ${trials}`);
  // Not calibrated by being wide: the errors' root mean square is about one standard deviation (0.73 here:
  // the model's uncertainty is counted in full), and they are not biased to a side.
  const rms = Math.sqrt(zs.reduce((s, z) => s + z * z, 0) / trials);
  const mean = zs.reduce((s, z) => s + z, 0) / trials;
  assert.ok(rms > 0.5 && rms < 1.25, `root mean square error ${rms} standard deviations`);
  assert.ok(Math.abs(mean) < 0.4, `mean error ${mean} standard deviations`);
});

test('with no hole judged the interval stays inside what the measure can be: [0, 1] for a run, [-1, 1] for b - a', () => {
  const { set } = synthetic(5, 30);
  const { vs } = scorer('ndcg_cut.10', set.scale, 10);
  const pairs = new HoleEstimator(set, [0, 1], { n: vs });
  const runs = new HoleEstimator(set, [0], { n: vs });
  const pair = pairs.estimate('n');
  const run = runs.estimate('n');
  assert.ok(pair.lo >= -1 && pair.hi <= 1 && pair.lo < pair.hi, JSON.stringify(pair));
  assert.ok(run.lo >= 0 && run.hi <= 1 && run.lo < run.hi, JSON.stringify(run));
  // Not by the cut at the ends: every draw's mean is a value the measure can have (summed alone, the
  // effects of the prior's draws with rates near 1 went past 1), and its spread no more than such a value's.
  const inside = (e: HoleEstimator, lo: number, hi: number) => {
    const { mu, sd } = e.mixture('n');
    mu.forEach((x, k) => assert.ok(x >= lo - 1e-12 && x <= hi + 1e-12 && sd[k] <= (hi - lo) / 2, `draw ${k}: ${x} sd ${sd[k]}`));
  };
  inside(runs, 0, 1);
  inside(pairs, -1, 1);
});

/**
 * Each hole's effect as its lists rescored from scratch (the hole alone graded, the judged ones as they are):
 * what the estimator's memos (a list's value below its cutoff scored once per grade, and values shared between
 * the estimators of pairs with a run in common) must give to the bit.
 */
function assertEffectsRescored(est: HoleEstimator, set: HoleSet, lists: readonly number[], name: string, hs: HoleScorer, what: string): void {
  const level = 1;
  set.queries.forEach((q, qi) => {
    const grades = Int32Array.from(q.grades);
    const value = (): number => (lists.length === 1 ? hs.score(q, lists[0], grades) : hs.score(q, lists[1], grades) - hs.score(q, lists[0], grades));
    const base = value();
    q.holes.forEach((_, h) => {
      if (q.grades[h] >= 0) return;
      for (const g of est.model.positive) {
        const sg = hs.scale.includes(g) ? g : g >= level ? hs.scale[hs.scale.length - 1] : 0;
        grades[h] = sg;
        const want = sg > 0 ? value() - base : 0;
        grades[h] = -1;
        assert.ok(Object.is(est.effectOf(name, qi, h, g), want), `${what} ${name} query ${q.qid} hole ${h} grade ${g}: ${est.effectOf(name, qi, h, g)} vs rescored ${want}`);
      }
    });
  });
}

for (const grades of [[1], [0, 1, 2]]) {
  test(`each hole's effect equals its lists rescored, with the lists' values shared between pairs or not, before and after judgements (random cases, grades ${grades.join(',')})`, () => {
    // iprec_at_recall's and Rprec_mult's parameters are recall levels and multipliers, not ranks: no cutoff.
    const measures = ['ndcg_cut.5', 'P.5', 'recall.10', 'map', 'recip_rank', 'ndcg', 'iprec_at_recall.0.50', 'Rprec_mult.1.00', 'relative_P.5'];
    for (let seed = 1; seed <= 10; seed++) {
      const { qrels, runs } = randomCase(seed, grades);
      const memo = new SharedListScores();
      for (const [a, b] of [[0, 1], [0, 2], [1, 2], [2, 0]]) {
        const set = prepareHoles(qrels, runs, { poolDepth: 3 + (seed % 4) });
        const alone = prepareHoles(qrels, runs, { poolDepth: 3 + (seed % 4) });
        const hs = measures.map((m) => new HoleScorer(m, set.scale));
        const scorers = Object.fromEntries(measures.map((m, i) => [m, valueScorer(hs[i])]));
        const shared = new HoleEstimator(set, [a, b], scorers, { seed, shared: { memo, runs: [a, b] } });
        const own = new HoleEstimator(alone, [a, b], scorers, { seed });
        measures.forEach((m, i) => {
          assertEffectsRescored(shared, set, [a, b], m, hs[i], `seed ${seed} pair ${a},${b} shared`);
          assertEffectsRescored(own, alone, [a, b], m, hs[i], `seed ${seed} pair ${a},${b}`);
          assert.deepEqual(shared.mixture(m), own.mixture(m));
        });
        // Judged holes: their queries' values no longer come from the shared memo, nor go into it.
        set.queries.forEach((q, qi) => q.holes.forEach((_, h) => (h + seed) % 3 === 0 && shared.judge(qi, h, grades[(h + qi) % grades.length])));
        alone.queries.forEach((q, qi) => q.holes.forEach((_, h) => (h + seed) % 3 === 0 && own.judge(qi, h, grades[(h + qi) % grades.length])));
        measures.forEach((m, i) => {
          assertEffectsRescored(shared, set, [a, b], m, hs[i], `seed ${seed} pair ${a},${b} shared, judged`);
          assert.deepEqual(shared.mixture(m), own.mixture(m));
          assert.deepEqual(shared.estimate(m), own.estimate(m));
        });
      }
    }
  });
}
