// The webview page: the exact Content-Security-Policy the issue asks for, nothing remote, attributes escaped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, pageHtml } from '../../../../src/extension/webview/page';

test('CSP: nothing by default, scripts by nonce only, styles from the webview and the nonce (the UI toolkit needs it)', () => {
  assert.equal(
    contentSecurityPolicy('N0nce', 'https://x.vscode-cdn.net'),
    "default-src 'none'; script-src 'nonce-N0nce'; style-src https://x.vscode-cdn.net 'nonce-N0nce'; img-src https://x.vscode-cdn.net data:; font-src https://x.vscode-cdn.net",
  );
});

test('page: one script and one stylesheet carrying the nonce, the csp-nonce meta, no other URL; attributes escaped', () => {
  const html = pageHtml({ nonce: 'abc', cspSource: 'https://w', scriptUri: 'https://w/dist/webview/diff.js', cssUri: 'https://w/media/webview.css', title: '<b>"x"&' });
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-abc';/);
  assert.match(html, /<meta property="csp-nonce" content="abc">/);
  assert.match(html, /<script nonce="abc" src="https:\/\/w\/dist\/webview\/diff\.js"><\/script>/);
  assert.match(html, /<link rel="stylesheet" href="https:\/\/w\/media\/webview\.css" nonce="abc">/);
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.deepEqual([...new Set(html.match(/https?:\/\/[^/"' ;]+/g))], ['https://w']);
  assert.match(html, /<title>&#60;b&#62;&#34;x&#34;&#38;<\/title>/);
});
