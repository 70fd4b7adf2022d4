// Show Run Diff between two runs of other systems (../shared/runs, dropped into scifact/runs): the panel gives
// both means (trec_eval -c: BM25Okapi nDCG@10 0.5597, MiniLM 0.6451), per-query deltas with filters, and
// with the keyboard (j) the two rankings of a query side by side.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Run diff of two shared runs: means 0.5597 vs 0.6451, a query\'s rankings by keyboard';

const A = 'bm25okapi.knarfthekant';
const B = 'minilm-faiss.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  for (const r of [A, B]) copyFileSync(join(sharedRuns, 'scifact', `${r}.trec`), join(runs, `${r}.trec`));

  // Runs are named as in the Datasets view: the file stem, with its folder when another run shares the stem
  // (an earlier scenario imports B into runs/scifact/ too).
  const label = (r) => (existsSync(join(workspace, 'runs', 'scifact', `${r}.trec`)) ? `runs/${r}` : r);
  await wb.commandWithPicks('IR Workbench: Show Run Diff', [
    ['Split of scifact', 'test'],
    ['Run diff: run a', label(A)],
    ['Run diff: run b', label(B)],
  ]);

  const panel = await wb.webview('#deltas');
  const heading = panel.locator('h1', { hasText: 'Run diff' });
  await heading.waitFor({ timeout: 30_000 });
  const summary = (await panel.locator('p', { hasText: 'queries.' }).first().textContent()).trim();
  await shot('diff panel');
  const esc = (t) => t.replace(/[./]/g, '\\$&');
  // The direction is named: b minus a, with the runs' names.
  assert.match(await heading.textContent(), new RegExp(`^Run diff: Δ nDCG@10 = ${esc(label(B))} − ${esc(label(A))}$`));
  assert.match(summary, /^scifact \(test\), 300 queries\. nDCG@10 on the original qrels: /);
  assert.match(summary, new RegExp(`a ${esc(label(A))} 0\\.5597, b ${esc(label(B))} 0\\.6451`));

  // Per-query nDCG@10 of the two runs (irw eval -q -c, per query): b wins 94, loses 53, ties 153.
  // Wins only: the list narrows to those 94, as the status line says.
  const status = panel.locator('#status');
  assert.match(await status.textContent(), /^300 of 300 queries shown/);
  assert.match(await panel.locator('#filters').textContent(), /wins \(94\).*losses \(53\).*ties \(153\)/);
  await panel.locator('#filters').getByText(/^wins/).click();
  await wb.waitFor('the wins filter', async () => (await status.textContent()).startsWith('94 of 300'));
  await shot('wins only');

  // Keyboard: j selects the next query of the list (from none: the first), showing both rankings.
  const rows = panel.locator('#queries tr');
  const first = await rows.nth(0).getAttribute('data-query');
  const second = await rows.nth(1).getAttribute('data-query');
  await heading.click();
  await panel.locator('body').press('j');
  await panel.locator('#query-text').waitFor({ timeout: 30_000 });
  await wb.waitFor(`query ${first} in the detail`, async () => (await panel.locator('#detail > h2').textContent()) === `Query ${first}`);
  await panel.locator('body').press('j');
  await wb.waitFor(`query ${second} in the detail`, async () => (await panel.locator('#detail > h2').textContent()) === `Query ${second}`);
  assert.equal(await panel.locator('#queries tr.selected').getAttribute('data-query'), second);
  assert.ok((await panel.locator('#list-a .doc').count()) > 0 && (await panel.locator('#list-b .doc').count()) > 0, 'both rankings are listed');
  await shot('query rankings');
}
