// The run diff panel in headless Chromium on the real SciFact runs: the bar chart holds the sorted deltas,
// filters narrow it, clicking a bar asks for that query, the two lists show grades, holes and moves, a grade
// click posts a judgement, and hostile document text stays text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { DiffModel, QueryDetail } from '../../src/protocol/webview';
import { countWork, HOSTILE, openView, pwned, scifactFixture, until } from './harness';
import { SHARED } from '../unit/support/paths';
import { queryDetail } from '../../src/core/split/queryDetail';
import { diffModel } from '../../src/core/split/diff';

const A = join(SHARED, 'runs/scifact/bm25okapi.knarfthekant.trec');
const B = join(SHARED, 'runs/scifact/minilm-faiss.knarfthekant.trec');
const fx = scifactFixture([A, B]);
let model: DiffModel;

before(async () => {
  model = diffModel(await fx.ready, A, B);
});

const chartData = (page: Page) =>
  page.evaluate(() => {
    const c = (document.getElementById('deltas') as unknown as { irwChart: { data: { labels: string[]; datasets: { data: number[] }[] } } }).irwChart;
    return { labels: c.data.labels, values: c.data.datasets[0].data };
  });

test('chart holds every query sorted by delta; filters narrow it; a bar click loads that query', async () => {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', model);
  await v.page.locator('#status', { hasText: '300 of 300 queries shown' }).waitFor();
  const all = await chartData(v.page);
  assert.deepEqual(all.labels, model.queries);
  assert.deepEqual(all.values, model.deltas);
  // The list's first rows come with the chart, the rest in the frames after: every query, in chart order.
  await until(async () => (await v.page.locator('#queries tr').count()) === 300, () => 'the list to hold all 300 queries');
  assert.deepEqual(await v.page.locator('#queries tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-query'))), model.queries);
  const losses = model.deltas.filter((d) => d < -1e-9).length;
  await v.page.locator('#filters vscode-checkbox', { hasText: 'losses' }).click();
  await v.page.locator('#status', { hasText: `${losses} of 300 queries shown` }).waitFor();
  const lost = await chartData(v.page);
  assert.ok(lost.values.every((d) => d < 0));
  // Click the middle of the first bar shown (sorted best first: the smallest loss).
  const point = await v.page.evaluate(() => {
    const c = (document.getElementById('deltas') as unknown as { irwChart: { getDatasetMeta(i: number): { data: { x: number; y: number; base: number }[] } } }).irwChart;
    const bar = c.getDatasetMeta(0).data[0];
    const r = document.getElementById('deltas')!.getBoundingClientRect();
    return { x: r.left + bar.x, y: r.top + (bar.y + bar.base) / 2 };
  });
  await v.page.mouse.click(point.x, point.y);
  const req = await v.answer('query', await queryDetail(fx.split, A, B, lost.labels[0], 10));
  assert.deepEqual(req.params, { queryId: lost.labels[0], depth: 10 });
  await v.page.locator('#list-a .doc').first().waitFor();
  assert.equal(await v.page.locator('#list-a .doc').count(), 10);
  assert.equal(await v.page.locator('#query-text').textContent(), fx.split.queries.get(lost.labels[0])!.text);
  assert.deepEqual(await v.problems(), []);
});

test('query detail: grades, holes and moves; a grade click posts a judgement; more depth on demand', async () => {
  const { v, detail } = await openFirstDetail();
  const holes = detail.b.filter((d) => d.grade === null).length;
  assert.equal(await v.page.locator('#list-b .grade.hole').count(), holes);
  assert.equal(await v.page.locator('#list-b [data-move="new"]').count(), detail.b.filter((d) => d.move === 'new').length);
  const hole = detail.b.find((d) => d.grade === null)!;
  const row = v.page.locator(`#list-b .doc[data-doc="${hole.docId}"]`);
  await row.locator('.grade.hole').click();
  await row.locator('[data-pick="1"]').click();
  const judged = await v.answer('judge', null);
  assert.deepEqual(judged.params, { queryId: detail.queryId, docId: hole.docId, grade: 1 });
  await v.page.locator('#status', { hasText: `judged ${hole.docId}: 1` }).waitFor();
  await v.page.locator('#more').click();
  const more = await v.answer('query', await queryDetail(fx.split, A, B, detail.queryId, 20));
  assert.equal(more.params!.depth, 20);
  await until(async () => (await v.page.locator('#list-a .doc').count()) === 20, () => 'depth 20');
  // Keyboard: j moves to the next query.
  await v.page.keyboard.press('j');
  const next = await v.answer('query', await queryDetail(fx.split, A, B, model.queries[1], 10));
  assert.equal(next.params!.queryId, model.queries[1]);
});

test('hostile titles, snippets and query text render as text', async () => {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', { ...model, a: { ...model.a, label: HOSTILE } });
  await v.page.locator('#queries tr').first().click();
  const d = await queryDetail(fx.split, A, B, model.queries[0], 10);
  const hostile: QueryDetail = { ...d, text: HOSTILE, a: d.a.map((x) => ({ ...x, title: HOSTILE, snippet: HOSTILE, docId: HOSTILE + x.docId })) };
  await v.answer('query', hostile);
  await v.page.locator('#list-a .doc').first().waitFor();
  assert.equal(await v.page.locator('#query-text').textContent(), HOSTILE);
  assert.ok((await v.page.locator('#list-a').textContent())!.includes(HOSTILE));
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
});

test('the direction is named with the runs, and which qrels the figures are on (issue 24)', async () => {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', model);
  await v.page.locator('#verdict').waitFor();
  assert.equal(await v.page.locator('h1').textContent(), 'Run diff: Δ nDCG@10 = minilm-faiss.knarfthekant − bm25okapi.knarfthekant');
  assert.match((await v.page.locator('#means').textContent())!, /nDCG@10 on the original qrels: a bm25okapi\.knarfthekant 0\.\d{4}, b minilm-faiss\.knarfthekant 0\.\d{4}\. Bars: b − a per query/);
  assert.match((await v.page.locator('#verdict').textContent())!, /^Δ \+0\.\d{4} on the original qrels; over every grading of the holes left \[−0\.\d\d, \+0\.\d\d\]: (settled|open over the top-10 pool: \d+ holes in \d+ queries can flip the sign)/);
  const judged = { ...model, judgements: 3, qrels: { state: 'annotated' as const, judgements: 3, version: 3 }, meanA: 0.5, originalA: 0.4 };
  await v.event('diff', 'model', judged);
  await v.page.locator('#means', { hasText: 'on the qrels with your 3 judgements: a' }).waitFor();
  assert.match((await v.page.locator('#means').textContent())!, /; on the original qrels: a 0\.4000, b 0\.\d{4}\./);
});

/**
 * The Diff at `width` (760 high) with its first query's detail shown: where the list and the detail sit, and by
 * how much the page and the list are wider than their boxes (0 or less: they fit).
 */
async function diffWithDetail(width: number) {
  const v = await openView(fx.browser, 'diff', { viewport: { width, height: 760 } });
  await v.event('diff', 'model', model);
  const first = model.queries[0];
  await v.page.locator(`#queries tr[data-query="${first}"]`).click();
  await v.answer('query', await queryDetail(fx.split, A, B, first, 10));
  await v.page.locator('#list-b .doc').first().waitFor();
  const list = (await v.page.locator('#list').boundingBox())!;
  const detail = (await v.page.locator('#detail').boundingBox())!;
  const fit = await v.page.evaluate(() => [document.documentElement.scrollWidth - window.innerWidth, ...[...document.querySelectorAll('#queries')].map((t) => t.scrollWidth - t.parentElement!.clientWidth)]);
  return { v, first, list, detail, fit };
}

test('a Diff of 640-800 pixels keeps the detail beside a list whose figures fit (at 2/5 of the page they did not)', async () => {
  const { list, detail, fit } = await diffWithDetail(640);
  assert.ok(detail.x >= list.x + list.width - 1 && detail.y < list.y + list.height, `list ${JSON.stringify(list)}, detail ${JSON.stringify(detail)}`);
  // Wider than its pane, the list would hide its last columns (Δ, range) behind a horizontal scroll.
  assert.deepEqual(fit.map((x) => Math.max(0, x)), [0, 0], 'nothing wider than its box');
});

test('a Diff a third of a 1280-pixel window wide puts the detail under the list, and every figure of the list fits', async () => {
  const { v, first, list, detail, fit } = await diffWithDetail(320);
  assert.ok(detail.y >= list.y + list.height - 1, `list ${JSON.stringify(list)}, detail ${JSON.stringify(detail)}`);
  assert.deepEqual(fit.map((x) => Math.max(0, x)), [0, 0], 'nothing wider than its box');
  // The Δ of a row is whole, not cut at the pane's edge.
  const cell = v.page.locator(`#queries tr[data-query="${first}"] td:nth-child(3)`);
  assert.equal(await cell.textContent(), signed(model.deltas[0]));
  assert.ok(await cell.evaluate((td) => td.scrollWidth <= td.clientWidth), 'the Δ fits its cell');
  const ranges = await v.page.locator('#queries td.range').evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth).map((td) => td.textContent));
  assert.deepEqual(ranges, [], 'every range fits its cell');
});

test('at 1280x800 beside the sidebar the detail is beside the list; a judgement updates both in place', async () => {
  const { v, first, list, detail, fit } = await diffWithDetail(920);
  assert.ok(detail.x >= list.x + list.width - 1 && detail.y < list.y + list.height && detail.y + 40 < 760, `list ${JSON.stringify(list)}, detail ${JSON.stringify(detail)}`);
  assert.deepEqual(fit.map((x) => Math.max(0, x)), [0, 0], 'nothing wider than its box');
  // Scroll the list, keep a row: a new model (a judgement elsewhere) keeps both.
  await v.page.locator('#list').evaluate((e) => {
    e.scrollTop = 400;
    (window as unknown as { __row: Element }).__row = document.querySelector('#queries tr:nth-child(20)')!;
  });
  const moved = { ...model, deltas: model.deltas.map((d, i) => (i === 19 ? d - 1e-3 : d)) };
  await v.event('diff', 'model', moved);
  const detailAgain = await v.answer('query', await queryDetail(fx.split, A, B, first, 10));
  assert.equal(detailAgain.params!.queryId, first, 'the selected query is asked again');
  await until(async () => (await v.page.locator('#queries tr:nth-child(20) td:nth-child(3)').textContent()) === signed(moved.deltas[19]), () => 'the moved delta');
  const kept = await v.page.evaluate(() => ({ top: document.getElementById('list')!.scrollTop, same: (window as unknown as { __row: Element }).__row === document.querySelector('#queries tr:nth-child(20)') }));
  assert.deepEqual(kept, { top: 400, same: true });
  assert.equal(await v.page.locator('#list-b .doc').count(), 10, 'the detail stays');
});

const signed = (d: number) => (Math.abs(d) < 5e-5 ? Math.abs(d).toFixed(4) : `${d > 0 ? '+' : '\u2212'}${Math.abs(d).toFixed(4)}`);

test('after a reload the list\'s scroll and the page\'s come back once each is long enough, and are saved as restored', async () => {
  // Short enough that the page scrolls; the ranges and the estimate arrive in a later model, lengthening the header.
  const viewport = { width: 920, height: 500 };
  const pending: DiffModel = { ...model, range: undefined, perQuery: undefined, intervalA: undefined, intervalB: undefined, estimate: undefined };
  const full = await openView(fx.browser, 'diff', { viewport });
  await full.event('diff', 'model', model);
  await until(async () => (await full.page.locator('#queries tr').count()) === 300, () => 'every row');
  const bottom = await full.page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  // Deep in the list: past the rows that come with the chart (the rest come in the frames after).
  const listBottom = await full.page.locator('#list').evaluate((e) => e.scrollHeight - e.clientHeight);
  await full.page.close();
  assert.ok(bottom > 20 && listBottom > 2000, `page ${bottom}, list ${listBottom}`);

  const v = await openView(fx.browser, 'diff', { viewport, state: { sortBy: 'delta', listScroll: listBottom, scroll: bottom } });
  await v.event('diff', 'model', pending);
  await v.page.locator('#queries tr').first().waitFor();
  const short = await v.page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  assert.ok(short < bottom, `the page without the ranges is shorter (${short} < ${bottom})`);
  await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await v.event('diff', 'model', model);
  await until(async () => Math.abs((await v.page.evaluate(() => window.scrollY)) - bottom) < 2, () => `the page's scroll restored to ${bottom}`);
  await until(async () => Math.abs((await v.page.locator('#list').evaluate((e) => e.scrollTop)) - listBottom) < 2, () => `the list's scroll restored to ${listBottom}`);
  // Saved as restored, not as clamped on the way; then as the person scrolls.
  const state = () => v.page.evaluate(() => (window as unknown as { __state: { listScroll: number; scroll: number } }).__state);
  await v.page.locator('#list').hover();
  await v.page.mouse.wheel(0, -300);
  await until(async () => (await state()).listScroll < listBottom - 100, () => 'the scrolled list saved');
  assert.equal((await state()).scroll, bottom);
  assert.deepEqual(await v.problems(), []);
});

/** A Diff page with the model, its first query clicked and that query's detail (depth 10) drawn in both lists. */
async function openFirstDetail() {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', model);
  await v.page.locator('#queries tr').first().click();
  const detail = await queryDetail(fx.split, A, B, model.queries[0], 10);
  await v.answer('query', detail);
  await v.page.locator('#list-a .doc').first().waitFor();
  await v.page.locator('#list-b .doc').first().waitFor();
  return { v, detail };
}

/** The model with its first query moved to the end of the list (as a judgement that drops its Δ below every other). */
function firstToEnd(m: DiffModel): DiffModel {
  const move = <T>(xs: T[]) => [...xs.slice(1), xs[0]];
  return { ...m, queries: move(m.queries), deltas: move(m.deltas.map((d, i) => (i === 0 ? -2 : d))), holes: move(m.holes), texts: move(m.texts), ...(m.rbo ? { rbo: move(m.rbo) } : {}), ...(m.perQuery ? { perQuery: { lo: move(m.perQuery.lo), hi: move(m.perQuery.hi) } } : {}) };
}

test('a judgement builds only the rows it changed, moves one row, and redraws the chart only when a bar changed (issue 24)', async () => {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', model);
  await until(async () => (await v.page.locator('#queries tr').count()) === 300, () => 'the list to hold all 300 queries');
  const work = await countWork(v.page, ['deltas']);
  await v.page.evaluate(() => {
    const w = window as unknown as { __rows: Element[]; __added: number };
    w.__rows = [...document.querySelectorAll('#queries tr')];
    w.__added = 0;
    new MutationObserver((ms) => ms.forEach((m) => (w.__added += m.addedNodes.length))).observe(document.querySelector('#queries tbody')!, { childList: true });
  });
  // A judgement that moves no bar (a hole judged non-relevant changes the means' holes, not a Δ): no redraw, no row.
  const same = { ...model, meanA: model.meanA + 1e-4 };
  await v.event('diff', 'model', same);
  await v.page.locator('#means', { hasText: (same.meanA).toFixed(4) }).waitFor();
  const after = await work();
  assert.equal(after.draws.deltas, 0, 'the chart not redrawn');
  assert.ok(after.created <= 20, `only the header built again, no row: ${after.created} elements`);
  // One whose query drops to the end: that row is built again and placed there; the 299 others keep their nodes and places.
  const moved = firstToEnd(same);
  await v.event('diff', 'model', moved);
  await until(async () => (await v.page.locator('#queries tr').last().getAttribute('data-query')) === moved.queries[299], () => 'the query at the end');
  const kept = await v.page.evaluate(() => {
    const w = window as unknown as { __rows: Element[]; __added: number };
    const rows = [...document.querySelectorAll('#queries tr')];
    return { same: rows.slice(0, 299).every((r, i) => r === w.__rows[i + 1]), added: w.__added };
  });
  assert.deepEqual(kept, { same: true, added: 1 });
  const { created, draws } = await work();
  // Both updates: the header twice, the filters (the counts of wins and losses changed) and one row; not 300 rows.
  assert.ok(created <= 60, `elements built: ${created}`);
  assert.deepEqual(draws, { deltas: 1 });
  assert.deepEqual(await v.page.locator('#queries tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-query'))), moved.queries);
});

test('the query detail updated in place: a document that moves down its list moves alone, the rows between keep their places', async () => {
  const { v, detail } = await openFirstDetail();
  await v.page.evaluate(() => {
    const w = window as unknown as { __docs: Element[]; __added: number };
    w.__docs = [...document.querySelectorAll('#list-a .doc')];
    w.__added = 0;
    new MutationObserver((ms) => ms.forEach((m) => (w.__added += m.addedNodes.length))).observe(document.querySelector('#list-a')!, { childList: true });
  });
  // The same query again at depth 20 (the detail stays and is brought up to date in place), its first document
  // of run a now after the tenth.
  await v.page.locator('#more').click();
  const deeper = await queryDetail(fx.split, A, B, detail.queryId, 20);
  const a = [...deeper.a.slice(1, 10), deeper.a[0], ...deeper.a.slice(10)];
  await v.answer('query', { ...deeper, a });
  await until(async () => (await v.page.locator('#list-a .doc').count()) === 20, () => 'depth 20');
  const kept = await v.page.evaluate(() => {
    const w = window as unknown as { __docs: Element[]; __added: number };
    const docs = [...document.querySelectorAll('#list-a .doc')];
    return { between: docs.slice(0, 9).every((d, i) => d === w.__docs[i + 1]), moved: docs[9] === w.__docs[0], added: w.__added };
  });
  // One row moved and ten new ones: not the nine between moved up one by one as well.
  assert.deepEqual(kept, { between: true, moved: true, added: 11 });
  assert.deepEqual(await v.page.locator('#list-a .doc').evaluateAll((ds) => ds.map((d) => d.getAttribute('data-doc'))), a.map((d) => d.docId));
});
