// The panels a reader works in, at 1280x800 with the sidebar open, in the light, dark and high-contrast themes
// (screenshots kept as artifacts, one name per view and theme): results (significance coloured by the sign of
// Δ, aligned decimals, Δ against the baseline, box plot axis), the run diff (query text in the list, the
// detail beside it, following the filters), the holes panel and the judging sidebar. In each theme and view,
// every text reaches WCAG AA contrast and nothing is wider than its box or the window (test/e2e/fit.mjs). (The
// chart's live re-theme is checked in test/webview/reading.test.ts.)
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkFit } from '../fit.mjs';

export const title = 'Results, diff, holes and judging at 1280x800 beside the sidebar: light, dark and high contrast fit and read';

const RUNS = ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant', 'vsm-tfidf.titles_fulltext.omar-khattab'];
// Each theme as the person picks it (Preferences: Color Theme), with the class the workbench then carries.
// IRW_E2E_THEME=dark (or light, hc) takes one.
const THEMES = [['light', 'Light Modern', 'vs'], ['dark', 'Dark Modern', 'vs-dark'], ['hc', 'Dark High Contrast', 'hc-black']]
  .filter(([tag]) => !process.env.IRW_E2E_THEME || tag === process.env.IRW_E2E_THEME);

/** Switches the colour theme with Preferences: Color Theme, as a person does, and waits until it applies. */
async function setTheme(wb, theme, cls) {
  if ((await wb.page.locator(`.monaco-workbench.${cls}`).count()) > 0) return;
  await wb.runCommand('Preferences: Color Theme', { screenshot: false });
  // The picker's title is its input's placeholder here ("Select Color Theme (detect system color mode
  // disabled)"), which a text match does not see: type the theme's name as a person does, and take it.
  await wb.page.locator('.quick-input-widget input').filter({ visible: true }).waitFor();
  await wb.page.keyboard.type(theme);
  await wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: theme }).first().waitFor();
  await wb.page.keyboard.press('Enter');
  await wb.waitFor(`the ${theme} theme`, async () => (await wb.page.locator(`.monaco-workbench.${cls}`).count()) > 0, { timeout: 30_000 });
}

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  // Under names of their own: earlier scenarios leave the same runs in other folders, and twin names make the
  // run pickers show two rows per run.
  for (const r of RUNS) copyFileSync(join(sharedRuns, 'scifact', `${r}.trec`), join(runs, `ux-${r}.trec`));
  await wb.page.setViewportSize({ width: 1280, height: 800 });

  for (const [tag, theme, cls] of THEMES) {
    await setTheme(wb, theme, cls);
    await wb.reset();
    // The sidebar open at its default width: the panels share the window with it. The secondary side bar (the
    // workbench opens it, empty, for its chat) is closed, as a person without chat has it.
    await wb.openViewContainer('IR Workbench');
    if (await wb.page.locator('.part.auxiliarybar').isVisible()) {
      await wb.runCommand('View: Toggle Secondary Side Bar Visibility', { screenshot: false });
      await wb.waitFor('the secondary side bar closed', async () => !(await wb.page.locator('.part.auxiliarybar').isVisible()));
    }

    await wb.commandWithPicks('IR Workbench: Show Results', [['Split of scifact', 'test']]);
    const results = await wb.webview('#results');
    await results.locator('#significance').waitFor({ timeout: 60_000 });
    await results.locator('#delta-plot').waitFor();
    await shot(`${tag} results`);
    await checkFit(results, `${tag} theme, Results`);
    await results.locator('#lengths').scrollIntoViewIfNeeded();
    await shot(`${tag} results box plot`);

    // From the Results panel, the Diff asks for nothing more: the split and the pair come from the panel.
    await results.locator('#results button[data-action="diff"]').first().click();
    const diff = await wb.webview('#deltas');
    const first = diff.locator('#queries tr').first();
    await first.waitFor({ timeout: 30_000 });
    assert.ok((await first.locator('td.query-text').textContent()).length > 10, 'the list shows query text');
    await first.click();
    await diff.locator('#list-a .doc').first().waitFor({ timeout: 30_000 });
    await shot(`${tag} diff selected query`);
    await checkFit(diff, `${tag} theme, Diff`);
    await diff.locator('#filters').getByText(/^losses/).click();
    await diff.locator('#detail-hidden').waitFor();
    await shot(`${tag} diff filter hides the selected query`);

    // With a panel of the split active, Show Holes and Judge Holes ask for no split.
    await wb.runCommand('IR Workbench: Show Holes');
    const holes = await wb.webview('#holes');
    await holes.locator('#queue tr[data-pair]').first().waitFor({ timeout: 30_000 });
    await shot(`${tag} holes`);
    await checkFit(holes, `${tag} theme, Holes`);

    await wb.runCommand('IR Workbench: Judge Holes');
    const side = await wb.webview('#grades', { timeout: 60_000 });
    await side.locator('#progress').waitFor();
    assert.match(await side.locator('#grades').textContent(), /0 not relevant.*1 relevant/);
    await shot(`${tag} judging sidebar`);
    await checkFit(side, `${tag} theme, Judge`);
  }
}
