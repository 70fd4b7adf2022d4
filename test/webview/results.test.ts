// The results panel in headless Chromium: the model from the real SciFact session renders as a table with
// significance markers, the baseline and export controls post typed requests, hostile run names stay text,
// and the page raises no CSP violation (the UI toolkit gets its nonce).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { splitWithRuns } from '../helpers/splitState';
import type { ResultsModel } from '../../src/protocol/webview';
import { HOSTILE, launch, openView, pwned } from './harness';
import { SHARED } from '../unit/support/paths';
import { resultsModel } from '../../src/core/split/results';

const RUNS = join(SHARED, 'runs/scifact');
let browser: Browser;
let model: ResultsModel;

before(async () => {
  browser = await launch();
  const s = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(RUNS, f)));
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
  assert.match((await table.locator('tbody tr.baseline').textContent())!, /bm25okapi\.knarfthekant \(baseline\)300\/3000\.5597/);
  assert.equal(await v.page.locator('#significance tbody tr').count(), 2 * 5, 'two runs x five tested measures');
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
  await v.page.locator('#results tbody tr', { hasText: 'minilm-faiss' }).locator('vscode-button').click();
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
  assert.ok((await v.page.locator('#results').textContent())!.includes(HOSTILE));
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await v.page.locator('#app script').count(), 0);
  assert.equal(await pwned(v.page), undefined);
  assert.match((await v.page.locator('#untrusted').textContent())!, /starts no retrieval process and loads no model/);
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
