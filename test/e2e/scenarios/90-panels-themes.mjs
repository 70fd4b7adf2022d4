// The panels a reader works in, at 1280x800 in the dark and the light theme (screenshots kept as artifacts):
// results (significance coloured by the sign of Δ, aligned decimals, box plot axis), the run diff (query text
// in the list, the selected query marked in the chart, the detail pane following the filters), the holes panel
// and the judging sidebar (grade labels, query terms marked, the title set apart). (The chart's live re-theme
// is checked in test/webview/reading.test.ts.)
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Results, diff, holes and judging at 1280x800, dark and light';

const RUNS = ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant', 'vsm-tfidf.titles_fulltext.omar-khattab'];
// One theme per run: code-server applies the first change of the colour theme in the settings file live, a
// second one in the same session not reliably. The default run takes the light theme the workbench starts in;
// IRW_E2E_THEME=dark takes the dark one.
const THEMES = [['light', 'Light Modern', 'vs'], ['dark', 'Dark Modern', 'vs-dark']].filter(([tag]) => tag === (process.env.IRW_E2E_THEME ?? 'light'));

/**
 * Switches the colour theme as the Settings editor does: `workbench.colorTheme` (a theme id) in the user
 * settings file, which the workbench watches and applies live.
 */
async function setTheme(wb, logs, theme, cls) {
  if ((await wb.page.locator(`.monaco-workbench.${cls}`).count()) > 0) return;
  const file = join(logs, '..', 'User', 'settings.json');
  const settings = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8') || '{}') : {};
  writeFileSync(file, JSON.stringify({ ...settings, 'workbench.colorTheme': theme }, null, 2));
  await wb.waitFor(`the ${theme} theme`, async () => (await wb.page.locator(`.monaco-workbench.${cls}`).count()) > 0, { timeout: 30_000 });
}

export async function run({ wb, shot, workspace, sharedRuns, logs }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  // Under names of their own: earlier scenarios leave the same runs in other folders, and twin names make the
  // run pickers show two rows per run.
  for (const r of RUNS) copyFileSync(join(sharedRuns, 'scifact', `${r}.trec`), join(runs, `ux-${r}.trec`));
  await wb.page.setViewportSize({ width: 1280, height: 800 });

  for (const [tag, theme, cls] of THEMES) {
    await setTheme(wb, logs, theme, cls);
    await wb.reset();

    await wb.commandWithPicks('IR Workbench: Show Results', [['Split of scifact', 'test']]);
    const results = await wb.webview('#results');
    await results.locator('#significance').waitFor({ timeout: 60_000 });
    await shot(`${tag} results`);
    await results.locator('#lengths').scrollIntoViewIfNeeded();
    await shot(`${tag} results box plot`);

    await wb.commandWithPicks('IR Workbench: Show Run Diff', [
      ['Split of scifact', 'test'],
      ['Run diff: run a', `ux-${RUNS[0]}`],
      ['Run diff: run b', `ux-${RUNS[1]}`],
    ]);
    const diff = await wb.webview('#deltas');
    const first = diff.locator('#queries tr').first();
    await first.waitFor({ timeout: 30_000 });
    assert.ok((await first.locator('td.query-text').textContent()).length > 10, 'the list shows query text');
    await first.click();
    await diff.locator('#list-a .doc').first().waitFor({ timeout: 30_000 });
    await shot(`${tag} diff selected query`);
    await diff.locator('#filters').getByText(/^losses/).click();
    await diff.locator('#detail-hidden').waitFor();
    await shot(`${tag} diff filter hides the selected query`);

    await wb.commandWithPicks('IR Workbench: Show Holes', [['Split of scifact', 'test']]);
    const holes = await wb.webview('#holes');
    await holes.locator('#queue tr[data-pair]').first().waitFor({ timeout: 30_000 });
    await shot(`${tag} holes`);

    await wb.commandWithPicks('IR Workbench: Judge Holes', [['Split of scifact', 'test']]);
    const side = await wb.webview('#grades', { timeout: 60_000 });
    await side.locator('#progress').waitFor();
    assert.match(await side.locator('#grades').textContent(), /0 not relevant.*1 relevant/);
    await shot(`${tag} judging sidebar`);
  }
}
