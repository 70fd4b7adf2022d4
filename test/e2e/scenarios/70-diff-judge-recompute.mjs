// The whole loop of a person comparing their system with someone else's: import a shared run (a TF-IDF run that
// covers only 153 of the 300 test queries: nDCG@10 0.3348 with trec_eval -c), open the diff against it from the
// Datasets view, judge holes in the sidebar with the keyboard, and read the recomputed nDCG@10 in the diff, which
// must be trec_eval's on the qrels plus the judgements.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { irwEvalJudged } from '../figures.mjs';
import { judgeNextHole, showResultsOfRun } from '../steps.mjs';

export const title = 'Diff against an imported run, judge a hole by keyboard, the diff shows the recomputed nDCG@10';

const RUN = 'vsm-tfidf.titles_fulltext.omar-khattab';
const BASE = 'bm25okapi.knarfthekant';
const esc = (t) => t.replace(/\./g, '\\.');

export async function run({ wb, shot, workspace, sharedRuns, extensionDir }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${BASE}.trec`), join(dataset, 'runs', `${BASE}.trec`));

  await wb.openViewContainer('IR Workbench');
  await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  await wb.runCommand('IR Workbench: Import TREC Run');
  await wb.openFile('Import a TREC run for scifact', join(sharedRuns, 'scifact', `${RUN}.trec`));
  assert.match(await wb.notification(new RegExp(`imported ${esc(RUN)}`)), /for scifact/);
  await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const row = await wb.treeRow(new RegExp(esc(RUN)), { timeout: 60_000 });
  const imported = await wb.waitFor('the imported run to show its figures', async () => {
    const t = await row.textContent();
    return /nDCG@10 \d/.test(t) && t;
  }, { timeout: 60_000 });
  assert.match(imported, /nDCG@10 0\.3348/);

  // Its Show Results action, then the Diff between it and the baseline (whichever of the two is the baseline).
  const results = await showResultsOfRun(wb, new RegExp(esc(RUN)));
  const runRow = results.locator('#results tbody tr', { hasText: RUN }).first();
  await runRow.waitFor();
  const diffButton = (await runRow.getByText('Diff', { exact: true }).count())
    ? runRow.getByText('Diff', { exact: true })
    : results.locator('#results tbody').getByText('Diff', { exact: true }).first();
  await diffButton.click();
  const diff = await wb.webview('#deltas');
  const summary = diff.locator('p', { hasText: 'queries.' }).first();
  await summary.waitFor();
  await shot('diff before judging');
  // The two runs (the imported one and the panel's baseline: BASE, or one an earlier scenario left), their files,
  // the diff's means for them, and trec_eval's on the qrels plus the judgements made so far.
  // The heading names b − a (whole names in the tooltips: a long one is shown cut).
  const [b, a] = await diff.locator('h1 bdi.name').evaluateAll((els) => els.map((e) => e.title));
  assert.ok([a, b].includes(RUN), `the diff involves ${RUN}: ${b} vs ${a}`);
  const files = Object.fromEntries([a, b].map((r) => [r,
    [join(dataset, 'runs', `${r}.trec`), join(workspace, 'runs', 'scifact', `${r}.trec`)].find((f) => existsSync(f))]));
  // Each mean follows its run's name (the figures on the qrels in effect come first).
  const shown = async () => summary.evaluate((p, names) => Object.fromEntries(names.map((r) => {
    const el = [...p.querySelectorAll('bdi.name')].find((e) => e.title === r);
    return [r, /^\s*(\d\.\d{4})/.exec(el?.nextSibling?.textContent ?? '')?.[1]];
  })), [a, b]);
  const trecEval = () => Object.fromEntries([a, b].map((r) => [r,
    irwEvalJudged(extensionDir, dataset, 'test', files[r], ['ndcg_cut.10']).get('ndcg_cut_10')]));
  const before = await shown();
  assert.deepEqual(before, trecEval());

  // Judge Holes over the split's runs, by keyboard in the sidebar, until a judgement moves one of the two means
  // (a hole of a query where neither run scores leaves both as they are). The Diff of the split is the active
  // editor: Judge Holes asks for no split.
  await wb.runCommand('IR Workbench: Judge Holes');
  const side = await wb.webview('#grades', { timeout: 60_000 });
  let expected = before;
  for (let n = 1; JSON.stringify(expected) === JSON.stringify(before); n++) {
    if (n > 10) throw new Error(`10 judgements moved neither mean: ${JSON.stringify(before)}`);
    const judged = await judgeNextHole(wb, side, dataset, 'test');
    expected = trecEval();
    // The diff panel, still open, recomputes with the judgement.
    await wb.waitFor(`the diff to show ${JSON.stringify(expected)} after judging ${judged.queryId} ${judged.docId}`,
      async () => JSON.stringify(await shown()) === JSON.stringify(expected));
  }
  await shot('diff after judging');
}
