// The Judge sidebar at 1280x800 with the Datasets view beside it, in the dark, light and high-contrast themes:
// the pair and the grade buttons are on screen without scrolling (the grade bar stays at the bottom, a long
// document scrolls inside), and every text the sidebar shows meets WCAG AA contrast (4.5:1) in each theme.
// Screenshots: test-artifacts/e2e/58-judge-sidebar-fit-*.png.
import assert from 'node:assert/strict';
import { lowContrast } from '../contrast.mjs';

export const title = 'Judge sidebar at 1280x800: pair and grade buttons in view; AA contrast in dark, light and high-contrast themes';

const THEMES = ['Dark Modern', 'Light Modern', 'Dark High Contrast', 'Light High Contrast'];

export async function run({ wb, shot }) {
  const viewport = wb.page.viewportSize();
  await wb.page.setViewportSize({ width: 1280, height: 800 });
  try {
    await wb.commandWithPicks('IR Workbench: Judge Holes', [['Split of scifact', 'test']]);
    await wb.openViewContainer('IR Workbench');
    const side = await wb.webview('#grades', { timeout: 60_000 });
    await side.locator('#document').waitFor();
    // The sidebar's webview as the workbench lays it out (boxes are in the window's coordinates): all that
    // must be seen lies inside it and inside the window.
    const view = await (await (await wb.webviewFrame('#grades')).frameElement()).boundingBox();
    assert.ok(view.y + view.height <= 800, `the Judge view lies inside the window: ${JSON.stringify(view)}`);
    for (const selector of ['#progress', '#query', '#document', '#grades vscode-button[data-grade="0"]', '#grades vscode-button[data-grade="1"]', '#skip']) {
      const box = await side.locator(selector).boundingBox();
      assert.ok(box && box.height > 0 && box.y >= view.y && box.y + Math.min(box.height, 20) <= view.y + view.height,
        `${selector} is in view without scrolling: ${JSON.stringify(box)} in ${JSON.stringify(view)}`);
    }
    for (const theme of THEMES) {
      await wb.runCommand('Preferences: Color Theme');
      await wb.choose(theme);
      const kind = /High Contrast/.test(theme) ? (/Light/.test(theme) ? 'vscode-high-contrast-light' : 'vscode-high-contrast') : /Light/.test(theme) ? 'vscode-light' : 'vscode-dark';
      await wb.waitFor(`the sidebar in ${theme}`, async () => (await side.locator('body').getAttribute('class'))?.split(' ').includes(kind));
      await wb.page.waitForTimeout(500); // the theme's variables are applied with the class
      await shot(theme);
      const low = await lowContrast(await wb.webviewFrame('#grades'));
      assert.deepEqual(low, [], `texts below AA contrast in ${theme}`);
    }
  } finally {
    await wb.runCommand('Preferences: Color Theme').then(() => wb.choose('Dark Modern')).catch(() => undefined);
    await wb.page.setViewportSize(viewport);
  }
}
