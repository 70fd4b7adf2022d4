// One workspace plane: the Datasets tree and the Results panel of a split list the same runs, under the same
// labels, with the same nDCG@10, original and annotated where the user has judged; and the count of "your
// judgements" agrees between the tree and the Judge sidebar after a judgement and after its undo (an undo back
// to unjudged is not a judgement).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { judgeNextHole } from '../steps.mjs';

export const title = 'Tree and Results list the same runs and figures; judge + undo counts agree';

export async function run({ wb, shot, workspace, sharedRuns }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  for (const run of ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant']) {
    copyFileSync(join(sharedRuns, 'scifact', `${run}.trec`), join(dataset, 'runs', `${run}.trec`));
  }
  await wb.openViewContainer('IR Workbench');
  await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  const split = await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const tree = await wb.waitFor('the run rows of test with their figures', async () => {
    const rows = await treeRunsOf(wb, 'test');
    return rows.length >= 2 && rows.every((r) => r.ndcg !== undefined) && rows;
  }, { timeout: 60_000 });

  await wb.commandWithPicks('IR Workbench: Show Results', [['Split of scifact', 'test']]);
  const results = await wb.webview('#results');
  await results.locator('#results tbody tr td[data-measure="ndcg_cut_10"]').first().waitFor();
  const panel = await results.locator('#results tbody tr').evaluateAll((trs) => trs.flatMap((tr) => {
    const cell = tr.querySelector('td[data-measure="ndcg_cut_10"]');
    if (!cell) return [];
    // The whole name (a long one is shown cut); the tree gives three decimals: "original→yours" where the
    // user's judgements change it.
    const label = tr.cells[0].querySelector('bdi.name').title;
    const original = Number(cell.dataset.original).toFixed(3);
    const yours = cell.dataset.annotated === undefined ? original : Number(cell.dataset.annotated).toFixed(3);
    return [{ label, ndcg: yours !== original ? `${original}→${yours}` : original }];
  }));
  await shot('results beside the tree');
  const byLabel = (rows) => [...rows].sort((a, b) => (a.label < b.label ? -1 : 1)).map((r) => `${r.label} ${r.ndcg}`);
  assert.deepEqual(byLabel(panel), byLabel(tree), 'the Results panel lists the runs of the tree, named alike, with the same nDCG@10');

  // Judge one hole in the sidebar, then undo it: the tree's "yours" and the sidebar's "judged" move together.
  await wb.runCommand('View: Close All Editors', { screenshot: false });
  // The split selected in the tree: Judge Holes asks for no split.
  if ((await split.getAttribute('aria-selected')) !== 'true') await split.click();
  await wb.waitFor('the split selected', async () => (await split.getAttribute('aria-selected')) === 'true');
  // The click that selects it may have folded it: its "your judgements" row is read below.
  await wb.treeRow(/^test/, { expand: true });
  await wb.runCommand('IR Workbench: Judge Holes');
  const side = await wb.webview('#grades', { timeout: 60_000 });
  const counts = async () => ({ tree: yoursOf(await rowsUnder(wb, 'test')), side: judgedOf(await side.getByText(/ judged · /).first().textContent()) });
  const start = await wb.waitFor('both counts', async () => {
    const c = await counts();
    return c.tree === c.side && c;
  });
  const { queryId, docId } = await judgeNextHole(wb, side, dataset, 'test');
  await wb.waitFor('both counts to include the judgement', async () => {
    const c = await counts();
    return c.tree === start.tree + 1 && c.side === start.side + 1;
  });
  await side.locator('#document').press('u');
  const file = join(dataset, 'qrels', 'test.annotations.tsv');
  await wb.waitFor('the undo in the annotations file', async () => readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) === `${queryId}\t${docId}\t-1`);
  const end = await wb.waitFor('both counts back where they were', async () => {
    const c = await counts();
    return c.tree === start.tree && c.side === start.side && c;
  });
  await shot(`judged and undone: ${end.tree} yours`);
}

/** Label and description of the tree rows under split `name` (rows of level 3 after its level-2 row). */
async function rowsUnder(wb, name) {
  const rows = await wb.page.locator('.part.sidebar .monaco-list-row').evaluateAll((els) => els.map((el) => ({
    level: Number(el.getAttribute('aria-level')),
    label: el.querySelector('.label-name')?.textContent.trim() ?? '',
    description: el.querySelector('.label-description')?.textContent ?? '',
  })));
  const at = rows.findIndex((r) => r.level === 2 && r.label === name);
  const end = rows.findIndex((r, i) => i > at && r.level <= 2);
  return at < 0 ? [] : rows.slice(at + 1, end < 0 ? undefined : end);
}

/** Label and nDCG@10 of the run rows under split `name`. */
async function treeRunsOf(wb, name) {
  return (await rowsUnder(wb, name)).filter((r) => r.label !== 'your judgements')
    .map((r) => ({ label: r.label, ndcg: /nDCG@10 (\d\.\d{3}(?:→\d\.\d{3})?)/.exec(r.description)?.[1] }));
}

/** The count on the split's "your judgements" row (none: 0). */
const yoursOf = (rows) => Number((rows.find((r) => r.label === 'your judgements')?.description ?? '0').replace(/,/g, ''));
const judgedOf = (text) => Number(/([\d,]+) judged/.exec(text)[1].replace(/,/g, ''));
