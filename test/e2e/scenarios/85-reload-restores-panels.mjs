// A window reload brings the panels back as they were: the Results panel with its split, comparisons and
// correction, sort and scroll; the Diff with its pair and selected query; the Holes panel with its order.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'A window reload restores the Results, Diff and Holes panels with what they showed';

const RUNS = ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant'];

/** Clicks the editor tab whose label starts with `label`. */
async function tab(wb, label) {
  const t = wb.page.locator('.tabs-container .tab', { hasText: label }).first();
  await t.waitFor({ timeout: 60_000 });
  await t.click();
}

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  for (const r of RUNS) copyFileSync(join(sharedRuns, 'scifact', `${r}.trec`), join(runs, `${r}.trec`));

  await wb.commandWithPicks('IR Workbench: Show Results', [['Split of scifact', 'test']]);
  let results = await wb.webview('#results');
  await results.locator('#significance').waitFor({ timeout: 60_000 });
  // Bonferroni, a sort by nDCG@10, the page scrolled to the tests.
  await results.locator('#correction').click();
  await results.locator('#correction vscode-option[value="bonferroni"]').click();
  await results.locator('#legend', { hasText: 'after Bonferroni' }).waitFor({ timeout: 60_000 });
  await results.locator('#results thead th', { hasText: 'nDCG@10' }).click();
  await results.locator('#significance').scrollIntoViewIfNeeded();
  const scrolled = await results.locator('body').evaluate(() => window.scrollY);
  assert.ok(scrolled > 0, 'the page scrolled');

  // The Diff of the first run against the baseline, a query selected.
  await results.locator('#results button[data-action="diff"]').first().click();
  let diff = await wb.webview('#deltas');
  const query = await diff.locator('#queries tr').nth(2).getAttribute('data-query');
  await diff.locator('#queries tr').nth(2).click();
  await diff.locator('#list-a .doc').first().waitFor({ timeout: 30_000 });

  // The Holes panel in the impact order.
  await wb.runCommand('IR Workbench: Show Holes');
  let holes = await wb.webview('#pool-size');
  await holes.locator('#order').click();
  await holes.locator('#order vscode-option[value="impact"]').click();
  await holes.locator('#meter').waitFor({ timeout: 60_000 });
  await shot('before the reload');

  await wb.page.reload();
  await wb.ready();

  await tab(wb, 'Results: scifact (test)');
  results = await wb.webview('#results', { timeout: 60_000 });
  await results.locator('#legend', { hasText: 'after Bonferroni' }).waitFor({ timeout: 60_000 });
  assert.equal(await results.locator('#results thead th', { hasText: 'nDCG@10' }).getAttribute('aria-sort'), 'descending', 'the sort');
  await wb.waitFor('the scroll position', async () => Math.abs((await results.locator('body').evaluate(() => window.scrollY)) - scrolled) < 2);
  await shot('results after the reload');

  await tab(wb, 'Diff: ');
  diff = await wb.webview('#deltas', { timeout: 60_000 });
  await wb.waitFor(`query ${query} in the detail`, async () => (await diff.locator('#detail > h2').textContent().catch(() => '')) === `Query ${query}`, { timeout: 60_000 });
  await shot('diff after the reload');

  await tab(wb, 'Holes: scifact (test)');
  holes = await wb.webview('#pool-size', { timeout: 60_000 });
  await holes.locator('#meter').waitFor({ timeout: 60_000 });
  assert.equal(await holes.locator('#order').evaluate((d) => d.value), 'impact');
  await shot('holes after the reload');
}
