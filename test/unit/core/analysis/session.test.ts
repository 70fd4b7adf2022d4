// The analysis views' model on the real SciFact data and runs in /work/shared: means match trec_eval's
// reference figures, significance matches the tests applied to the per-query values, judgements move the
// annotated figures only, the diff and pool are consistent, exports carry the table.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countWords, snippet } from '../../../../src/core/analysis/text';
import { exportResults } from '../../../../src/core/analysis/exportTable';
import { addRunFiles, loadSession } from '../../../helpers/splitSession';
import { boxSummary, topDocs, type AnalysisSession } from '../../../../src/core/analysis/session';
import { RESULT_MEASURES, scoreRun } from '../../../../src/core/analysis/scores';
import { evaluate } from '../../../../src/core/eval';
import { holmAdjust, pairedTTest, randomizationTest } from '../../../../src/core/eval/stats';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import type { ResultsModel } from '../../../../src/protocol/webview';
import { needsShared, SHARED } from '../../support/paths';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
const DENSE = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const TFIDF = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');
const col = (key: string) => RESULT_MEASURES.findIndex((m) => m.key === key);

describe('analysis session on SciFact', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  let session: AnalysisSession;
  let model: ResultsModel;
  before(async () => {
    session = await loadSession({ datasetDir: SCIFACT, split: 'test' });
    const skipped = await addRunFiles(session, [BM25, DENSE, TFIDF, join(SCIFACT, 'queries.jsonl')]);
    assert.equal(skipped.length, 1, 'queries.jsonl is no run');
    assert.match(skipped[0].reason, /queries\.jsonl/);
    model = session.results(BM25, { skipped, untrusted: false });
  });

  test('means are trec_eval -c figures (shared/runs/scifact/README.md)', () => {
    assert.equal(model.numQueries, 300);
    const row = (f: string) => model.rows.find((r) => r.key === f)!;
    const at = (f: string, key: string) => +row(f).means[col(key)].toFixed(4);
    assert.equal(at(BM25, 'ndcg_cut_10'), 0.5597);
    assert.equal(at(DENSE, 'ndcg_cut_10'), 0.6451);
    assert.equal(at(DENSE, 'recall_100'), 0.925);
    assert.equal(at(TFIDF, 'map'), 0.3071);
    assert.equal(at(BM25, 'P_10'), 0.0763);
    // MRR@10 <= MRR (trec_eval's recip_rank over all 100): only ranks past 10 are lost.
    assert.ok(row(BM25).means[col('recip_rank_10')] <= 0.529 + 1e-4);
    // ... and exactly trec_eval -c -M 10 -m recip_rank.
    for (const f of [BM25, DENSE, TFIDF]) {
      const ref = evaluate(readQrels(join(SCIFACT, 'qrels', 'test.tsv')), readRun(f), { measures: ['recip_rank'], complete: true, maxRetrieved: 10 });
      assert.equal(row(f).means[col('recip_rank_10')], ref.mean.get('recip_rank'));
    }
    assert.equal(row(BM25).annotated, null);
    assert.ok(row(BM25).lengths.median > 50 && row(BM25).lengths.queries === 300, JSON.stringify(row(BM25).lengths));
  });

  test('coverage: the shared TF-IDF run answers 153 of the 300 test queries; missing ones count as 0', () => {
    const coverage = (f: string) => model.rows.find((r) => r.key === f)!.coverage;
    assert.deepEqual(coverage(BM25), { answered: 300, total: 300 });
    assert.deepEqual(coverage(TFIDF), { answered: 153, total: 300 });
    assert.equal(model.missingQueries, 'zero');
  });

  test('significance can be computed in steps: pending until the steps ran, then the same as at once', async () => {
    const s = await loadSession({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(s, [BM25, DENSE, TFIDF]);
    const pending = s.results(DENSE, { skipped: [], untrusted: false }, { pending: true });
    assert.equal(pending.significancePending, true);
    assert.ok(pending.rows.every((r) => r.vsBaseline === null));
    let steps = 0;
    for (const _ of s.significanceSteps(DENSE)) steps++;
    assert.equal(steps, 2 * 5 * 10, 'ten steps (of 1,000 randomization trials) per compared run and tested measure');
    const done = s.results(DENSE, { skipped: [], untrusted: false }, { pending: true });
    assert.equal(done.significancePending, false);
    const fresh = await loadSession({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(fresh, [BM25, DENSE, TFIDF]);
    assert.deepEqual(done.rows.map((r) => r.vsBaseline), fresh.results(DENSE, { skipped: [], untrusted: false }).rows.map((r) => r.vsBaseline));
    assert.equal([...s.significanceSteps(DENSE)].length, 0, 'known: nothing to do');
  });

  test('significance against the baseline is the tests on the per-query values, Holm over the two compared runs', () => {
    const ni = col('ndcg_cut_10');
    const base = session.scores(BM25, 'original').columns[ni];
    const p = [DENSE, TFIDF].map((k) => pairedTTest(session.scores(k, 'original').columns[ni], base).p);
    const dense = model.rows.find((r) => r.key === DENSE)!.vsBaseline![ni]!;
    assert.equal(dense.tP, p[0]);
    assert.equal(dense.tPHolm, holmAdjust(p)[0]);
    assert.equal(dense.randP, randomizationTest(session.scores(DENSE, 'original').columns[ni], base, { trials: 10_000, seed: 1 }));
    assert.ok(dense.tPHolm < 0.05 && dense.delta > 0.08, 'MiniLM beats rank_bm25 on SciFact');
    assert.equal(dense.wins + dense.ties + dense.losses, 300);
    assert.equal(model.rows.find((r) => r.key === BM25)!.vsBaseline, null);
    assert.equal(model.rows.find((r) => r.key === DENSE)!.vsBaseline![col('hole_10')], null, 'coverage is not tested');
  });

  test('a judgement of a hole changes the annotated figures, never the original ones', async () => {
    const s = await loadSession({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(s, [BM25, DENSE]);
    const before = s.results(BM25, { skipped: [], untrusted: false });
    const pool = s.pool([BM25, DENSE], 10);
    assert.ok(pool.length > 1000, `pool ${pool.length}`);
    assert.equal(new Set(pool.map((p) => `${p.queryId}\t${p.docId}`)).size, pool.length, 'deduplicated');
    const hole = pool.find((p) => topDocs(s.run(DENSE), p.queryId, 1)[0]?.docId === p.docId)!;
    s.judge(hole.queryId, hole.docId, 1);
    const after = s.results(BM25, { skipped: [], untrusted: false });
    const dense = (m: ResultsModel) => m.rows.find((r) => r.key === DENSE)!;
    assert.deepEqual(dense(after).means, dense(before).means);
    assert.ok(dense(after).annotated![col('ndcg_cut_10')] > dense(before).means[col('ndcg_cut_10')]);
    assert.ok(dense(after).annotated![col('judged_10')] > dense(before).means[col('judged_10')]);
    assert.equal(s.pool([BM25, DENSE], 10).length, pool.length - 1);
    assert.equal(s.pool([BM25, DENSE], 10, new Set([`${hole.queryId}\t${hole.docId}`])).length, pool.length);
    // A negative grade restores "unjudged" (trec_eval: pooled but not judged): the figures come back.
    const counted = s.judgementCount;
    s.judge(hole.queryId, hole.docId, -1);
    assert.equal(s.grade(hole.queryId, hole.docId), null);
    assert.equal(s.judgementCount, counted - 1, 'a pair undone back to unjudged is not one of your judgements');
    assert.deepEqual(dense(s.results(BM25, { skipped: [], untrusted: false })).annotated, dense(before).means);
    // The file as now on disk replaces the held judgements; the same judgements again change nothing.
    assert.equal(s.replaceJudgements([{ ...hole, grade: -1 }]), false);
    assert.equal(s.replaceJudgements([{ ...hole, grade: 1 }]), true);
    assert.equal(s.grade(hole.queryId, hole.docId), 1);
    assert.equal(s.replaceJudgements([]), true);
    assert.equal(s.judgementCount, 0);
    // Pool order does not depend on the order of the runs (nor on their ranks).
    assert.deepEqual(s.pool([DENSE, BM25], 10), s.pool([BM25, DENSE], 10));
    const rows = s.holeRows();
    assert.ok(rows.every((r) => r.holeQuery >= r.holeBeir), 'unjudged-for-the-query includes judged-for-no-query');
    // rank_bm25 returns 100 documents for every test query: unj.10 is exactly 1 - judged.10 there.
    const bm25 = rows.find((r) => r.key === BM25)!;
    assert.ok(Math.abs(bm25.holeQuery - (1 - before.rows.find((r) => r.key === BM25)!.means[col('judged_10')])) < 1e-12);
  });

  test('a judgement re-scores in place exactly what a full evaluation on the merged qrels gives', async () => {
    const s = await loadSession({ datasetDir: SCIFACT, split: 'test', measures: ['ndcg_cut.20', 'gm_map', 'num_rel', 'num_ret'] });
    await addRunFiles(s, [BM25, DENSE, TFIDF]);
    const pool = s.pool([BM25, DENSE, TFIDF], 10);
    // Holes judged relevant and non-relevant, a hole that is top-ranked for several queries (hole.10 of other
    // queries moves), a judgement undone to unjudged, and one overriding an original grade.
    const shared = pool.find((p) => [BM25, DENSE].every((k) => topDocs(s.run(k), p.queryId, 10).some((d) => d.docId === p.docId)))!;
    const original = s.qrels.queryIds().map((q) => ({ queryId: q, docId: s.qrels.judgements(q)!.docs[0] }))[3];
    const steps: [string, string, number][] = [
      [pool[0].queryId, pool[0].docId, 2],
      [pool[1].queryId, pool[1].docId, 0],
      [shared.queryId, shared.docId, 1],
      [pool[0].queryId, pool[0].docId, -1],
      [original.queryId, original.docId, 0],
      [shared.queryId, shared.docId, -1],
    ];
    s.userPool([BM25, DENSE, TFIDF], 10); // kept between judgements from here on
    s.diff(BM25, DENSE, { pending: true });
    for (const [q, d, g] of steps) {
      s.judge(q, d, g);
      const recomputed = s.pool([BM25, DENSE, TFIDF], 10, s.userJudged());
      assert.deepEqual(s.userPool([BM25, DENSE, TFIDF], 10), recomputed, 'the kept pool is the pool recomputed');
      const head = s.userPoolHead([BM25, DENSE, TFIDF], 10, 25);
      assert.deepEqual(head, { items: recomputed.slice(0, 25), size: recomputed.length, unjudged: recomputed.filter((p) => s.grade(p.queryId, p.docId) === null).length });
      const diff = s.diff(BM25, DENSE, { pending: true });
      const hole = (k: string, q: string) => topDocs(s.run(k), q, 10).some((x) => s.grade(q, x.docId) === null);
      assert.deepEqual(diff.holes, diff.queries.map((q) => (hole(BM25, q) || hole(DENSE, q) ? 1 : 0)), 'the kept hole marks are the marks recomputed');
      // The diff's order (sorted from the last one) is the order of the deltas recomputed.
      const [sa, sb] = [s.scores(BM25, 'effective'), s.scores(DENSE, 'effective')];
      const expected = sa.queries
        .filter((qid) => sb.queries.includes(qid))
        .map((qid) => ({ qid, delta: sb.columns[0][sb.queries.indexOf(qid)] - sa.columns[0][sa.queries.indexOf(qid)] }))
        .sort((x, y) => y.delta - x.delta || (x.qid < y.qid ? -1 : 1));
      assert.deepEqual([diff.queries, diff.deltas], [expected.map((e) => e.qid), expected.map((e) => e.delta)], 'the diff follows the judgement');
      for (const k of [BM25, DENSE, TFIDF]) {
        const inPlace = s.scores(k, 'effective');
        const full = scoreRun(s.qrels, s.run(k), { complete: true, relevanceLevel: 1, measures: s.measures });
        assert.deepEqual(inPlace.names, full.names);
        assert.deepEqual(inPlace.queries, full.queries);
        inPlace.columns.forEach((c, i) => assert.deepEqual([...c], [...full.columns[i]], `${k} ${inPlace.names[i]} after ${q} ${d} ${g}`));
        assert.deepEqual(inPlace.means, full.means);
      }
    }
  });

  test('diff: deltas sorted, consistent with the per-query scores; query detail has grades, holes and moves', async () => {
    const d = session.diff(BM25, DENSE);
    assert.equal(d.queries.length, 300);
    for (let i = 1; i < d.deltas.length; i++) assert.ok(d.deltas[i - 1] >= d.deltas[i]);
    assert.ok(Math.abs(d.meanB - d.meanA - d.deltas.reduce((s, x) => s + x, 0) / 300) < 1e-12);
    const qid = d.queries[0];
    const detail = await session.queryDetail(BM25, DENSE, qid, 10);
    assert.equal(detail.a.length, 10);
    assert.ok(detail.text.length > 0);
    assert.ok(Math.abs(detail.scoreB - detail.scoreA - d.deltas[0]) < 1e-12);
    assert.ok(detail.b.some((x) => x.grade !== null && x.grade > 0), 'the best gain has a relevant document in b');
    for (const x of detail.b) {
      if (x.move === 'new') assert.ok(!detail.a.some((y) => y.docId === x.docId));
      if (x.move === 'up') assert.ok(x.otherRank! > x.rank);
    }
    for (const x of detail.a) if (x.move === 'dropped') assert.ok(detail.droppedFromA.includes(x.docId));
    assert.equal(detail.grades.join(','), '0,1', 'SciFact is binary');
    assert.ok(detail.b.every((x) => x.title.length > 0 && x.snippet.length <= 241));
    assert.equal((await session.queryDetail(BM25, DENSE, qid, 50)).a.length, 50, 'more depth on demand');
  });

  test('exports: Markdown, CSV and LaTeX carry every run and measure', () => {
    const md = exportResults(model, 'markdown');
    assert.match(md, /\| Run \| Queries \| nDCG@10 \| R@100 \| MAP \| MRR@10 \| P@10 \| Judged@10 \| Hole@10 \|/);
    assert.match(md, /\| vsm-tfidf\.titles_fulltext\.omar-khattab \| 153\/300 \| 0\.3348/);
    assert.match(md, /counts as 0 in the means and tests \(trec_eval -c\): vsm-tfidf\.titles_fulltext\.omar-khattab answers 153 of 300\./);
    assert.match(md, /bm25okapi\.knarfthekant \(baseline\) \| 300\/300 \| 0\.5597/);
    assert.match(md, /minilm-faiss\.knarfthekant \| 300\/300 \| 0\.6451\*†/);
    const csv = exportResults(model, 'csv').trim().split('\n');
    assert.equal(csv.length, 4);
    assert.equal(csv[0].split(',').length, 3 + 7 + 5 * 8 + 2);
    assert.ok(csv[0].endsWith(',queries_answered,queries_total'));
    assert.ok(csv.slice(1).every((l) => l.split(',').length === csv[0].split(',').length));
    assert.ok(csv.some((l) => l.startsWith('vsm-tfidf') && l.endsWith(',153,300')));
    const tex = exportResults(model, 'latex');
    assert.match(tex, /\\begin\{tabular\}\{lrrrrrrr\}/);
    assert.match(tex, /bm25okapi\.knarfthekant \(baseline\) & 0\.5597/);
    assert.match(tex, /0\.6451\$\^\{\*\\dagger\}\$/);
  });
});

test('exports escape hostile run names', () => {
  const base: ResultsModel = {
    dataset: 'd', split: 't', numQueries: 1, measures: [RESULT_MEASURES[0]], baseline: 'x', alpha: 0.05, trials: 1, seed: 1, significancePending: false,
    judgements: 0, skipped: [], untrusted: false, missingQueries: 'zero',
    rows: [{ key: 'x', label: 'a|b_c%"d,e', means: [0.5], annotated: null, vsBaseline: null, lengths: boxSummary([]), coverage: { answered: 1, total: 1 } }],
  };
  assert.match(exportResults(base, 'markdown'), /a\\\|b_c%"d,e \(baseline\)/);
  assert.match(exportResults(base, 'csv'), /^"a\|b_c%""d,e",x,1,0.5,{8},1,1$/m);
  assert.match(exportResults(base, 'latex'), /a\|b\\_c\\%"d,e \(baseline\)/);
});

test('documents come from the corpus at the offsets the index holds, with their length in words', { skip: needsShared('datasets/scifact') }, async () => {
  const s = await loadSession({ datasetDir: SCIFACT, split: 'test' });
  const lines = new Map(
    readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { _id: string; title: string; text: string })
      .map((d) => [d._id, d]),
  );
  for (const id of ['4983', '31715818', '14717500']) {
    const d = lines.get(id)!;
    assert.deepEqual(await s.corpus.read(id), { id, title: d.title, text: d.text });
    assert.equal(s.corpus.words(id), countWords(d.title) + countWords(d.text));
  }
  assert.equal(s.corpus.words('no such document'), -1);
  assert.equal(await s.corpus.read('no such document'), null);
});

test('word counts, snippets and box summaries', () => {
  assert.equal(countWords('  a\tb\nc  d '), 4);
  assert.equal(countWords(''), 0);
  assert.equal(snippet('short'), 'short');
  assert.equal(snippet('word '.repeat(100), 20), 'word word word word…');
  assert.deepEqual(boxSummary([4, 1, 3, 2]), { min: 1, q1: 1.75, median: 2.5, q3: 3.25, max: 4, mean: 2.5, queries: 4 });
});

describe('run labels', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  test('two run files with the same name in different folders get their folder in the label', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-labels-'));
    for (const sub of ['a', 'b']) {
      mkdirSync(join(dir, sub));
      copyFileSync(BM25, join(dir, sub, 'bm25.trec'));
    }
    const s = await loadSession({ datasetDir: SCIFACT, split: 'test' });
    assert.deepEqual(await addRunFiles(s, [join(dir, 'a', 'bm25.trec'), join(dir, 'b', 'bm25.trec')]), []);
    // The one naming rule (runLabels, as the tree): the stem, plus as many folders as it takes to tell twins apart.
    assert.deepEqual(s.runRefs().map((r) => r.label), ['a/bm25', 'b/bm25']);
  });
});
