// What a person does in the VS Code workbench, as playwright-core calls on a code-server page: run a command from
// the palette, answer quick picks, read notifications, the Output panel, tree views and webviews. Scenarios use
// only these, so a workbench DOM change is fixed here once.

const STEP_MS = 30_000;

export class Workbench {
  /** @param page a playwright Page showing the workbench; @param shot (name) => Promise<void>, a screenshot */
  constructor(page, shot) {
    this.page = page;
    this.shot = shot;
    this.quickInput = page.locator('.quick-input-widget');
    this.quickInputBox = this.quickInput.locator('.quick-input-box input');
  }

  /** Waits for the workbench shell and its status bar (the remote extension host is connecting by then). */
  async ready() {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.page.locator('.statusbar-item').first().waitFor({ timeout: 60_000 });
  }

  /**
   * Runs "Category: Title" from the command palette (F1). The palette lists the commands known when it opens,
   * and contributed ones only appear once the extension host has scanned the extensions: reopen until it shows.
   */
  async runCommand(title, { attempts = 30, screenshot = true } = {}) {
    const row = this.quickRow(title);
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('F1');
      await this.quickInputBox.waitFor({ state: 'visible', timeout: STEP_MS });
      try {
        // The palette closes when focus leaves it; seen in CI: a webview taking focus just after F1 closed it
        // before it was typed into. Then F1 again, as a person would.
        await this.quickInputBox.fill(`>${title}`, { timeout: 5_000 });
        await row.waitFor({ timeout: 2_000 });
        break;
      } catch (e) {
        if (attempt >= attempts) throw new Error(`command "${title}" never appeared in the palette`, { cause: e });
        if (await this.quickInputBox.isVisible()) await this.page.keyboard.press('Escape');
      }
    }
    if (screenshot) await this.shot(`palette ${title}`);
    await row.click(); // not Enter: the first row may be another match (e.g. the view's "Focus on … View")
    // The palette gone before the caller looks for the command's own input: its row names the command (seen: a
    // step's title matched in the palette, its placeholder read from the palette).
    // (A command that reloads the window takes the page with it: nothing to wait for.)
    await row.waitFor({ state: 'hidden', timeout: STEP_MS }).catch(() => undefined);
  }

  /**
   * Developer: Reload Window, as a person reloads: the workbench first saves its state (the webviews' view state
   * with it), then the page loads again. A bare page reload may skip that save and bring back an older state.
   */
  async reloadWindow() {
    const loaded = this.page.waitForEvent('load', { timeout: 120_000 });
    await this.runCommand('Developer: Reload Window', { screenshot: false });
    await loaded;
    await this.ready();
  }

  /** The row of the open quick input whose label is exactly `label` (descriptions aside). */
  quickRow(label) {
    const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    return this.quickInput.locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exact }) }).first();
  }

  /**
   * Answers the quick pick titled (or placeholder-ed) `title` by typing `label` into its filter and choosing the
   * row labelled exactly `label`.
   */
  async pick(title, label) {
    await this.quickInput.filter({ hasText: title }).waitFor({ state: 'visible', timeout: STEP_MS });
    // The quick pick may still be setting its items and value when it shows (slow under load): type the filter
    // again until it holds and the row shows. Seen under load: the box held the label but the list stayed
    // unfiltered, or the row went away between shown and clicked; typing it again (every 2 s) filters it.
    const row = this.quickRow(label);
    const open = this.quickInput.filter({ hasText: title });
    let probes = 0;
    // Closed for a second, not for a probe: a step's input can hide and show again as it moves on.
    let closedSince;
    for (let attempt = 1; ; attempt++) {
      await this.waitFor(`${label} shown in ${title}`, async () => {
        if (!(await open.isVisible())) {
          closedSince ??= Date.now();
          if (Date.now() - closedSince > 1_000) throw new PickClosed(title);
          return false;
        }
        closedSince = undefined;
        if ((await this.quickInputBox.inputValue()) !== label || (probes > 0 && probes % 8 === 0)) {
          await this.quickInputBox.fill('');
          await this.quickInputBox.fill(label);
        }
        probes++;
        return row.isVisible();
      });
      if (attempt === 1) await this.shot(`pick ${label}`);
      const clicked = await row.click({ timeout: 5_000 }).then(() => true, (e) => (attempt === 3 ? Promise.reject(e) : false));
      if (clicked) break;
      probes = 8; // type it again at once
    }
    // Picked: the input closes, or (a multi-step input keeps its title from step to step) its next step replaces the row.
    await this.waitFor(`${title} to move on from ${label}`, async () => !(await open.isVisible()) || !(await row.isVisible()), { timeout: STEP_MS });
  }

  /**
   * Answers the open quick pick that has no title (e.g. the colour theme's) by typing `label` into its filter
   * and choosing the row labelled exactly `label`.
   */
  async choose(label) {
    const row = this.quickRow(label);
    await this.waitFor(`${label} shown in the quick pick`, async () => {
      if ((await this.quickInputBox.inputValue()) !== label) await this.quickInputBox.fill(label);
      return row.isVisible();
    });
    await row.click();
    await this.quickInput.waitFor({ state: 'hidden', timeout: STEP_MS });
  }

  /**
   * A command asks which dataset first when the workspace holds several (earlier scenarios add some): answers it
   * with the dataset the next step, "Split of <dataset>", names.
   */
  async datasetIfAsked(nextTitle) {
    const named = nextTitle && /^Split of (.+)$/.exec(nextTitle);
    if (!named) return;
    const next = this.quickInput.filter({ hasText: nextTitle });
    await this.quickInput.filter({ hasText: 'Dataset' }).or(next).first().waitFor({ state: 'visible', timeout: STEP_MS });
    if (!(await next.isVisible())) await this.pick('Dataset', named[1]);
  }

  /**
   * Runs `command` from the palette, then answers its quick picks ([title, label] each). Seen under load: a quick
   * pick closing on its own as it opened (focus taken by something else); a person would run the command again,
   * and so does this, up to three times.
   */
  async commandWithPicks(command, picks) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.runCommand(command);
        await this.datasetIfAsked(picks[0]?.[0]);
        for (const [title, label] of picks) await this.pick(title, label);
        return;
      } catch (e) {
        if (!(e instanceof PickClosed) || attempt === 3) throw e;
        console.log(`      (${e.message}: running ${command} again)`);
      }
    }
  }

  /**
   * Answers an open-file dialog titled `title` with `path`. code-server's dialog is the workbench's "simple" one,
   * a quick input holding a path: type the whole path, then Enter.
   */
  async openFile(title, path) {
    const dialog = this.quickInput.filter({ hasText: title });
    await dialog.waitFor({ state: 'visible', timeout: STEP_MS });
    // The dialog fills in its start folder asynchronously: type once it has, and again if it overwrote the path.
    await this.waitFor('the dialog to show its start folder', async () => (await this.quickInputBox.inputValue()) !== '');
    await this.waitFor(`the dialog to hold ${path}`, async () => {
      if ((await this.quickInputBox.inputValue()) === path) return true;
      await this.quickInputBox.fill(path);
      return false;
    });
    await this.shot(`open ${path.split('/').pop()}`);
    await this.page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden', timeout: STEP_MS });
  }

  /** The text of the first notification toast that matches `pattern` (a RegExp), waiting up to `timeout` ms. */
  async notification(pattern, { timeout = STEP_MS } = {}) {
    const toast = this.page.locator('.notification-toast .notification-list-item-message', { hasText: pattern }).first();
    await toast.waitFor({ timeout });
    return (await toast.textContent()).trim();
  }

  /**
   * The lines the Output panel shows (the channel selected there); Monaco renders spaces as U+00A0, turned back
   * into spaces. Only the lines in view are in the DOM: enough for a channel of a few dozen lines.
   */
  async outputLines() {
    const lines = this.page.locator('.part.panel .output-view .view-lines .view-line');
    await lines.first().waitFor({ timeout: STEP_MS });
    return (await lines.allTextContents()).map((l) => l.replace(/\u00a0/g, ' '));
  }

  /**
   * Polls `probe` (async, truthy when done) every 250 ms for up to `timeout` ms; throws naming `what` and, with
   * `explain` (async, a text), what the page showed at the time.
   */
  async waitFor(what, probe, { timeout = STEP_MS, explain } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) {
        // What the page said meanwhile (a status line, the item shown): an intermittent failure is read from this.
        const seen = explain ? await explain().catch((e) => `(could not read the page: ${e.message})`) : '';
        throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}${seen ? `; the page showed: ${seen}` : ''}`);
      }
      await this.page.waitForTimeout(250);
    }
  }

  /** Opens the activity-bar container `title` (e.g. "IR Workbench") by its icon, unless it is already open. */
  async openViewContainer(title) {
    const tab = this.page.locator(`.activitybar li.action-item:has(a[aria-label^="${title}"])`).first();
    await tab.waitFor({ timeout: STEP_MS });
    if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
    await this.waitFor(`the ${title} container to open`, async () => (await tab.getAttribute('aria-selected')) === 'true');
  }

  /**
   * The visible side-bar tree row whose text (label and description) matches `label`. With `expand`, waits until
   * the row has children (a tree refresh may add them later) and expands it.
   */
  async treeRow(label, { expand = false, timeout = STEP_MS } = {}) {
    const row = this.page.locator('.part.sidebar .monaco-list-row', { hasText: label }).filter({ visible: true }).first();
    await row.waitFor({ timeout });
    if (expand) {
      const state = () => row.getAttribute('aria-expanded');
      await this.waitFor(`${label} to have children`, async () => (await state()) !== null, { timeout });
      if ((await state()) === 'false') await row.click();
      await this.waitFor(`${label} to expand`, async () => (await state()) === 'true');
    }
    return row;
  }

  /** Clicks the inline action `title` (its hover icon, e.g. "Show Results") of a tree row from treeRow(). */
  async treeAction(row, title) {
    await row.hover();
    const action = row.locator(`.actions .action-label[aria-label^="${title}"]`).first();
    await action.waitFor({ timeout: STEP_MS });
    await action.click();
  }

  /**
   * The visible webview (an editor or a view) whose page holds `selector`: <iframe class="webview"> (the host
   * page) holds <iframe id="active-frame"> with the extension's html; several may be visible at once (a panel
   * and the sidebar's view) and carry no title, so they are told apart by content. Returns a FrameLocator that
   * keeps pointing at that webview.
   */
  async webview(selector, { timeout = STEP_MS } = {}) {
    const frames = this.page.locator('iframe.webview').filter({ visible: true });
    const inner = (frame) => frame.contentFrame().locator('#active-frame').contentFrame();
    return this.waitFor(`a webview showing ${selector}`, async () => {
      for (let i = 0, n = await frames.count(); i < n; i++) {
        if ((await inner(frames.nth(i)).locator(selector).count()) === 0) continue;
        // Pin it by its unique name: the order of the visible webviews changes as others open.
        const name = await frames.nth(i).getAttribute('name');
        return inner(this.page.locator(`iframe.webview[name="${name}"]`));
      }
      return undefined;
    }, { timeout });
  }

  /**
   * The page of the visible webview holding `selector` as a playwright Frame (for evaluate(), which a
   * FrameLocator lacks): see webview().
   */
  async webviewFrame(selector, { timeout = STEP_MS } = {}) {
    const frames = this.page.locator('iframe.webview').filter({ visible: true });
    return this.waitFor(`a webview frame showing ${selector}`, async () => {
      for (const el of await frames.all()) {
        const outer = await (await el.elementHandle())?.contentFrame();
        const active = await (await outer?.locator('#active-frame').elementHandle())?.contentFrame();
        if (active && (await active.locator(selector).count()) > 0) return active;
      }
      return undefined;
    }, { timeout });
  }

  /**
   * Closes editors, panels' focus and any open quick input, and clears the Datasets view's selection (commands
   * take their split from it): a scenario starts from a quiet workbench.
   */
  async reset() {
    await this.page.keyboard.press('Escape');
    await this.runCommand('View: Close All Editors', { screenshot: false });
    await this.clearTreeSelection();
  }

  /** Deselects the selected row of the sidebar's trees: Ctrl+click on it, then Escape in the list if it stays. */
  async clearTreeSelection() {
    const selected = this.page.locator('.part.sidebar .monaco-list-row.selected').filter({ visible: true });
    if ((await selected.count()) === 0) return;
    await selected.first().click({ modifiers: ['Control'] });
    if ((await selected.count()) > 0) await this.page.keyboard.press('Escape');
  }
}

/** A quick pick that closed before it was answered. */
class PickClosed extends Error {
  constructor(title) {
    super(`the quick pick "${title}" closed before it was answered`);
  }
}
