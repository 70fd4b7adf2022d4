/**
 * The HTML of a webview page, apart from VS Code (so the webview tests load exactly this page): one script
 * and one stylesheet, nothing remote. The Content-Security-Policy allows only this page's nonce for scripts;
 * the UI toolkit also needs the nonce for the styles it injects (style-src and the csp-nonce meta), else it
 * logs CSP errors and loses focus rings.
 */
export interface PageParts {
  nonce: string;
  /** webview.cspSource: where the page's own resources come from. */
  cspSource: string;
  scriptUri: string;
  cssUri: string;
  title: string;
  /** Settings the views read (webview/components/settings.ts), as JSON in a <meta>; not code, so no nonce. */
  settings?: object;
}

export function contentSecurityPolicy(nonce: string, cspSource: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

/** Escapes text for a double-quoted attribute or element content (the CSP's quotes stay readable). */
const attr = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function pageHtml(p: PageParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(p.nonce, p.cspSource))}">
<meta property="csp-nonce" content="${attr(p.nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="irw-settings" content="${attr(JSON.stringify(p.settings ?? {}))}">
<link rel="stylesheet" href="${attr(p.cssUri)}" nonce="${attr(p.nonce)}">
<title>${attr(p.title)}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${attr(p.nonce)}" src="${attr(p.scriptUri)}"></script>
</body>
</html>`;
}
