// Steps that several scenarios take: Show Results from a run of the Datasets view, judging in the sidebar.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * In the sidebar webview `side`, moves with `n` to the first pair not judged yet, grades it with the digit of the
 * highest grade and waits until the grade is in qrels/<split>.annotations.tsv of `datasetDir` (appended, and
 * fsynced, before the view moves on). Returns { queryId, docId, grade }.
 */
export async function judgeNextHole(wb, side, datasetDir, split) {
  const doc = side.locator('#document');
  await doc.waitFor();
  await doc.focus();
  for (let moves = 0; (await side.locator('#current-grade').textContent()).trim() !== 'unjudged'; moves++) {
    if (moves >= 50) throw new Error('no unjudged pair within 50 moves of the sidebar');
    const before = await side.locator('#progress').textContent();
    await doc.press('n');
    await wb.waitFor('the next pair', async () => (await side.locator('#progress').textContent()) !== before);
  }
  const queryId = /^Query (\S+)$/.exec((await side.getByText(/^Query /).first().textContent()).trim())[1];
  const docId = /^Document (\S+)$/.exec((await side.getByText(/^Document /).first().textContent()).trim())[1];
  const grades = await side.locator('#grades [data-grade]').evaluateAll((bs) => bs.map((b) => Number(b.getAttribute('data-grade'))));
  const grade = Math.max(...grades);
  await readPair(wb);
  await side.locator('#document').press(String(grade));
  const file = join(datasetDir, 'qrels', `${split}.annotations.tsv`);
  const line = `${queryId}\t${docId}\t${grade}`;
  await wb.waitFor(`${line} in ${file}`, async () => {
    try {
      return readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) === line;
    } catch {
      return false;
    }
  });
  return { queryId, docId, grade };
}

/**
 * A person reads a pair before grading it: the sidebar applies no grade to a pair drawn less than 150 ms
 * before the key (typed ahead), so a scenario waits as long as a glance takes.
 */
export function readPair(wb) {
  return wb.page.waitForTimeout(300);
}

/**
 * Show Results from the Datasets view row of run `label` (its inline action): the panel compares that run with
 * the split's. Returns the panel's FrameLocator. The view has no stable ids for its rows, so a refresh of the
 * view (the store re-indexing) between hover and click gives the command no row, and it asks for a split
 * instead: a person would close that and click again, and so does this (reported to the store's owner).
 */
export async function showResultsOfRun(wb, label) {
  for (let attempt = 1; ; attempt++) {
    await wb.treeAction(await wb.treeRow(label), 'Show Results');
    const asked = wb.quickInput.filter({ hasText: 'Split of' });
    if (!(await asked.waitFor({ timeout: 1500 }).then(() => true, () => false))) return wb.webview('#results');
    if (attempt === 3) throw new Error(`Show Results on the run row ${label} asked for a split 3 times (stale row)`);
    await wb.page.keyboard.press('Escape');
  }
}
