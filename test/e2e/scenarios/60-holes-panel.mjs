// Show Holes: per run, Hole@10 as BEIR defines it and unjudged@10 (trec_eval 10's unj.10), each as irw eval -c
// gives it from the installed package's CLI; "Judge in the sidebar" hands the pool's unjudged pairs to the
// Judge Holes view.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { irwEval } from '../figures.mjs';

export const title = 'Holes panel: Hole@10 and unjudged@10 as irw eval gives them; its pool goes to the sidebar';

const RUN = 'minilm-faiss.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns, extensionDir }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${RUN}.trec`), join(dataset, 'runs', `${RUN}.trec`));

  await wb.commandWithPicks('IR Workbench: Show Holes', [['Split of scifact', 'test']]);
  const panel = await wb.webview('#holes');
  const row = panel.locator(`#holes tbody tr[data-run*="${RUN}"]`).first();
  await row.waitFor();
  await shot('holes panel');
  const [, hole, holeAnnotated, unjudged] = await row.locator('td').allTextContents();

  // The original columns use the qrels alone, as irw eval does (the annotated ones add the user's judgements).
  const expected = irwEval(extensionDir, join(dataset, 'qrels', 'test.tsv'), join(dataset, 'runs', `${RUN}.trec`), ['hole.10', 'unj.10']);
  assert.equal(hole.trim(), expected.get('hole_10'), 'Hole@10 (BEIR)');
  assert.equal(unjudged.trim(), expected.get('unj_10'), 'unjudged@10');
  assert.match(holeAnnotated.trim(), /^0\.\d{4}$/);

  // The sidebar takes the whole pool (pairs of the runs' top 10), judged ones included, one at a time.
  const pool = (await panel.locator('#pool-size').textContent()).trim();
  const [, size, remaining] = /^(\d+) distinct .*; (\d+) still unjudged/.exec(pool).map(Number);
  assert.ok(remaining > 0 && remaining <= size, `pool: "${pool}"`);
  await panel.locator('#annotate').click();
  const side = await wb.webview('#grades', { timeout: 60_000 });
  const progress = (await side.locator('#progress').textContent()).trim();
  await shot('sidebar');
  assert.match(progress, new RegExp(`^\\d+ of ${size}$`));
}
