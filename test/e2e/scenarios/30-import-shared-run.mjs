// Import TREC Run: a run from another system (../shared/runs) is picked in the open dialog, checked, copied into
// the workspace's runs folder and indexed by the store; the Datasets view shows trec_eval's nDCG@10 for it.
import assert from 'node:assert/strict';
import { join } from 'node:path';

export const title = 'Import TREC Run brings in a shared run, shown with nDCG@10 0.6451';

// /work/shared/runs/scifact/README.md: trec_eval -c on the test qrels gives nDCG@10 0.6451 for this run.
const RUN = 'minilm-faiss.knarfthekant.trec';

export async function run({ wb, shot, sharedRuns }) {
  // The dataset must be indexed before a run can be imported for it: wait for the Datasets view to list it.
  await wb.openViewContainer('IR Workbench');
  await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  await wb.runCommand('IR Workbench: Import TREC Run');
  await wb.openFile('Import a TREC run for scifact', join(sharedRuns, 'scifact', RUN));
  const message = await wb.notification(/imported/);
  assert.match(message, new RegExp(`imported ${RUN.replace(/\./g, '\\.')} for scifact`));

  await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const row = await wb.treeRow(/minilm-faiss\.knarfthekant/, { timeout: 60_000 });
  const text = await wb.waitFor('the imported run to show its figures', async () => {
    const t = await row.textContent();
    return /nDCG@10 \d/.test(t) && t;
  }, { timeout: 60_000 });
  await shot('datasets view');
  assert.match(text, /nDCG@10 0\.6451/);
}
