// Loads a built webview bundle (dist/webview/<name>.js) in headless Chromium inside the exact page the
// extension serves (src/extension/webview/page.ts, same Content-Security-Policy), with a stub of
// acquireVsCodeApi that records what the view posts. One browser per test file; a fresh page per view.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { SplitState } from '../../src/core/split/state';
import { pageHtml } from '../../src/extension/webview/page';
import { SentStates } from '../../src/extension/webview/states';
import { WEBVIEW_PROTOCOL_VERSION, type ViewEvents, type ViewName } from '../../src/protocol/webview';
import { splitWithRuns } from '../helpers/splitState';
import { SHARED } from '../unit/support/paths';

const ROOT = join(__dirname, '../..');
const ORIGIN = 'https://irw.test';

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.IRW_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface Posted {
  v: number;
  type: string;
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  /** When it was posted (epoch milliseconds, as test/e2e/timings.mjs records what a page showed). */
  t: number;
}

export interface ViewPage {
  page: Page;
  /** Sends a host event to the view. */
  event<V extends ViewName, K extends keyof ViewEvents[V] & string>(view: V, kind: K, payload: ViewEvents[V][K]): Promise<void>;
  /** Messages the view posted so far. */
  posted(): Promise<Posted[]>;
  /** Waits for the next request of `method` and answers it. */
  answer(method: string, result: unknown, ok?: boolean): Promise<Posted>;
  /** CSP violations and page errors seen so far. */
  problems(): Promise<string[]>;
}

const STUB = `
  window.__posted = [];
  window.__csp = [];
  window.__state = undefined;
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ': ' + e.blockedURI));
  let acquired = false;
  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage(m) { window.__posted.push({ ...JSON.parse(JSON.stringify(m)), t: performance.timeOrigin + performance.now() }); },
      getState() { return window.__state; },
      setState(s) { window.__state = s; },
    };
  };
`;

export interface ViewOptions {
  /** The settings the host puts in the page (src/extension/webview/html.ts). */
  settings?: object;
  viewport?: { width: number; height: number };
  /** The view state VS Code kept for the page (getState()), as after a window reload. */
  state?: object;
}

export async function openView(browser: Browser, name: ViewName, opts: ViewOptions = {}): Promise<ViewPage> {
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1200, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') {
      const html = pageHtml({ nonce: 'dGVzdG5vbmNl', cspSource: ORIGIN, scriptUri: `${ORIGIN}/dist/webview/${name}.js`, cssUri: `${ORIGIN}/media/webview.css`, title: name, settings: opts.settings });
      return route.fulfill({ contentType: 'text/html', body: html });
    }
    const file = join(ROOT, path);
    return route.fulfill({ contentType: path.endsWith('.css') ? 'text/css' : 'text/javascript', body: readFileSync(file) });
  });
  // A string, not a function: tsx would wrap a function's inner functions in its __name helper, absent in the page.
  await page.addInitScript({ content: STUB });
  if (opts.state) await page.addInitScript({ content: `window.__state = ${JSON.stringify(opts.state)};` });
  await page.goto(`${ORIGIN}/`);
  const posted = () => page.evaluate(() => (window as unknown as { __posted: Posted[] }).__posted);
  await until(async () => (await posted()).some((m) => m.type === 'ready'), () => `the ${name} view never said ready: ${errors.join('; ')}`);
  const answered = new Map<string, number>();
  // As the host sends them: a kind's first state whole, each next one as a patch of the one before (none when
  // it is the same).
  const states = new SentStates();
  return {
    page,
    event: async (_view, kind, payload) => {
      const m = states.message(kind, payload);
      if (m) await page.evaluate((msg) => window.postMessage(msg, '*'), m);
    },
    posted,
    answer: async (method, result, ok = true) => {
      const skip = answered.get(method) ?? 0;
      let req: Posted | undefined;
      await until(async () => (req = (await posted()).filter((p) => p.type === 'request' && p.method === method)[skip]) !== undefined, () => `no ${method} request`);
      answered.set(method, skip + 1);
      if (!req) throw new Error(`no ${method} request`);
      const reply = ok
        ? { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: req.id, ok: true, result }
        : { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: req.id, ok: false, error: String(result) };
      await page.evaluate((m) => window.postMessage(m, '*'), reply);
      return req;
    },
    problems: async () => [...errors, ...(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp))],
  };
}

/**
 * Polls `check` (page.waitForFunction compiles its predicate in the page, which the strict CSP forbids).
 */
export async function until(check: () => Promise<boolean>, what: () => string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A string that would run script if any view put it into the page as HTML. */
export const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>&amp; "quotes" \u202e';

export async function pwned(page: Page): Promise<unknown> {
  return page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned);
}

/**
 * A headless browser and the SciFact test split with `runs`, opened as the engine opens it, for the tests of one
 * file: set up before them, the browser closed after. A hook of the file that needs the session awaits `ready`
 * (root-level hooks are not run one after the other).
 */
export function scifactFixture(runs: readonly string[]): { browser: Browser; split: SplitState; ready: Promise<SplitState> } {
  let opened: (s: SplitState) => void = () => undefined;
  const fx = { ready: new Promise<SplitState>((resolve) => (opened = resolve)) } as { browser: Browser; split: SplitState; ready: Promise<SplitState> };
  before(async () => {
    fx.browser = await launch();
    fx.split = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', runs);
    opened(fx.split);
  });
  after(() => fx.browser?.close());
  return fx;
}

export interface Work {
  /** Elements the page created (document.createElement). */
  created: number;
  /** Redraws of each chart counted (chart.js update()), by its canvas id. */
  draws: Record<string, number>;
  /** Elements the page compared in script to update them in place (morph() asks each whether it is data-own). */
  walked: number;
}

/**
 * Counts from the page's next quiet frame what it does to show an update: the elements it creates, those it
 * compares in script, and the redraws of the charts on the canvases `charts` (ids). Not from now: a chart the
 * last render resized redraws itself two frames later (chart.js: its ResizeObserver, then requestAnimationFrame),
 * which is that render's work, not the next one's (CI counted one such redraw against a judgement). A string,
 * not a function (see STUB). Returns the reader of the counts.
 */
export async function countWork(page: Page, charts: string[] = []): Promise<() => Promise<Work>> {
  await page.evaluate(`(async () => {
    for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
    const work = { created: 0, draws: {}, walked: 0 };
    window.__work = work;
    const create = document.createElement;
    document.createElement = function (...a) { work.created++; return create.apply(document, a); };
    const has = Element.prototype.hasAttribute;
    Element.prototype.hasAttribute = function (name) { if (name === 'data-own') work.walked++; return has.call(this, name); };
    for (const id of ${JSON.stringify(charts)}) {
      const chart = document.getElementById(id).irwChart;
      const update = chart.update;
      work.draws[id] = 0;
      chart.update = function (...a) { work.draws[id]++; return update.apply(chart, a); };
    }
  })()`);
  return () => page.evaluate('({ ...window.__work })') as Promise<Work>;
}
