// The results panel in headless Chromium: the model from the real SciFact session renders as a table with
// significance markers, the baseline and export controls post typed requests, hostile run names stay text,
// and the page raises no CSP violation (the UI toolkit gets its nonce).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { splitWithRuns } from '../helpers/splitState';
import type { ResultsModel } from '../../src/protocol/webview';
import { countWork, HOSTILE, launch, openView, pwned, until } from './harness';
import { SHARED } from '../unit/support/paths';
import { resultsModel } from '../../src/core/split/results';
import { queryDeltas } from '../../src/core/split/queryDeltas';
import type { SplitState } from '../../src/core/split/state';
import type { QueryDeltas, QueryPlot } from '../../src/protocol/webview';

const RUNS = join(SHARED, 'runs/scifact');
let browser: Browser;
let model: ResultsModel;
let split: SplitState;

before(async () => {
  browser = await launch();
  const s = (split = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(RUNS, f))));
  model = resultsModel(s, join(RUNS, 'bm25okapi.knarfthekant.trec'), { skipped: [{ file: 'x.trec', reason: 'bad' }], untrusted: false });
});
after(() => browser?.close());

test('renders runs x measures with markers, significance, lengths; no CSP violation', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  const table = v.page.locator('#results');
  await table.waitFor();
  assert.deepEqual(await table.locator('thead th').allTextContents(), ['Run', 'Queries', 'nDCG@10', 'R@100', 'MAP', 'MRR@10', 'P@10', 'Judged@10', 'Hole@10', '']);
  const dense = table.locator('tbody tr', { hasText: 'minilm-faiss' });
  assert.match((await dense.locator('td[data-measure="ndcg_cut_10"]').textContent())!, /^0\.6451\*† \[0\.\d\d, 1\.00\]$/, 'the mean, its markers, its range over the holes');
  assert.match((await table.locator('tbody tr.baseline').textContent())!, /^bm25okapi\.knarfthekantbaseline300\/3000\.5597/);
  assert.equal(await table.locator('tbody tr').first().getAttribute('data-run'), model.baseline, 'the baseline row comes first');
  assert.equal(await v.page.locator('#significance tr[data-a]').count(), 2 * 5, 'two runs x five tested measures');
  assert.equal(await v.page.locator('#lengths tbody tr').count(), 3);
  assert.equal(await v.page.locator('svg rect.box').count(), 3);
  assert.match((await v.page.locator('#skipped').textContent())!, /x\.trec: bad/);
  assert.equal(await v.page.locator('#untrusted').count(), 0);
  assert.deepEqual(await v.problems(), []);
});

test('baseline, export and diff controls post typed requests; errors are shown', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#export-latex').click();
  const req = await v.answer('export', { path: '/tmp/results.tex' });
  assert.deepEqual(req.params, { format: 'latex' });
  await v.page.locator('#status', { hasText: 'Saved /tmp/results.tex' }).waitFor();
  await v.page.locator('#results tbody tr', { hasText: 'minilm-faiss' }).locator('button[data-action="diff"]').click();
  const diff = await v.answer('openDiff', null);
  assert.deepEqual(diff.params, { a: model.baseline, b: model.rows[1].key });
  await v.page.locator('#open-holes').click();
  await v.answer('openHoles', 'no dataset', false);
  await v.page.locator('#status.error', { hasText: 'no dataset' }).waitFor();
});

test('while significance is computed the table shows without markers and says so', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', { ...model, significancePending: true, significanceOn: null, rows: model.rows.map((r) => ({ ...r, vsBaseline: null })) });
  await v.page.locator('#significance-pending').waitFor();
  assert.equal(await v.page.locator('#results .sig').count(), 0);
  await v.event('results', 'model', model);
  await v.page.locator('#significance').waitFor();
  assert.equal(await v.page.locator('#significance-pending').count(), 0);
  assert.ok((await v.page.locator('#results .sig').count()) > 0);
});

test('after a judgement the last tests stay, named by their qrels, while the next ones are computed', async () => {
  const v = await openView(browser, 'results');
  const before = { state: 'original', judgements: 0, version: 0 } as const;
  const now = { state: 'annotated', judgements: 1, version: 1 } as const;
  await v.event('results', 'model', { ...model, significancePending: true, significanceOn: before, qrels: now });
  await v.page.locator('#significance').waitFor();
  assert.equal(await v.page.locator('#significance-on').textContent(), 'Tests on the original qrels — updating for the qrels with your 1 judgement…');
  assert.ok((await v.page.locator('#results .sig').count()) > 0, 'the markers of the last tests stay');
  await v.event('results', 'model', { ...model, significancePending: false, significanceOn: now, qrels: now });
  await v.page.locator('#significance-on', { hasText: 'Tests on the qrels with your 1 judgement.' }).waitFor();
  assert.equal(await v.page.locator('#significance-pending').count(), 0);
});

test('hostile run names and file names render as text; restricted mode says why', async () => {
  const v = await openView(browser, 'results');
  const hostile: ResultsModel = {
    ...model,
    untrusted: true,
    rows: model.rows.map((r, i) => (i === 1 ? { ...r, label: HOSTILE } : r)),
    skipped: [{ file: HOSTILE, reason: HOSTILE }],
  };
  await v.event('results', 'model', hostile);
  await v.page.locator('#results').waitFor();
  // A long name is shown cut, as text, and whole in its tooltip.
  const cut = v.page.locator('#results tbody td.run bdi.name').nth(1);
  assert.equal(await cut.getAttribute('title'), HOSTILE);
  assert.ok(HOSTILE.startsWith((await cut.textContent())!.split('…')[0]));
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
  assert.match((await v.page.locator('#untrusted').textContent())!, /starts no retrieval process and loads no model/);
});

// Issue 24: one set of numbers, each saying which qrels it is on; the table fits 1280x800 beside the sidebar;
// every pair with a chosen correction; Δ with intervals against the baseline; a judgement updates in place.

/** The split with `n` of minilm's unjudged top-10 documents judged relevant (a new split each time: judging changes it). */
async function judgedModel(n: number, testing?: Parameters<typeof resultsModel>[3]): Promise<ResultsModel> {
  const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(RUNS, f));
  const s = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', files);
  const run = s.run(files[1]);
  for (const q of s.qrels('original').queryIds()) {
    if (s.judgementCount >= n) break;
    const at = run.queryIndex(q);
    const doc = [...run.docIds.subarray(run.offsets[at], run.offsets[at] + 10)].map((d) => run.docs.string(d)).find((d) => s.grade(q, d) === null);
    if (doc) s.judge(q, doc, 1);
  }
  return resultsModel(s, files[0], { skipped: [] }, testing);
}

test('with judgements every figure says which qrels it is on; both states labelled where both are shown', async () => {
  const m = await judgedModel(2);
  const v = await openView(browser, 'results');
  await v.event('results', 'model', m);
  await v.page.locator('#significance').waitFor();
  assert.match((await v.page.locator('#qrels').textContent())!, /^Figures on the qrels with your 2 judgements; beneath each, in grey \("orig"\), on the original qrels\./);
  // Each measure column says which line is which.
  const subs = await v.page.locator('#results thead th .sub').allTextContents();
  assert.deepEqual(subs, Array(7).fill('yours / orig'));
  const dense = m.rows.find((r) => r.label.startsWith('minilm'))!;
  const cell = v.page.locator(`#results tr[data-run="${dense.key}"] td[data-measure="ndcg_cut_10"]`);
  assert.equal(await cell.locator('.num').textContent(), dense.annotated![0].toFixed(4));
  assert.equal(await cell.locator('.orig').textContent(), dense.means[0].toFixed(4));
  assert.notEqual(dense.annotated![0].toFixed(4), dense.means[0].toFixed(4), 'the judgements moved it');
  assert.match((await cell.getAttribute('title'))!, /^nDCG@10 0\.\d{4} on the qrels with your 2 judgements; 0\.\d{4} on the original qrels\nΔ = minilm-faiss\.knarfthekant − bm25okapi\.knarfthekant: \+0\.\d{4} \[\+0\.\d{4}, \+0\.\d{4}\]/);
  assert.equal(await v.page.locator('#significance-on').textContent(), 'Tests on the qrels with your 2 judgements.');
  // The direction of every Δ, with the run names: the significance groups, the plot.
  const groups = await v.page.locator('#significance tr.group').allTextContents();
  assert.deepEqual(groups, ['Δ = minilm-faiss…rfthekant − bm25okapi.knarfthekant', 'Δ = vsm-tfidf.ti…r-khattab − bm25okapi.knarfthekant']);
  assert.match((await v.page.locator('#plot-caption').textContent())!, /^Δ nDCG@10 = run − bm25okapi\.knarfthekant, .* on the qrels with your 2 judgements\.$/);
  assert.deepEqual(await v.problems(), []);
});

test('fits 1280x800 with the sidebar open: no table wider than its box, nothing beyond the viewport, the run column stays put', async () => {
  const m = await judgedModel(1);
  // The editor beside a 300-pixel sidebar and the activity bar.
  const v = await openView(browser, 'results', { viewport: { width: 920, height: 760 } });
  await v.event('results', 'model', m);
  await v.page.locator('#significance').waitFor();
  const fit = await v.page.evaluate(() => ({
    boxes: [...document.querySelectorAll('.table-scroll')].map((e) => ({ id: e.firstElementChild!.id, over: e.scrollWidth - e.clientWidth })),
    page: document.documentElement.scrollWidth - window.innerWidth,
    beyond: [...document.querySelectorAll('#app *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.tagName + (e.id ? `#${e.id}` : '')),
  }));
  assert.deepEqual(fit.boxes.filter((b) => b.over > 0), [], JSON.stringify(fit.boxes));
  assert.equal(fit.page, 0);
  assert.deepEqual(fit.beyond, []);
  // Judged@10, Hole@10 and the Diff buttons are on screen.
  for (const sel of ['#results th:has-text("Hole@10")', '#results button[data-action="diff"]']) {
    const box = (await v.page.locator(sel).first().boundingBox())!;
    assert.ok(box.x + box.width <= 920, `${sel} at ${box.x + box.width}`);
  }
  // A long name is cut in the middle, whole in its tooltip; the run column is sticky.
  const tfidf = v.page.locator('#results tbody td.run bdi', { hasText: 'vsm-tfidf' });
  assert.equal(await tfidf.textContent(), 'vsm-tfidf.ti…r-khattab');
  assert.equal(await tfidf.getAttribute('title'), 'vsm-tfidf.titles_fulltext.omar-khattab');
  assert.equal(await v.page.locator('#results tbody td.run').first().evaluate((e) => getComputedStyle(e).position), 'sticky');
});

test('the ranges are behind a toggle, kept in the view state', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  const range = v.page.locator('#results td[data-measure="ndcg_cut_10"] .cell-range').first();
  await v.page.locator('#results').waitFor();
  assert.equal(await range.isVisible(), false, 'hidden at first');
  await v.page.locator('#show-ranges').click();
  assert.equal(await range.isVisible(), true);
  assert.equal(await v.page.evaluate(() => (window as unknown as { __state: { ranges: boolean } }).__state.ranges), true);
});

test('every pair with the correction chosen: the request, then each pair b − a with its tests', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#compare').click();
  await v.page.locator('#compare vscode-option[value="all-pairs"]').click();
  const req = await v.answer('setTesting', null);
  assert.deepEqual(req.params, { compare: 'all-pairs', correction: 'holm' });
  const all = await judgedModel(1, { testing: { compare: 'all-pairs', correction: 'bh' } });
  await v.event('results', 'model', all);
  await v.page.locator('#significance tr.group').first().waitFor();
  assert.equal(await v.page.locator('h2', { hasText: 'Every pair of runs' }).count(), 1);
  assert.deepEqual(await v.page.locator('#significance tr.group').allTextContents(), [
    'Δ = minilm-faiss…rfthekant − bm25okapi.knarfthekant',
    'Δ = vsm-tfidf.ti…r-khattab − bm25okapi.knarfthekant',
    'Δ = vsm-tfidf.ti…r-khattab − minilm-faiss…rfthekant',
  ]);
  assert.equal(await v.page.locator('#significance tr[data-a]').count(), 3 * 5);
  // Benjamini-Hochberg's adjusted p-values are the ones shown.
  const pair = all.pairs![2];
  const shown = await v.page.locator(`#significance tbody[data-key="${pair.a}\t${pair.b}"] tr[data-a]`).first().locator('td').nth(3).getAttribute('data-value');
  assert.equal(Number(shown), pair.tests![0]!.tPAdj);
  // Every pair shows its own estimate (b − a), not only the pairs with the baseline.
  const estimate = v.page.locator(`#significance tbody[data-key="${pair.a}\t${pair.b}"] tr[data-a]`).first().locator('td.estimate-cell');
  assert.equal(Number(await estimate.getAttribute('data-value')), pair.estimates![0]!.estimate);
  assert.match((await v.page.locator('#legend').textContent())!, /after Benjamini-Hochberg over the comparisons/);
});

test('Δ against the baseline: each run\'s Δ with its 95 % interval, on the measure picked', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#plot-caption').waitFor();
  const data = () => v.page.evaluate(() => {
    const c = (document.getElementById('delta-plot') as unknown as { irwChart: { data: { labels: string[]; datasets: { data: [number, number][] }[] } } }).irwChart;
    return { labels: c.data.labels, ci: c.data.datasets[0].data };
  });
  const others = model.rows.filter((r) => r.key !== model.baseline);
  let d = await data();
  assert.deepEqual(d.labels.map((l) => l.replace(/[\u2068\u2069]/g, '')), ['minilm-faiss…rfthekant', 'vsm-tfidf.ti…r-khattab']);
  assert.deepEqual(d.ci, others.map((r) => [r.vsBaseline![0]!.ci!.lo, r.vsBaseline![0]!.ci!.hi]));
  await v.page.locator('#plot-measure').click();
  await v.page.locator('#plot-measure vscode-option[value="P_10"]').click();
  await until(async () => (d = await data()).ci[0][0] === others[0].vsBaseline![4]!.ci!.lo, () => 'the P@10 intervals');
  assert.match((await v.page.locator('#plot-caption').textContent())!, /^Δ P@10 = run − /);
});

test('a judgement updates the table in place: the same nodes, the scroll, the focus and the tests stay', async () => {
  const before = await judgedModel(1);
  const after = await judgedModel(2);
  const v = await openView(browser, 'results', { viewport: { width: 920, height: 400 } });
  await v.event('results', 'model', before);
  await v.page.locator('#significance').waitFor();
  const dense = before.rows.find((r) => r.label.startsWith('minilm'))!.key;
  const cell = v.page.locator(`#results tr[data-run="${dense}"] td[data-measure="ndcg_cut_10"]`);
  await cell.click();
  await v.page.evaluate(() => {
    window.scrollTo(0, 300);
    (window as unknown as { __cell: Element }).__cell = document.activeElement!;
  });
  const y = await v.page.evaluate(() => window.scrollY);
  assert.ok(y > 200, `scrolled: ${y}`);
  // The new judgement's figures come first, its tests later: the last tests stay meanwhile.
  await v.event('results', 'model', { ...after, significancePending: true, significanceOn: before.significanceOn, rows: after.rows.map((r, i) => ({ ...r, vsBaseline: before.rows[i].vsBaseline })) });
  await until(async () => (await cell.locator('.num').textContent()) === after.rows.find((r) => r.key === dense)!.annotated![0].toFixed(4), () => 'the new figure');
  const kept = await v.page.evaluate(() => ({
    same: (window as unknown as { __cell: Element }).__cell === document.activeElement && document.activeElement?.isConnected,
    y: window.scrollY,
  }));
  assert.deepEqual(kept, { same: true, y });
  assert.equal(await v.page.locator('#significance').count(), 1, 'the tests are not blanked');
  assert.match((await v.page.locator('#significance-on').textContent())!, /^Tests on the qrels with your 1 judgement — updating for the qrels with your 2 judgements…$/);
});

test('a judgement compares in script only the rows and cells it changes; the rest are compared natively, at once (issue 24)', async () => {
  const before = await judgedModel(1);
  const after = await judgedModel(2);
  const v = await openView(browser, 'results');
  await v.event('results', 'model', before);
  await v.page.locator('#significance').waitFor();
  const elements = await v.page.evaluate(() => document.querySelectorAll('#app *').length);
  const work = await countWork(v.page);
  await v.event('results', 'model', after);
  await v.page.locator('#significance-on', { hasText: 'your 2 judgements.' }).waitFor();
  const { walked } = await work();
  assert.ok(walked > 0, 'the figures that changed are updated in place');
  // Measured on this model: 336 of 464 elements walked node by node before, 146 (each changed node and its ancestors).
  assert.ok(walked < elements / 2, `${walked} of the page's ${elements} elements compared one by one in script`);
});

test('the page keeps what a window reload needs in the view state: its split, the comparisons, sort and scroll', async () => {
  const panel = { datasetDir: '/w/scifact', split: 'test' };
  const v = await openView(browser, 'results', { settings: { panel }, viewport: { width: 920, height: 400 } });
  const state = () => v.page.evaluate(() => (window as unknown as { __state: Record<string, unknown> }).__state);
  assert.deepEqual((await state()).irwPanel, panel, 'the identity, before any model');
  await v.event('results', 'model', { ...model, compare: 'baseline', correction: 'bonferroni' });
  await v.page.locator('#results thead th', { hasText: 'MAP' }).click();
  await v.page.evaluate(() => window.scrollTo(0, 250));
  await until(async () => (await state()).scroll === 250, () => 'the scroll saved');
  const s = await state();
  assert.deepEqual(s.irwRestore, { compare: 'baseline', correction: 'bonferroni' });
  assert.deepEqual(s.sorts, { results: { col: 4, dir: -1 } });
  assert.deepEqual(s.irwPanel, panel, 'kept whatever the page saves');
});

test('after a reload the scroll comes back once the page is long enough: the tests and plots arrive after the table', async () => {
  // Tall enough that the page without its tests does not scroll at all (the browser's scroll anchoring then has
  // nothing to keep in view as the tests come in above the plots).
  const viewport = { width: 920, height: 1000 };
  const full = await openView(browser, 'results', { viewport });
  await full.event('results', 'model', model);
  await full.page.locator('#significance').waitFor();
  const bottom = await full.page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  await full.page.close();
  const v = await openView(browser, 'results', { viewport, state: { scroll: bottom } });
  const pending = { ...model, significancePending: true, significanceOn: null, rows: model.rows.map((r) => ({ ...r, vsBaseline: null })) };
  await v.event('results', 'model', pending);
  await v.page.locator('#results').waitFor();
  const short = await v.page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  assert.ok(short < bottom - 50, `the page without its tests is shorter (${short} < ${bottom})`);
  await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await v.event('results', 'model', model);
  await until(async () => Math.abs((await v.page.evaluate(() => window.scrollY)) - bottom) < 2, () => `the scroll restored to ${bottom}`);
  assert.equal((await v.page.evaluate(() => (window as unknown as { __state: { scroll: number } }).__state)).scroll, bottom, 'the saved position is the one restored');
  assert.deepEqual(await v.problems(), []);
});

test('under the table: the qrels the figures used, a changed qrels file, and runs made on other data; file text stays text', async () => {
  const v = await openView(browser, 'results');
  const sha = (c: string) => c.repeat(64);
  const withProvenance: ResultsModel = {
    ...model,
    judgements: 2,
    provenance: {
      qrels: { path: `/data/${HOSTILE}/qrels/test.tsv`, sha256: sha('a'), judgements: 339, queries: 300 },
      warnings: [{ run: `/runs/${HOSTILE}.trec`, message: `made on the corpus /other/${HOSTILE}/corpus.jsonl (sha256 bbbbbbbbbbbb), not on this dataset's` }],
    },
  };
  await v.event('results', 'model', withProvenance);
  await v.page.locator('#qrels-state').waitFor();
  assert.match((await v.page.locator('#qrels-state').textContent())!, /test\.tsv \(sha256 aaaaaaaaaaaa, 339 judgements of 300 queries\); annotated figures add 2 of yours\.$/);
  assert.equal(await v.page.locator('#qrels-changed').count(), 0, 'no warning while the file is as the figures read it');
  assert.match((await v.page.locator('#provenance-warnings').textContent())!, /Runs made on other data than this split's:.*made on the corpus \/other\//s);

  const changed = structuredClone(withProvenance);
  changed.provenance!.qrels!.now = { sha256: sha('c'), judgements: 340, queries: 300 };
  await v.event('results', 'model', changed);
  await v.page.locator('#qrels-changed').waitFor();
  assert.match((await v.page.locator('#qrels-changed').textContent())!, /changed since these figures were computed: it now holds 340 judgements of 300 queries \(sha256 cccccccccccc\)/);
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
  assert.ok((await v.page.locator('#provenance').textContent())!.includes(HOSTILE));
  assert.deepEqual(await v.problems(), []);
});

// Issue 24 item 18: the per-query Δ of a comparison, what a reader looks at first.

/** The per-query plot's bars and overlay, as drawn. */
const queryChart = (v: Awaited<ReturnType<typeof openView>>) => v.page.evaluate(() => {
  const c = document.getElementById('query-deltas') as unknown as { irwChart: { data: { labels: string[]; datasets: { data: number[] }[] } }; irwOverlay?: { ranges?: { lo: number[]; hi: number[] }; band?: { value: number; lo: number; hi: number } } };
  return { labels: c.irwChart.data.labels, values: c.irwChart.data.datasets[0].data, overlay: c.irwOverlay };
});
const plain = (s: string) => s.replace(/[\u2068\u2069]/g, '');

/** The deltas as the plot shows them: best gain first, then by query id (the host sends them in query order). */
function bestFirst(d: QueryDeltas): QueryDeltas {
  const rows = d.queries.map((q, i) => ({ q, delta: d.deltas[i], lo: d.ranges?.lo[i], hi: d.ranges?.hi[i] }));
  rows.sort((x, y) => y.delta - x.delta || (x.q < y.q ? -1 : 1));
  return { ...d, queries: rows.map((r) => r.q), deltas: rows.map((r) => r.delta), ...(d.ranges ? { ranges: { lo: rows.map((r) => r.lo!), hi: rows.map((r) => r.hi!) } } : {}) };
}

/** Answers the page's choice of comparison for its per-query plot, and pushes `deltas` for it as the host does. */
async function plotted(v: Awaited<ReturnType<typeof openView>>, deltas: QueryDeltas) {
  const asked = await v.answer('plot', null);
  await v.event('results', 'queries', { plot: asked.params as unknown as QueryPlot, deltas });
  return asked;
}

test('Δ query by query: the comparison b − a sorted, the table\'s mean and 95 % interval over it, each query\'s range, in words; fits beside the sidebar', async () => {
  const v = await openView(browser, 'results', { viewport: { width: 920, height: 760 } });
  await v.event('results', 'model', model);
  const dense = model.rows[1];
  const asked = await plotted(v, queryDeltas(split, model.baseline, dense.key, 'ndcg_cut_10'));
  assert.deepEqual(asked.params, { a: model.baseline, b: dense.key, measure: 'ndcg_cut_10' });
  const d = bestFirst(queryDeltas(split, model.baseline, dense.key, 'ndcg_cut_10'));
  const c = dense.vsBaseline![0]!;
  let drawn = await queryChart(v);
  await until(async () => (drawn = await queryChart(v)).values.length === 300, () => 'the 300 bars');
  assert.deepEqual(drawn.values, d.deltas, 'b − a per query, best gain first');
  assert.deepEqual(drawn.labels.map(plain), d.queries);
  // The mean and interval drawn are the table's, not computed again; the ranges those of the holes.
  assert.deepEqual(drawn.overlay!.band, { value: c.delta, lo: c.ci!.lo, hi: c.ci!.hi });
  assert.deepEqual(drawn.overlay!.ranges, d.ranges);
  const caption = (await v.page.locator('#query-caption').textContent())!;
  assert.match(caption, /^Δ nDCG@10 = minilm-faiss…rfthekant − bm25okapi\.knarfthekant for each of the 300 queries on the original qrels, sorted by Δ; pale behind a bar: its range over every grading of the query's holes \(\d+ queries\)\. Dashed line: the mean Δ \+0\.\d{4}, over the pale band of its paired bootstrap 95 % interval \[\+0\.\d{3}, \+0\.\d{3}\] \(the table's, on the original qrels\)\.$/);
  assert.ok(caption.includes((await v.page.locator(`#significance tr[data-a="${model.baseline}"][data-b="${dense.key}"]`).first().locator('td.ci').textContent())!), 'the interval the table prints');
  // In words: wins, ties and losses as the table counts them, the largest gains and losses with their queries.
  const words = (await v.page.locator('#query-delta-summary').textContent())!;
  assert.ok(words.startsWith(`minilm-faiss…rfthekant − bm25okapi.knarfthekant: better on ${c.wins} queries, tied on ${c.ties}, worse on ${c.losses}.`), words);
  const fmt = (x: number) => (x < 0 ? `\u2212${Math.abs(x).toFixed(4)}` : `+${x.toFixed(4)}`);
  assert.ok(words.includes(` Largest gains: ${d.queries[0]} (${fmt(d.deltas[0])}), ${d.queries[1]} (${fmt(d.deltas[1])}), ${d.queries[2]} (${fmt(d.deltas[2])}).`), words);
  assert.ok(words.endsWith(` Largest losses: ${d.queries[299]} (${fmt(d.deltas[299])}), ${d.queries[298]} (${fmt(d.deltas[298])}), ${d.queries[297]} (${fmt(d.deltas[297])}).`), words);
  assert.equal(await v.page.locator('#query-delta-summary bdi.name').count(), 2 + 6, 'the runs and each query id isolated');
  assert.equal(await v.page.locator('#query-deltas').getAttribute('aria-describedby'), 'query-delta-summary');
  // Nothing wider than the window beside the sidebar.
  const beyond = await v.page.evaluate(() => [...document.querySelectorAll('#query-plot-head, #query-plot-head *, #query-plot-box, #query-plot-box *, #query-delta-summary')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5).map((e) => e.tagName + (e.id ? `#${e.id}` : '')));
  assert.deepEqual(beyond, []);
  assert.equal(await v.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);

  // Another comparison, then the measure: each asked for, kept in the view state.
  await v.page.locator('#query-pair').click();
  await v.page.locator(`#query-pair vscode-option[value="${model.baseline}\t${model.rows[2].key}"]`).click();
  const other = await plotted(v, queryDeltas(split, model.baseline, model.rows[2].key, 'ndcg_cut_10'));
  assert.deepEqual(other.params, { a: model.baseline, b: model.rows[2].key, measure: 'ndcg_cut_10' });
  await v.page.locator('#query-caption', { hasText: /^Δ nDCG@10 = vsm-tfidf/ }).waitFor();
  assert.equal((await v.page.evaluate(() => (window as unknown as { __state: { pair: string } }).__state)).pair, `${model.baseline}\t${model.rows[2].key}`);
  await v.page.locator('#plot-measure').click();
  await v.page.locator('#plot-measure vscode-option[value="P_10"]').click();
  const p10 = await plotted(v, queryDeltas(split, model.baseline, model.rows[2].key, 'P_10'));
  assert.deepEqual(p10.params, { a: model.baseline, b: model.rows[2].key, measure: 'P_10' });
  await v.page.locator('#query-caption', { hasText: /^Δ P@10 = vsm-tfidf/ }).waitFor();
  drawn = await queryChart(v);
  const tests = model.rows[2].vsBaseline![4]!;
  assert.deepEqual(drawn.overlay!.band, { value: tests.delta, lo: tests.ci!.lo, hi: tests.ci!.hi });
  assert.equal(drawn.overlay!.ranges?.lo.length, 300, 'P@10 is ranged over the top-10 pool');
  assert.deepEqual(await v.problems(), []);
});

/**
 * The Results panel with one judgement of the dense run's, its per-query plot drawn (the deltas asked and
 * answered), and the model of a second judgement to send next.
 */
async function plottedAfterOneJudgement(viewport?: { width: number; height: number }) {
  const before = await judgedModel(1);
  const after = await judgedModel(2);
  const v = await openView(browser, 'results', { viewport });
  await v.event('results', 'model', before);
  const dense = before.rows[1];
  const first = (await plotted(v, { ...queryDeltas(split, before.baseline, dense.key, 'ndcg_cut_10'), qrels: before.qrels })).params as unknown as QueryPlot;
  await v.page.locator('#query-caption', { hasText: 'Dashed line' }).waitFor();
  return { before, after, v, dense, first };
}

test('Δ query by query after a judgement: the deltas on the new qrels, the last interval named by its own, until the tests come', async () => {
  const { before, after, v, dense, first } = await plottedAfterOneJudgement();
  // The next judgement's figures come first, its tests later: the host sends the deltas after the figures, the
  // interval stays, named.
  await v.event('results', 'model', { ...after, significancePending: true, significanceOn: before.significanceOn, rows: after.rows.map((r, i) => ({ ...r, vsBaseline: before.rows[i].vsBaseline })) });
  await v.event('results', 'queries', { plot: first, deltas: { ...queryDeltas(split, before.baseline, dense.key, 'ndcg_cut_10'), qrels: after.qrels } });
  await v.page.locator('#query-caption', { hasText: 'being updated' }).waitFor();
  assert.match((await v.page.locator('#query-caption').textContent())!, / on the qrels with your 2 judgements, sorted by Δ.*\(the table's, on the qrels with your 1 judgement, being updated\)\.$/);
  // The page asks for nothing after a judgement: it chose the comparison once, the deltas come with the models.
  await v.event('results', 'model', { ...after, significancePending: true, significanceOn: before.significanceOn, rows: after.rows.map((r, i) => ({ ...r, vsBaseline: before.rows[i].vsBaseline })) });
  await v.event('results', 'model', after);
  await v.page.locator('#query-caption', { hasText: '(the table\'s, on the qrels with your 2 judgements).' }).waitFor();
  assert.equal((await v.posted()).filter((p) => p.type === 'request').length, 1, 'one request: the comparison chosen');
});

test('Δ query by query never draws one judgement\'s deltas under another\'s mean: the plot stays as it was until the new deltas come', async () => {
  const { before, after, v, dense, first } = await plottedAfterOneJudgement();
  const shown = await queryChart(v);
  await v.event('results', 'model', after);
  await v.page.locator('#significance-on', { hasText: 'your 2 judgements.' }).waitFor();
  assert.notDeepEqual(after.rows[1].vsBaseline, before.rows[1].vsBaseline, 'the judgement moves the mean and its interval');
  assert.deepEqual(await queryChart(v), shown);
  await v.event('results', 'queries', { plot: first, deltas: { ...queryDeltas(split, after.baseline, dense.key, 'ndcg_cut_10'), qrels: after.qrels } });
  const c = after.rows[1].vsBaseline![after.measures.findIndex((m) => m.key === 'ndcg_cut_10')]!;
  await until(async () => (await queryChart(v)).overlay?.band?.value === c.delta, () => 'the new mean drawn with the new deltas');
});

test('a plot out of view takes a judgement\'s data at once and is drawn when scrolled to, not at each judgement (issue 24)', async () => {
  // 400 pixels high: the table fills the view, the per-query plot is far below it.
  const { after, v, dense, first } = await plottedAfterOneJudgement({ width: 920, height: 400 });
  const work = await countWork(v.page, ['query-deltas']);
  await v.event('results', 'model', after);
  const d = { ...queryDeltas(split, after.baseline, dense.key, 'ndcg_cut_10'), qrels: after.qrels };
  await v.event('results', 'queries', { plot: first, deltas: d });
  await until(async () => JSON.stringify((await queryChart(v)).values) === JSON.stringify(bestFirst(d).deltas), () => 'the new deltas in the chart');
  assert.equal((await work()).draws['query-deltas'], 0, 'not drawn out of view');
  await v.page.locator('#query-deltas').scrollIntoViewIfNeeded();
  await until(async () => (await work()).draws['query-deltas'] === 1, () => 'drawn once in view');
});

test('Δ query by query: hostile query ids are text, isolated, in the chart and in words', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  const d = queryDeltas(split, model.baseline, model.rows[1].key, 'ndcg_cut_10');
  // The hostile id on the largest gain, so it is the first bar and the first query named in words.
  const top = d.deltas.indexOf(Math.max(...d.deltas));
  const hostile: QueryDeltas = { ...d, queries: d.queries.map((q, i) => (i === top ? HOSTILE : q)), deltas: d.deltas.map((x, i) => (i === top ? x + 1e-9 : x)) };
  await plotted(v, hostile);
  await v.page.locator('#query-delta-summary', { hasText: 'Largest gains' }).waitFor();
  const id = v.page.locator('#query-delta-summary bdi.name').nth(2);
  assert.equal(await id.textContent(), HOSTILE);
  assert.equal((await queryChart(v)).labels[0], `\u2068${HOSTILE.slice(0, 39)}…\u2069`);
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
});

test('a judgement that moves no test keeps the Δ plot as drawn; its tests redraw it once (issue 24)', async () => {
  const before = await judgedModel(1);
  const v = await openView(browser, 'results');
  await v.event('results', 'model', before);
  // Counted from right after the first render: the plot's redraw on being resized by it is that render's own.
  const work = await countWork(v.page, ['delta-plot']);
  await v.page.locator('#significance').waitFor();
  // The figures of one more judgement, with the tests as they were (they come later): the plot shows the tests.
  const after = await judgedModel(2);
  await v.event('results', 'model', { ...after, significancePending: true, significanceOn: before.significanceOn, rows: after.rows.map((r, i) => ({ ...r, vsBaseline: before.rows[i].vsBaseline })) });
  await v.page.locator('#significance-pending').waitFor();
  assert.equal((await work()).draws['delta-plot'], 0, 'the plot is not redrawn');
  // The tests of the new judgement: the plot is redrawn, once.
  await v.event('results', 'model', after);
  await v.page.locator('#significance-on', { hasText: 'your 2 judgements.' }).waitFor();
  assert.equal((await work()).draws['delta-plot'], 1);
});
