// A window reload keeps the judging session: judging from the Holes panel at depth 5 in impact order, after a
// judgement and a skip, the reloaded window's Judge sidebar shows the same pair of the same split, in the same
// order, from the same pool (its size is the depth-5 pool's, not Judge Holes' depth 10).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readPair } from '../steps.mjs';

export const title = 'Judge sidebar: a window reload restores the split, pool, order and the pair shown';

const RUNS = ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant'];

export async function run({ wb, shot, workspace, sharedRuns }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  for (const r of RUNS) if (!existsSync(join(dataset, 'runs', `${r}.trec`))) copyFileSync(join(sharedRuns, 'scifact', `${r}.trec`), join(dataset, 'runs', `${r}.trec`));

  await wb.commandWithPicks('IR Workbench: Show Holes', [['Split of scifact', 'test']]);
  const panel = await wb.webview('#pool-size');
  await panel.locator('#depth').click();
  await panel.locator('#depth vscode-option[value="5"]').click();
  await wb.waitFor('the depth-5 pool', async () => /from the top 5 of/.test(await panel.locator('#pool-size').textContent()));
  await panel.locator('#order').click();
  await panel.locator('#order vscode-option[value="impact"]').click();
  await panel.locator('#meter strong').waitFor({ timeout: 60_000 });
  await panel.locator('#annotate').click();
  const side = await wb.webview('#grades', { timeout: 60_000 });
  await side.locator('#meter').waitFor({ timeout: 60_000 });

  // A judgement (the impact order then chooses the next pair), and a skip.
  const unjudged = async () => Number(/; (\d+) still unjudged/.exec(await panel.locator('#pool-size').textContent())[1]);
  const judged = async () => Number(/^(\d+) judged/.exec(await side.locator('#judged').textContent())[1]);
  const pair = async () => (await wb.webviewFrame('#grades')).evaluate(() => document.body.dataset.pair);
  await wb.waitFor('a pair on screen', pair);
  const [before, judgedBefore] = [await unjudged(), await judged()];
  await readPair(wb);
  await side.locator('#document').press('0');
  await wb.waitFor('the next pair', async () => (await judged()) === judgedBefore + 1 && (await pair()));
  await wb.waitFor('the Holes panel to count the judgement', async () => (await unjudged()) === before - 1);
  await readPair(wb);
  const skipped = await pair();
  await side.locator('#document').press('s');
  const shown = await wb.waitFor('the pair after the skip', async () => {
    const p = await pair();
    return p && p !== skipped && p;
  });
  await wb.waitFor('the skip to reach the host', async () => (await side.locator('#status').textContent()) === '');
  await shot('before the reload');

  await wb.page.reload();
  await wb.ready();
  // The view's own focus command (the workbench registers it): the container opens with the view in it.
  await wb.runCommand('IR Workbench: Focus on Judge Holes View');
  const restored = await wb.webview('#grades', { timeout: 120_000 });
  await wb.waitFor('the restored pair', async () => (await (await wb.webviewFrame('#grades', { timeout: 120_000 })).evaluate(() => document.body.dataset.pair)) === shown, { timeout: 120_000 });
  await shot('after the reload');
  assert.match(await restored.locator('#judged').textContent(), /judged · scifact \(test\)$/);
  assert.equal(await restored.locator('#order').evaluate((d) => d.value), 'impact');
  await restored.locator('#meter').waitFor();
  // The impact order lists the pool's unjudged pairs: the depth-5 pool of the two runs, as the Holes panel counted it.
  assert.match(await restored.locator('#progress').textContent(), new RegExp(`^\\d+ of ${before - 1}$`));
}
