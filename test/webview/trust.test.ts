// Trust under holes in headless Chromium: the results table shows each mean with its range and each
// comparison's verdict, the diff its Δ range, verdict and per-query ranges, the Holes panel an order choice
// that posts setPool, and the Holes panel and Judge sidebar the meter (open, then settled). Models come from
// the real SciFact session and from fixtures; hostile run names in the meter stay text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AnnotationState, HoleVerdict, JudgingMeter, ViewEvents } from '../../src/protocol/webview';
import { HOSTILE, openView, pwned, scifactFixture } from './harness';
import { SHARED } from '../unit/support/paths';
import { diffModel } from '../../src/core/split/diff';
import { holeRows } from '../../src/core/split/holes';
import { annotatedScores, impactQueue } from '../../src/core/split/judging';
import { pool as splitPool } from '../../src/core/split/pool';
import { queryDetail } from '../../src/core/split/queryDetail';
import { resultsModel } from '../../src/core/split/results';

const RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(SHARED, 'runs/scifact', f));
const fx = scifactFixture(RUNS);

const verdict = (o: Partial<HoleVerdict>): HoleVerdict => ({
  delta: 0.05, lo: -0.2, hi: 0.3, exact: true, holes: 40, verdict: 'open', direction: 0, openQueries: 12, openHoles: 37, significant: true, canLose: true, canGain: false, ...o,
});

test('results: each mean with its range (ends rounded outwards), each comparison settled or open', async () => {
  const m = resultsModel(fx.split, RUNS[0], { skipped: [], untrusted: false });
  const dense = m.rows.find((r) => r.key === RUNS[1])!;
  const v = await openView(fx.browser, 'results');
  await v.event('results', 'model', m);
  const cell = v.page.locator(`#results tr[data-run="${RUNS[1]}"] td[data-measure="ndcg_cut_10"]`);
  await cell.waitFor();
  const iv = dense.intervals![0]!;
  const lo = Math.floor(iv.lo * 100 + 1e-9) / 100;
  const hi = Math.ceil(iv.hi * 100 - 1e-9) / 100;
  assert.equal(await cell.textContent(), `0.6451*† [${lo.toFixed(2)}, ${hi.toFixed(2)}]`);
  assert.ok(lo <= 0.6451 && 0.6451 <= hi);
  assert.equal(await cell.locator('.range').getAttribute('title'), `Range over every grading of the ${iv.holes} holes left in the top-10 pool; judged only (trec_eval -J): ${iv.judgedOnly!.toFixed(4)}`);
  // Coverage columns have no range.
  assert.equal(await v.page.locator(`#results tr[data-run="${RUNS[1]}"] td[data-measure="judged_10"] .range`).count(), 0);
  assert.match((await cell.getAttribute('title'))!, /^nDCG@10 0\.6451 on the original qrels\nΔ = minilm-faiss\.knarfthekant − bm25okapi\.knarfthekant: .*\nunder the holes Δ \[.*\]: open over the top-10 pool: \d+ holes in \d+ queries can flip the sign, significance can be lost$/);
  // The significance table: Δ range and verdict per (run, measure).
  const row = v.page.locator('#significance tbody tr', { hasText: 'nDCG@10' });
  const verdictCell = row.locator('td.verdict-cell');
  assert.match((await verdictCell.textContent())!, /^open · \d+ holes$/);
  assert.match((await verdictCell.locator('.verdict').getAttribute('title'))!, /^open over the top-10 pool: \d+ holes in \d+ queries can flip the sign; significance can be lost$/);
  assert.match((await v.page.locator('#legend').textContent())!, /"ranges": each figure's range over every grading of the holes/);
  assert.deepEqual(await v.problems(), []);
});

test('results: with judgements the range goes with the annotated figure; a bound is marked', async () => {
  const m = resultsModel(fx.split, RUNS[0], { skipped: [], untrusted: false });
  const rows = m.rows.map((r) => ({ ...r, annotated: r.means.map((x) => x + 0.01), intervals: r.intervals!.map((i) => i && { ...i, exact: false }) }));
  const v = await openView(fx.browser, 'results');
  await v.event('results', 'model', { ...m, rows, judgements: 3 });
  const cell = v.page.locator(`#results tr[data-run="${RUNS[0]}"] td[data-measure="ndcg_cut_10"]`);
  await cell.waitFor();
  // The figure shown is the annotated one, the original beneath it, and the range (behind the toggle) is the annotated figure's.
  const r0 = rows.find((r) => r.key === RUNS[0])!;
  const mi = m.measures.findIndex((c) => c.key === 'ndcg_cut_10');
  assert.equal(await cell.locator('.num').textContent(), r0.annotated[mi].toFixed(4));
  assert.equal(await cell.locator('.orig').textContent(), r0.means[mi].toFixed(4));
  assert.match((await cell.locator('.cell-range').textContent())!, /^ \[0\.\d\d, [01]\.\d\d\]≈$/);
  assert.match((await cell.locator('.range.bound').getAttribute('title'))!, /^A bound of the range/);
});

test('diff: Δ range and verdict in the header, each mean\'s range, per-query ranges in the list and the detail', async () => {
  const m = diffModel(fx.split, RUNS[0], RUNS[1]);
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', m);
  const head = v.page.locator('#verdict');
  await head.waitFor();
  assert.match((await head.textContent())!, /^Δ \+0\.0854 on the original qrels; over every grading of the holes left \[−0\.\d\d, \+0\.\d\d\]: open over the top-10 pool: \d+ holes in \d+ queries can flip the sign \(significance can be lost\)\. Means over the holes: a \[0\.\d\d, \d\.\d\d\], b \[0\.\d\d, \d\.\d\d\]\.$/);
  // Sorting by divergence puts the query with the lowest RBO first; back to Δ, the model's order.
  const minRbo = m.queries[m.rbo!.indexOf(Math.min(...m.rbo!))];
  await v.page.locator('#sort').click();
  await v.page.locator('#sort vscode-option[value="divergence"]').click();
  await v.page.locator(`#queries tbody tr:first-child[data-query="${minRbo}"]`).waitFor();
  assert.match((await v.page.locator('#queries tbody tr').first().locator('td.rbo').textContent())!, /^0\.\d\d$/);
  assert.match((await v.page.locator('#rbo-mean').textContent())!, /^mean RBO 0\.\d{3}$/);
  await v.page.locator('#sort').click();
  await v.page.locator('#sort vscode-option[value="delta"]').click();
  await v.page.locator(`#queries tbody tr:first-child[data-query="${m.queries[0]}"]`).waitFor();
  const first = v.page.locator('#queries tbody tr').first();
  assert.match((await first.locator('td.range').textContent())!, /^\[[−+]?\d\.\d\d, [−+]?\d\.\d\d\]$/);
  await first.click();
  await v.answer('query', await queryDetail(fx.split, RUNS[0], RUNS[1], m.queries[0], 10));
  const qr = v.page.locator('#query-range');
  await qr.waitFor();
  assert.match((await qr.textContent())!, /over every grading of this query's holes \[/);
  assert.deepEqual(await v.problems(), []);
});

function holesModel(order: 'blind' | 'impact', meter: JudgingMeter | null): ViewEvents['holes']['model'] {
  const pool = splitPool(fx.split, RUNS, 10);
  return {
    dataset: 'scifact', split: 'test', depth: 10, rows: holeRows(fx.split), pooled: RUNS, poolSize: pool.length, remaining: pool.length,
    grades: fx.split.gradeScale(), order, meter,
    queue: pool.slice(0, 20).map((p) => ({ ...p, queryText: fx.split.queries.get(p.queryId)!.text, grade: null })),
  };
}

test('holes panel: the order choice posts setPool with the order; the meter shows the open comparison', async () => {
  const v = await openView(fx.browser, 'holes');
  await v.event('holes', 'model', holesModel('blind', null));
  await v.page.locator('#order').waitFor();
  assert.equal(await v.page.locator('#meter').count(), 0, 'blind order: no meter');
  await v.page.locator('#order').click();
  await v.page.locator('#order vscode-option[value="impact"]').click();
  const req = await v.answer('setPool', null);
  assert.deepEqual(req.params, { runs: RUNS, depth: 10, order: 'impact' });
  const live = impactQueue(fx.split, RUNS, 10)!;
  await v.event('holes', 'model', holesModel('impact', live.meter));
  const meter = v.page.locator('#meter');
  await meter.waitFor();
  assert.match((await meter.locator('strong').textContent())!, new RegExp(`^comparison open: ${live.meter.verdict.openHoles} holes in ${live.meter.verdict.openQueries} queries can still flip it$`));
  // The direction named (b − a, with the runs), and the qrels it is on.
  assert.match((await meter.locator('.muted').first().textContent())!, /^Δ nDCG@10 = minilm-faiss\.knarfthekant − bm25okapi\.knarfthekant: \[−0\.\d\d, \+0\.\d\d\] over the holes of the top-10 pool, on the original qrels$/);
  assert.deepEqual(await v.problems(), []);
});

const LABEL = { state: 'annotated', judgements: 23, version: 23 } as const;

test('judge sidebar: the meter goes from open to "settled after N judgements"; hostile run names stay text', async () => {
  const pool = splitPool(fx.split, RUNS, 10);
  const doc = (await fx.split.corpus.read(pool[0].docId))!;
  const state = (meter: JudgingMeter): AnnotationState => ({
    dataset: 'scifact', split: 'test', grades: [0, 1], index: 0, total: pool.length, judged: meter.judged, scores: annotatedScores(fx.split), message: null, order: 'impact', meter,
    item: { queryId: pool[0].queryId, queryText: fx.split.queries.get(pool[0].queryId)!.text, docId: pool[0].docId, title: doc.title, text: doc.text, grade: null },
  });
  const v = await openView(fx.browser, 'annotate');
  // The meter's verdict is b - a (as the Diff's): direction 1 says b is better.
  const a = { key: 'a', label: 'BM25' };
  const b = { key: 'b', label: HOSTILE };
  await v.event('annotate', 'state', state({ a, b, measure: 'nDCG@10', judged: 0, verdict: verdict({}), qrels: LABEL }));
  const meter = v.page.locator('#meter');
  await meter.waitFor();
  assert.equal(await meter.locator('strong').textContent(), 'comparison open: 37 holes in 12 queries can still flip it');
  // The order choice of the sidebar posts setOrder.
  await v.page.locator('#order').click();
  await v.page.locator('#order vscode-option[value="blind"]').click();
  const req = await v.answer('setOrder', null);
  assert.deepEqual(req.params, { order: 'blind' });
  await v.event('annotate', 'state', state({ a, b, measure: 'nDCG@10', judged: 23, verdict: verdict({ verdict: 'settled', direction: 1, lo: 0.01, openHoles: 0, openQueries: 0 }), qrels: LABEL }));
  await v.page.locator('#meter.settled').waitFor();
  assert.equal(await meter.locator('strong').textContent(), `settled after 23 judgements: ${HOSTILE} better under every grading of the top-10 pool`);
  assert.ok((await meter.textContent())!.includes(HOSTILE));
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
  // Nothing left to judge: the meter still shows.
  await v.event('annotate', 'state', { ...state({ a, b, measure: 'nDCG@10', judged: 23, verdict: verdict({ verdict: 'settled', direction: -1, hi: -0.01 }), qrels: LABEL }), item: null, message: 'The pool is empty.' });
  await v.page.locator('#message').waitFor();
  assert.equal(await meter.locator('strong').textContent(), 'settled after 23 judgements: BM25 better under every grading of the top-10 pool');
  assert.deepEqual(await v.problems(), []);
});
