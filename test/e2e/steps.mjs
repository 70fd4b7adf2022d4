// Steps that several scenarios take: Run BEIR Eval with BM25, Show Results from a run of the Datasets view, judging in the sidebar.
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
  const queryId = /^Query (\S+)$/.exec((await side.locator('#query-id').textContent()).trim())[1];
  const docId = /^Document (\S+)$/.exec((await side.locator('#doc-id').textContent()).trim())[1];
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
  }, { explain: () => sidebarSays(side) });
  return { queryId, docId, grade };
}

/** The sidebar's status line, position, pair and grade, for a failure message. */
async function sidebarSays(side) {
  const text = async (sel) => (await side.locator(sel).first().textContent({ timeout: 2000 }).catch(() => '?'))?.trim();
  return `status "${await text('#status')}", ${await text('#progress')}, ${await text('#query-id')} / ${await text('#doc-id')}: ${await text('#current-grade')}`;
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

/**
 * Run BEIR Eval with BM25 (Anserini's flat settings, 1000 hits) on scifact's test split, from the palette: one
 * multi-step input under one title. Returns the notification's text once the run is evaluated.
 */
export async function runBm25(wb, shot) {
  await wb.runCommand('IR Workbench: Run BEIR Eval');
  // With more than one dataset in the workspace (earlier scenarios add some), the first step asks which.
  // By its title: the palette that ran the command lists "…: Run BEIR Eval" too, and read while it still showed,
  // the first placeholder was the palette's (seen: the dataset step skipped, "test" typed into it).
  await wb.quickInput.locator('.quick-input-title', { hasText: 'Run BEIR Eval' }).waitFor({ state: 'visible' });
  const first = await wb.waitFor('the first step\'s placeholder', async () => (await wb.quickInputBox.getAttribute('placeholder')) || false);
  if (first.startsWith('BEIR dataset')) await wb.pick('Run BEIR Eval', 'scifact');
  await wb.pick('Run BEIR Eval', 'test');
  await wb.pick('Run BEIR Eval', 'BM25');
  await wb.pick('Run BEIR Eval', 'k1 0.9, b 0.4, flat');
  // Hits per query: the default, 1000.
  await wb.quickInput.filter({ hasText: 'Hits per query' }).waitFor({ state: 'visible' });
  await wb.page.keyboard.press('Enter');
  // The progress notification ("BM25 on scifact (test): indexing…"), or already the result on a fast machine.
  await wb.notification(/on scifact \(test\)/);
  await shot?.('bm25 progress');
  // The result names the run, the qrels, and its first figures (which ones depends on the measures' order).
  return wb.notification(/^IR Workbench: .* on scifact \(test\), original qrels: /, { timeout: 120_000 });
}
