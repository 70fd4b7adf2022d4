// The Datasets view and the qrels editor at 1280x800 (screenshots kept as artifacts): Re-index says what it
// found; a run with three bad lines is listed as left out and Problems lists all three with the count; a run
// row's context menu; in the open qrels file, Change grade marks the line "yours: 0 (was 1)" and the hover
// says where the grade comes from.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Left-out run, all bad lines, run context menu, Re-index feedback, qrels overrides at 1280x800';

const RUN = 'bm25okapi.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${RUN}.trec`), join(runs, `ux95-${RUN}.trec`));
  writeFileSync(join(runs, 'ux95-broken.trec'), ['1 Q0 31715818 1 2.5 mine', '1 Q0 13734012 2', '3 Q0 14717500 1 high mine', '1 Q0 31715818 3 1.0 mine', ''].join('\n'));
  await wb.page.setViewportSize({ width: 1280, height: 800 });
  await wb.reset();
  await wb.openViewContainer('IR Workbench');

  await wb.runCommand('IR Workbench: Re-index Workspace');
  const said = await wb.notification(/IR Workbench: indexed/, { timeout: 60_000 });
  assert.match(said, /left out: bad file/);
  await shot('reindex says what it found');

  await wb.treeRow('scifact', { expand: true, timeout: 60_000 });
  await wb.treeRow(/^test/, { expand: true, timeout: 60_000 });
  const broken = await wb.treeRow(/ux95-broken.*left out: bad file/, { timeout: 60_000 });
  await tooltipOf(wb, broken, 'is left out');
  await shot('left-out run with why');

  await wb.page.locator('.notification-toast .monaco-button', { hasText: 'Show Problems' }).first().click();
  const problems = wb.page.locator('.part.panel .markers-panel .monaco-list-row', { hasText: /ux95-broken|bad lines|expected 6 columns|not a number|listed twice/ });
  await wb.waitFor('the bad lines in Problems', async () => (await problems.count()) >= 4);
  await shot('problems every bad line');

  const good = await wb.treeRow(new RegExp(`ux95-${RUN.replace('.', '\\.')}`), { timeout: 60_000 });
  // A run's tooltip is asked for when it shows (resolveTreeItem): its file and every measure.
  const runTip = await tooltipOf(wb, good, /Answers all 300 queries of the split/);
  assert.match(await runTip.first().innerText(), /nDCG@10[\s\S]*0\.\d{4}/);
  await wb.page.mouse.move(700, 300);
  await good.click({ button: 'right' });
  const menu = wb.page.locator('.context-view .monaco-menu');
  await menu.waitFor();
  for (const item of ['Diff with…', 'Set as Baseline', 'Reveal in Explorer', 'Copy Path', 'Delete…']) {
    assert.ok((await menu.locator('.action-label', { hasText: item }).count()) > 0, `context menu offers ${item}`);
  }
  await shot('run context menu');
  await wb.page.keyboard.press('Escape');

  // Open qrels/test.tsv with Quick Open, change the grade of its first judgement through its CodeLens.
  await wb.page.keyboard.press('Control+P');
  await wb.quickInputBox.fill('scifact/qrels/test.tsv');
  await wb.quickRow('test.tsv').click();
  const lenses = wb.page.locator('.monaco-editor .codelens-decoration a', { hasText: 'change grade' });
  await lenses.first().waitFor({ timeout: 60_000 });
  // The lens of the first judgement is the one just above its line (the editor's DOM order is not line order).
  const lineTop = (await wb.page.locator('.monaco-editor .view-line', { hasText: '31715818' }).first().boundingBox()).y;
  const tops = await lenses.evaluateAll((as) => as.map((a) => a.getBoundingClientRect().top));
  const above = tops.map((t, i) => [lineTop - t, i]).filter(([d]) => d > 0).sort((x, y) => x[0] - y[0]);
  await lenses.nth(above[0][1]).click();
  // SciFact's scale is 0/1: the first judgement (1 31715818 1) becomes 0, appended to the annotations file.
  await wb.pick('Grade of document', '0 not relevant');
  const annotations = join(workspace, 'scifact', 'qrels', 'test.annotations.tsv');
  await wb.waitFor('1 31715818 0 in the annotations file', async () => {
    try {
      return readFileSync(annotations, 'utf8').trimEnd().split('\n').at(-1) === '1\t31715818\t0';
    } catch {
      return false;
    }
  });
  const mark = wb.page.locator('.monaco-editor .view-lines', { hasText: /yours: 0 \(was 1\)/ });
  await wb.waitFor('the overridden line marked', async () => {
    // The mark is an after-decoration: its text lives in a generated CSS rule, not in the line's DOM text.
    const css = await wb.page.evaluate(() => [...document.styleSheets].flatMap((s) => { try { return [...s.cssRules].map((r) => r.cssText); } catch { return []; } }).join('\n'));
    return /yours: 0 \(was 1\)/.test(css) || (await mark.count()) > 0;
  }, { timeout: 30_000 });
  await shot('qrels line overridden by your judgement');
  // Hover the line again while waiting: a hover shown before the grade was indexed (or closed by a refresh) stays
  // as it was (every 3 s: the editor shows a hover 300 ms after the mouse rests).
  // On the text itself: the editor shows no hover for the blank past a line's end, where a line's middle may fall.
  const line = wb.page.locator('.monaco-editor .view-line span span', { hasText: '31715818' }).first();
  let probes = 0;
  await wb.waitFor('the hover with the grade and its origin', async () => {
    if ((await wb.page.locator('.monaco-hover', { hasText: /yours, judged/ }).count()) > 0) return true;
    if (probes++ % 12 === 0) {
      await wb.page.mouse.move(0, 0);
      await line.hover();
    }
    return false;
  }, { timeout: 30_000 });
  await shot('qrels hover yours and when');

  // The Judge Holes view, when it has nothing to judge, links to the commands that fill it: the link runs them.
  // (Only when this scenario runs before any other started judging: then the view is still empty.)
  await wb.reset();
  const side = await wb.webview('#start', { timeout: 5_000 }).catch(() => undefined);
  if (side) {
    await side.locator('#start a', { hasText: 'Judge Holes…' }).click();
    await wb.quickInput.filter({ hasText: 'Split of' }).waitFor({ state: 'visible', timeout: 30_000 });
    await shot('judge holes link asks for a split');
    await wb.page.keyboard.press('Escape');
  }
}

/**
 * The tooltip of tree row `row` reading `text`, once shown. It shows after a pause on the row, and a tree refresh
 * under the mouse (the store re-indexing) hides it: move away and back, as a person would.
 */
async function tooltipOf(wb, row, text) {
  const tooltip = wb.page.locator('.workbench-hover, .monaco-hover', { hasText: text });
  await wb.waitFor(`the tooltip ${text}`, async () => {
    if ((await tooltip.count()) > 0) return true;
    await wb.page.mouse.move(700, 300);
    await row.hover();
    await wb.page.waitForTimeout(1500);
    return (await tooltip.count()) > 0;
  }, { timeout: 30_000 });
  return tooltip;
}
