import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { PAGE_COMMANDS, type PanelIdentity, type ViewName } from '../../protocol/webview';
import { pageHtml } from './page';

/** Webview options for every IR Workbench view: scripts on, local files only from dist/ and media/. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    enableCommandUris: PAGE_COMMANDS,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/**
 * The page of view `name`: dist/webview/<name>.js and media/webview.css, with a fresh nonce and the settings views
 * read; a panel's page also carries what it is of (`panel`), which it keeps for a window reload.
 */
export function viewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, name: ViewName, title: string, panel?: PanelIdentity): string {
  return pageHtml({
    nonce: randomBytes(16).toString('base64'),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${name}.js`)).toString(),
    cssUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview.css')).toString(),
    title,
    settings: { gradeLabels: vscode.workspace.getConfiguration('irWorkbench').get('judging.gradeLabels', {}), ...(panel ? { panel } : {}) },
  });
}
