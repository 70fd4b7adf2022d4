// One display name per measure in every panel (issue 24 item 17): nDCG@10, R@100, MAP, MRR@10, P@10, Judged@10,
// Hole@10, Unjudged@10, never trec_eval's ids (ndcg_cut_10, recall.100, recip_rank, unj.10 …) in text, tooltips or
// labels. trec_eval's name appears only where a page says which trec_eval measure a figure is, marked as such
// (code.trec-eval).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { diffModel } from '../../src/core/split/diff';
import { holesModel, withTitles } from '../../src/core/split/holes';
import { resultsModel } from '../../src/core/split/results';
import { openView, scifactFixture } from './harness';
import { SHARED } from '../unit/support/paths';

const RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(SHARED, 'runs/scifact', f));
const fx = scifactFixture(RUNS);
before(() => fx.ready);

/** trec_eval's ids of the measures the panels show (value names and -m names), and its families without a cutoff. */
const TREC_ID = /\b(?:ndcg_cut|ndcg|recall|recip_rank|map_cut|P|success|judged|hole|unj|Rprec|bpref)[._]\d+\b|\brecip_rank\b|\bmap\b|\bRprec\b/;

/** Every text, tooltip and label of the page a person can read, but for trec_eval's names marked as such. */
function readable(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walk = document.createTreeWalker(document.getElementById('app')!, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) if (!n.parentElement?.closest('code.trec-eval') && n.textContent!.trim()) out.push(n.textContent!);
    for (const e of document.querySelectorAll('[title], [aria-label]')) out.push(e.getAttribute('title') ?? '', e.getAttribute('aria-label') ?? '');
    for (const o of document.querySelectorAll('vscode-option')) out.push(o.textContent ?? '');
    return out;
  });
}

async function idsIn(page: Page): Promise<string[]> {
  return (await readable(page)).filter((t) => TREC_ID.test(t)).map((t) => `${TREC_ID.exec(t)![0]} in "${t.slice(0, 120)}"`);
}

test('results, diff and holes panels name every measure by its display name, never by a trec_eval id', async () => {
  const results = await openView(fx.browser, 'results');
  await results.event('results', 'model', resultsModel(fx.split, RUNS[0], { skipped: [] }));
  await results.page.locator('#significance').waitFor();
  await results.page.locator('#show-ranges').click();
  assert.deepEqual(await idsIn(results.page), []);
  assert.equal(await results.page.locator('#legend code.trec-eval').textContent(), 'recip_rank', 'where the legend says which trec_eval measure MRR@10 is');

  const diff = await openView(fx.browser, 'diff');
  await diff.event('diff', 'model', diffModel(fx.split, RUNS[0], RUNS[1]));
  await diff.page.locator('#queries tr').first().waitFor();
  assert.deepEqual(await idsIn(diff.page), []);

  const holes = await openView(fx.browser, 'holes');
  await holes.event('holes', 'model', await withTitles(fx.split, holesModel(fx.split, { runs: RUNS, depth: 10, listed: 50, order: 'impact' })));
  await holes.page.locator('#queue tr[data-pair]').first().waitFor();
  assert.deepEqual(await idsIn(holes.page), []);
  assert.equal(await holes.page.locator('#holes-note code.trec-eval').textContent(), 'unj.10');
});
