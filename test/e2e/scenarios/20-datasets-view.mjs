// The Datasets view (IR Workbench activity-bar container) indexes the workspace through the store worker (sql.js
// from the .vsix): a TREC run dropped into scifact/runs appears under its split with trec_eval's nDCG@10.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Datasets view lists SciFact and a shared run with nDCG@10 0.5597';

// /work/shared/runs/scifact/README.md: trec_eval -c on the test qrels gives nDCG@10 0.5597 for this run.
const RUN = 'bm25okapi.knarfthekant.trec';

export async function run({ wb, shot, workspace, sharedRuns }) {
  mkdirSync(join(workspace, 'scifact', 'runs'), { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', RUN), join(workspace, 'scifact', 'runs', RUN));

  await wb.openViewContainer('IR Workbench');
  const dataset = await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  const datasetText = await dataset.textContent();
  assert.ok(/5,183 docs/.test(datasetText), `scifact row counts 5,183 documents: "${datasetText}"`);
  await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const run = await wb.treeRow(/bm25okapi\.knarfthekant/, { timeout: 60_000 });
  const text = await wb.waitFor('the run row to show its figures', async () => {
    const t = await run.textContent();
    return /nDCG@10 \d/.test(t) && t;
  }, { timeout: 60_000 });
  await shot('datasets view');
  assert.ok(/nDCG@10 0\.560\b/.test(text), `run row shows nDCG@10 0.560 (0.5597 at three places): "${text}"`);
}
