// The results table as a reader uses it, in headless Chromium on the real SciFact runs: significance takes the
// colour of the sign of Δ (a significant loss is not green), a zero Δ is neutral and unsigned, decimals align
// whatever markers follow them, headers sort, and a clicked cell copies its figure.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { splitWithRuns } from '../helpers/splitState';
import type { ResultsModel } from '../../src/protocol/webview';
import { launch, openView, until } from './harness';
import { SHARED } from '../unit/support/paths';
import { resultsModel } from '../../src/core/split/results';

const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
let browser: Browser;
let model: ResultsModel;

before(async () => {
  browser = await launch();
  const s = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', [BM25, ...['minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(RUNS, f))]);
  model = resultsModel(s, BM25, { skipped: [], untrusted: false });
});
after(() => browser?.close());

const color = (page: Page, selector: string) => page.locator(selector).first().evaluate((e) => getComputedStyle(e).color);
/** A colour of the panels' palette (media/webview.css :root) as the page computes it. */
const palette = (page: Page, name: string) =>
  page.evaluate((n) => {
    const e = document.body.appendChild(document.createElement('span'));
    e.style.color = `var(${n})`;
    const c = getComputedStyle(e).color;
    e.remove();
    return c;
  }, name);

test('significance markers and p-values take the colour of the sign of Δ', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#significance').waitFor();
  const dense = model.rows.findIndex((r) => r.label.startsWith('minilm'));
  const tfidf = model.rows.findIndex((r) => r.label.startsWith('vsm-tfidf'));
  const nd = model.measures.findIndex((m) => m.key === 'ndcg_cut_10');
  assert.ok(model.rows[dense].vsBaseline![nd]!.delta > 0 && model.rows[tfidf].vsBaseline![nd]!.delta < 0, 'a win and a loss on the real runs');
  assert.ok(model.rows[tfidf].vsBaseline![nd]!.tPHolm <= model.alpha, 'the TF-IDF loss is significant');
  const cell = (run: string) => `#results tr[data-run="${CSS.escape(run)}"] td[data-measure="ndcg_cut_10"] .marks`;
  const CSS = { escape: (s: string) => s.replace(/["\\]/g, '\\$&') };
  assert.equal(await v.page.locator(cell(model.rows[tfidf].key)).textContent(), '*†');
  const [GREEN, RED] = [await palette(v.page, '--irw-good'), await palette(v.page, '--irw-bad')];
  assert.notEqual(GREEN, RED);
  assert.equal(await color(v.page, cell(model.rows[tfidf].key)), RED, 'a significant loss is red');
  assert.equal(await color(v.page, cell(model.rows[dense].key)), GREEN, 'a significant win is green');
  const group = `#significance tbody[data-key$="${model.rows[tfidf].key}"]`;
  const sigRow = v.page.locator(`${group} tr[data-a]`).filter({ hasText: 'nDCG@10' });
  assert.match((await sigRow.locator('td').nth(1).textContent())!, /^\u22120\.\d{4}$/);
  assert.equal(await color(v.page, `${group} tr[data-a]:has-text("nDCG@10") td:nth-child(4)`), RED);
  assert.deepEqual(await v.problems(), []);
});

test('a zero Δ (or float noise) is neutral: no +0.0000 or −0.0000, no colour', async () => {
  const v = await openView(browser, 'results');
  const noisy: ResultsModel = {
    ...model,
    rows: model.rows.map((r) => (r.vsBaseline ? { ...r, vsBaseline: r.vsBaseline.map((c) => c && { ...c, delta: -8.3e-19, tPHolm: 0.001, randPHolm: 0.001 }) } : r)),
  };
  await v.event('results', 'model', noisy);
  await v.page.locator('#significance').waitFor();
  const deltas = await v.page.locator('#significance tr[data-a] td:nth-child(2)').allTextContents();
  assert.ok(deltas.length > 0 && deltas.every((d) => d === '0.0000'), deltas.join(' '));
  assert.equal(await v.page.locator('#significance tbody td.better, #significance tbody td.worse, #results .marks.better, #results .marks.worse').count(), 0);
  assert.notEqual(await color(v.page, '#results .marks:not(:empty)'), await palette(v.page, '--irw-good'));
  assert.notEqual(await color(v.page, '#results .marks:not(:empty)'), await palette(v.page, '--irw-bad'));
});

test('decimals align in a column whatever markers follow them', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#results').waitFor();
  for (const key of ['ndcg_cut_10', 'map']) {
    const marks = await v.page.locator(`#results td[data-measure="${key}"] .marks`).allTextContents();
    assert.ok(new Set(marks).size > 1, `${key}: rows with and without markers (${marks.join('|')})`);
    const rights = await v.page.locator(`#results td[data-measure="${key}"] .num`).evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
    assert.ok(Math.max(...rights) - Math.min(...rights) < 0.5, `${key}: figure right edges ${rights.join(', ')}`);
  }
});

test('headers sort the rows by click (descending, ascending, original); the order survives a new model', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  const header = v.page.locator('#results thead th', { hasText: 'nDCG@10' });
  const values = () => v.page.locator('#results td[data-measure="ndcg_cut_10"] .num').allTextContents();
  const original = await values();
  await header.click();
  const desc = await values();
  assert.deepEqual(desc, [...original].sort().reverse());
  assert.equal(await header.getAttribute('aria-sort'), 'descending');
  await header.click();
  assert.deepEqual(await values(), [...original].sort());
  await v.event('results', 'model', { ...model });
  await v.page.locator('#results thead th[aria-sort="ascending"]').waitFor();
  assert.deepEqual(await values(), [...original].sort(), 'kept after a re-render');
  await v.page.locator('#results thead th', { hasText: 'nDCG@10' }).click();
  assert.deepEqual(await values(), original);
  await v.page.locator('#results thead th', { hasText: 'Run' }).click();
  const names = await v.page.locator('#results tbody td:first-child bdi').allTextContents();
  assert.deepEqual(names, [...names].sort((a, b) => a.localeCompare(b)));
});

test('a clicked cell copies its figure without markers', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  const td = v.page.locator('#results td[data-measure="ndcg_cut_10"]', { has: v.page.locator('.marks:not(:empty)') }).first();
  await td.click();
  const copied = await v.page.evaluate(() => {
    const data = new DataTransfer();
    document.activeElement!.dispatchEvent(new ClipboardEvent('copy', { clipboardData: data, bubbles: true, cancelable: true }));
    return data.getData('text/plain');
  });
  assert.match(copied, /^0\.\d{4}$/);
  assert.equal(copied, await td.locator('.num').textContent());
});

test('coverage per run: answered/total, a warning below 100 %, and a note on how missing queries count', async () => {
  const v = await openView(browser, 'results');
  await v.event('results', 'model', model);
  await v.page.locator('#coverage-note').waitFor();
  const cell = (label: string) => v.page.locator('#results tbody tr', { hasText: label }).locator('td.coverage');
  // The shared TF-IDF run answers 153 of SciFact's 300 test queries; BM25 all of them.
  assert.equal(await cell('vsm-tfidf').locator('.num').textContent(), '153/300');
  assert.equal(await cell('vsm-tfidf').locator('.marks').textContent(), '⚠');
  assert.match((await cell('vsm-tfidf').getAttribute('title'))!, /147 it misses count as 0 in its means and in the significance tests/);
  assert.equal(await cell('bm25okapi').locator('.num').textContent(), '300/300');
  assert.equal(await cell('bm25okapi').locator('.marks').textContent(), '');
  assert.equal(await color(v.page, '#results tbody tr:has-text("vsm-tfidf") td.coverage .marks'), await palette(v.page, '--irw-warn'), 'the warning colour');
  const note = (await v.page.locator('#coverage-note').textContent())!;
  assert.match(note, /^⚠ 1 run answers only part of test \(vsm-tfidf\S* 51 %\)\. A query a run does not answer counts as 0 in the means and in the significance tests \(trec_eval -c\)\. Judged@10 and Hole@10 are over the queries each run answers\.$/);
  // Decimals of the coverage column align too, warning or not.
  const rights = await v.page.locator('#results td.coverage .num').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
  assert.ok(Math.max(...rights) - Math.min(...rights) < 0.5, rights.join(', '));

  // Every run complete: no warning, the note still says how missing queries would count.
  const full: ResultsModel = { ...model, rows: model.rows.map((r) => ({ ...r, coverage: { answered: 300, total: 300 } })) };
  await v.event('results', 'model', full);
  await until(async () => (await v.page.locator('#results td.coverage.partial').count()) === 0, () => 'no partial run');
  assert.equal(await v.page.locator('#coverage-note').textContent(), 'A query a run does not answer counts as 0 in the means and in the significance tests (trec_eval -c).');
  assert.deepEqual(await v.problems(), []);
});
