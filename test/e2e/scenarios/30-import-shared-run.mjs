// Import TREC Run: a run from another system (../shared/runs) is picked in the open dialog, checked, copied into
// the workspace's runs folder and indexed by the store; the Datasets view shows trec_eval's nDCG@10 for it. Its
// Show Results action compares it with the dataset's runs, and a Diff button opens the diff against it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { showResultsOfRun } from '../steps.mjs';

export const title = 'Import TREC Run brings in a shared run (nDCG@10 0.6451); its results, and a diff against it';

// /work/shared/runs/scifact/README.md, trec_eval -c on the test qrels: nDCG@10 0.6451 and 0.5597.
const RUN = 'minilm-faiss.knarfthekant';
const OTHER = 'bm25okapi.knarfthekant';
const esc = (t) => t.replace(/\./g, '\\.');

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${OTHER}.trec`), join(runs, `${OTHER}.trec`));

  // The dataset must be indexed before a run can be imported for it: wait for the Datasets view to list it.
  await wb.openViewContainer('IR Workbench');
  await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  await wb.runCommand('IR Workbench: Import TREC Run');
  await wb.openFile('Import a TREC run for scifact', join(sharedRuns, 'scifact', `${RUN}.trec`));
  const message = await wb.notification(/imported/);
  assert.match(message, new RegExp(`imported ${esc(RUN)}\\.trec for scifact`));

  await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const row = await wb.treeRow(new RegExp(esc(RUN)), { timeout: 60_000 });
  const text = await wb.waitFor('the imported run to show its figures', async () => {
    const t = await row.textContent();
    return /nDCG@10 \d/.test(t) && t;
  }, { timeout: 60_000 });
  await shot('datasets view');
  assert.match(text, /nDCG@10 0\.645\b/);

  // Show Results from the imported run's row: it is compared with the runs of the dataset's runs folder.
  const results = await showResultsOfRun(wb, new RegExp(esc(RUN)));
  const rowOf = (r) => results.locator(`#results tbody tr[data-run*="${r}"]`).first();
  await rowOf(RUN).locator('td[data-measure="ndcg_cut_10"]').waitFor();
  await shot('results');
  assert.match(await rowOf(RUN).locator('td[data-measure="ndcg_cut_10"]').textContent(), /^0\.6451/);
  assert.match(await rowOf(OTHER).locator('td[data-measure="ndcg_cut_10"]').textContent(), /^0\.5597/);

  // Diff against the imported run: its row's button (against the baseline), or any other row's if it is the
  // baseline itself (the baseline is the panel's choice: other scenarios may have left runs in the folder).
  const imported = rowOf(RUN);
  const diffButton = (await imported.getByText('Diff', { exact: true }).count())
    ? imported.getByText('Diff', { exact: true })
    : results.locator('#results tbody').getByText('Diff', { exact: true }).first();
  await diffButton.click();
  const diff = await wb.webview('#deltas');
  const summary = diff.locator('p', { hasText: 'queries.' }).first();
  await summary.waitFor();
  await shot('diff');
  assert.match(await diff.locator('h1').textContent(), new RegExp(`^Run diff: .*${esc(RUN)}`));
  assert.match(await summary.textContent(), new RegExp(`^scifact \\(test\\), 300 queries\\. nDCG@10 on the original qrels: .*${esc(RUN)}\\S* 0\\.6451`));
}
