// Text from files in every view, in headless Chromium: names carrying bidirectional overrides are isolated
// (what follows them reads as written), and a 100,000-character word or id never widens the page (one-line
// names end in an ellipsis with the whole name in the tooltip; running text wraps).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AnnotationState, DiffModel, QueryDetail, ResultsModel, ViewEvents } from '../../src/protocol/webview';
import { openView, scifactFixture } from './harness';
import { SHARED } from '../unit/support/paths';
import { diffModel } from '../../src/core/split/diff';
import { holeRows } from '../../src/core/split/holes';
import { annotatedScores } from '../../src/core/split/judging';
import { pool as splitPool } from '../../src/core/split/pool';
import { queryDetail } from '../../src/core/split/queryDetail';
import { resultsModel } from '../../src/core/split/results';

const RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(SHARED, 'runs/scifact', f));
/** A run name that, not isolated, reverses everything after it on its line (RIGHT-TO-LEFT OVERRIDE). */
const RLO = 'run\u202e';
const LONG = 'x'.repeat(100_000);
const fx = scifactFixture(RUNS);

/** Whether `text` inside the first element matching `selector` is laid out left to right (as written). */
async function readsAsWritten(page: Page, selector: string, text: string): Promise<boolean> {
  return page.locator(selector).first().evaluate((root, t) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const at = n.textContent!.indexOf(t);
      if (at < 0) continue;
      // No inner named functions: tsx would wrap them in its __name helper, absent in the page.
      const left: number[] = [];
      for (let i = 0; i < t.length; i++) {
        const r = document.createRange();
        r.setStart(n, at + i);
        r.setEnd(n, at + i + 1);
        left.push(r.getBoundingClientRect().left);
      }
      for (let i = 1; i < t.length; i++) if (t[i] !== ' ' && t[i - 1] !== ' ' && !(left[i - 1] < left[i])) return false;
      return true;
    }
    throw new Error(`no text ${t} in ${root.outerHTML.slice(0, 200)}`);
  }, text);
}

const pageWidth = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: window.innerWidth }));

async function assertNarrow(page: Page, view: string): Promise<void> {
  const w = await pageWidth(page);
  // Says which elements stick out (outside the scrolling query list, whose rows may be wider than the page).
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('#app *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth && !e.closest('.query-list'))
      .slice(0, 5)
      .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)} px`));
  assert.ok(w.scroll <= w.view, `${view}: the page is ${w.scroll} px wide in a ${w.view} px window: ${wide.join(', ')}`);
}

function results(label: string): ResultsModel {
  const m = resultsModel(fx.split, RUNS[0], { skipped: [{ file: label, reason: `bad ${LONG}` }], untrusted: false });
  return { ...m, dataset: label, rows: m.rows.map((r) => ({ ...r, label })) };
}

function diff(label: string): DiffModel {
  const m = diffModel(fx.split, RUNS[0], RUNS[1]);
  return { ...m, a: { ...m.a, label }, b: { ...m.b, label }, queries: m.queries.map((q, i) => (i === 0 ? label : q)), texts: m.texts.map((t, i) => (i === 0 ? `${t} ${LONG}` : t)) };
}

async function detail(label: string): Promise<QueryDetail> {
  const d = await queryDetail(fx.split, RUNS[0], RUNS[1], diffModel(fx.split, RUNS[0], RUNS[1]).queries[0], 10);
  const doc = (x: QueryDetail['a'][number]) => ({ ...x, docId: label, title: `${label} title`, snippet: `${LONG} snippet` });
  return { ...d, queryId: label, text: `${label} ${LONG}`, a: d.a.map(doc), b: d.b.map(doc) };
}

function holes(label: string): ViewEvents['holes']['model'] {
  const pool = splitPool(fx.split, RUNS, 10);
  return {
    dataset: label, split: 'test', depth: 10, rows: holeRows(fx.split).map((r) => ({ ...r, label })), pooled: RUNS, poolSize: pool.length, remaining: pool.length,
    grades: [0, 1], queue: pool.slice(0, 5).map(() => ({ queryId: label, docId: label, queryText: LONG, grade: null })),
  };
}

function annotation(label: string): AnnotationState {
  return {
    dataset: label, split: 'test', grades: [0, 1, 2], index: 0, total: 1, judged: 0, message: null,
    scores: annotatedScores(fx.split).map((s) => ({ ...s, label })),
    item: { queryId: label, queryText: `${label} ${LONG}`, docId: label, title: `${label} ${LONG}`, text: `${LONG} ${LONG}`, grade: null },
  };
}

test('results: a name with a bidi override is isolated; a 100k-character name keeps the page narrow', async () => {
  const v = await openView(fx.browser, 'results', { viewport: { width: 1280, height: 800 } });
  await v.event('results', 'model', results(RLO));
  await v.page.locator('#results').waitFor();
  assert.ok(await readsAsWritten(v.page, '#results tr.baseline td:first-child', 'baseline'), '"baseline" after an RLO name reads as written');
  assert.ok(await readsAsWritten(v.page, 'h1', '(test)'));
  assert.equal(await v.page.locator('#results tbody td:first-child bdi').first().getAttribute('title'), RLO);
  await v.event('results', 'model', results(LONG));
  await v.page.locator('#results tbody td:first-child bdi[title^="xxx"]').first().waitFor();
  await assertNarrow(v.page, 'results');
  assert.equal((await v.page.locator('#results tbody td:first-child bdi').first().getAttribute('title'))!.length, LONG.length, 'the whole name in the tooltip');
  assert.deepEqual(await v.problems(), []);
});

test('diff: names isolated in the heading and lists; long ids, query text and snippets keep the page narrow', async () => {
  const v = await openView(fx.browser, 'diff', { viewport: { width: 1280, height: 800 } });
  await v.event('diff', 'model', diff(RLO));
  await v.page.locator('#queries tr').first().waitFor();
  assert.ok(await readsAsWritten(v.page, 'h1 .delta-of', ' \u2212 '), 'the minus between two RLO names reads as written');
  await v.page.locator('#queries tr').first().click();
  await v.answer('query', await detail(RLO));
  await v.page.locator('#list-a .doc').first().waitFor();
  assert.ok(await readsAsWritten(v.page, '#list-a h2', '(0.'), 'the score after an RLO run name reads as written');
  await v.event('diff', 'model', diff(LONG));
  await v.page.locator('#queries tr').first().click();
  await v.answer('query', await detail(LONG));
  await v.page.locator('#list-a .doc .snippet', { hasText: 'snippet' }).first().waitFor();
  await assertNarrow(v.page, 'diff');
  assert.deepEqual(await v.problems(), []);
});

test('holes panel and judging sidebar: isolated names, narrow pages', async () => {
  const h = await openView(fx.browser, 'holes', { viewport: { width: 1280, height: 800 } });
  await h.event('holes', 'model', holes(RLO));
  await h.page.locator('#holes').waitFor();
  assert.ok(await readsAsWritten(h.page, 'h1', '(test)'));
  await h.event('holes', 'model', holes(LONG));
  await h.page.locator('#queue tr[data-pair]').first().waitFor();
  await assertNarrow(h.page, 'holes');
  const a = await openView(fx.browser, 'annotate', { viewport: { width: 400, height: 800 } });
  await a.event('annotate', 'state', annotation(RLO));
  await a.page.locator('#progress').waitFor();
  assert.ok(await readsAsWritten(a.page, '.toolbar .muted', '(test)'));
  await a.event('annotate', 'state', annotation(LONG));
  await a.page.locator('#doc-text').waitFor();
  await assertNarrow(a.page, 'annotate');
  assert.deepEqual([...(await h.problems()), ...(await a.problems())], []);
});
