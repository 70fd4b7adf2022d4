// The e2e suite's contrast check (test/e2e/contrast.mjs) on pages of known colours: it must find the issue's
// light-theme "settled" (#73C991 on white, 2.0:1), through translucent layers and inside the UI toolkit's
// shadow roots, and pass what meets WCAG AA, or the themes' checks that rely on it would pass anything.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch } from './harness';

let browser: Browser;
before(async () => (browser = await launch()));
after(() => browser?.close());

test('contrast check: finds text below AA (translucent layers blended, shadow roots read), passes the rest', async () => {
  const { lowContrast } = await import('../e2e/contrast.mjs');
  const page = await browser.newPage();
  await page.setContent(`<style>input::placeholder { color: #bbb; }</style><body style="background:#fff;color:#000">
    <p id="ok">black on white</p>
    <p style="color:#73C991">settled</p>
    <p style="color:#767676">grey 4.54</p>
    <p style="color:#777">grey 4.48</p>
    <div style="background:rgba(0,0,0,0.5)"><span style="color:#444">dim on half black</span></div>
    <p style="color:#999;font-size:24px">large grey 2.85</p>
    <p style="color:#949494;font-size:24px">large grey 3.03</p>
    <p style="display:none;color:#fff">hidden</p>
    <input placeholder="pale placeholder" style="color:#000">
    <x-shadowed>slotted</x-shadowed>
  </body>`);
  await page.evaluate(() => {
    customElements.define('x-shadowed', class extends HTMLElement {
      constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<span style="color:#ccc"><slot></slot></span><b style="color:#ddd">inner</b>';
      }
    });
  });
  const low = await lowContrast(page.mainFrame());
  assert.deepEqual(low.map((l) => l.text).sort(), ['dim on half black', 'grey 4.48', 'inner', 'large grey 2.85', 'pale placeholder', 'settled', 'slotted']);
  assert.equal(low.find((l) => l.text === 'settled')!.ratio, 2.0);
  assert.equal(low.find((l) => l.text === 'large grey 2.85')!.needed, 3);
  await page.close();
});
