// Exports in the extension host (dialog and message stubbed; the helper and this suite share `vscode`): the
// save dialog starts in the workspace's results/ folder, the folder is made on save, and the "Saved" message
// offers Open and Reveal, which open the file and reveal it in the Explorer.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { saveExport } from '../../src/extension/ui/saveExport';
import { datasetUri, restoreStubs, stub, waitFor, workspaceRoot } from './helpers';

suite('Exports', () => {
  teardown(async () => {
    restoreStubs();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  for (const action of ['Open', 'Reveal']) {
    test(`save goes to results/ by default; "Saved" offers Open and Reveal (${action})`, async () => {
      const results = join(workspaceRoot().fsPath, 'results');
      rmSync(results, { recursive: true, force: true });
      let defaultUri: vscode.Uri | undefined;
      let existed = false;
      stub(vscode.window, 'showSaveDialog', (o: vscode.SaveDialogOptions) => {
        defaultUri = o.defaultUri;
        existed = existsSync(results);
        return Promise.resolve(o.defaultUri);
      });
      const messages: { message: string; items: string[] }[] = [];
      stub(vscode.window, 'showInformationMessage', (message: string, ...items: string[]) => {
        messages.push({ message, items });
        return Promise.resolve(action);
      });
      const revealed: vscode.Uri[] = [];
      const execute = vscode.commands.executeCommand;
      stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
        if (id === 'revealInExplorer') revealed.push(rest[0] as vscode.Uri);
        return execute(id, ...rest);
      });
      const path = await saveExport({ fileName: 'scifact.test.md', fallbackDir: datasetUri('scifact').fsPath, filters: { markdown: ['md'] }, title: 'Export', content: () => Promise.resolve('| a |\n') });
      assert.equal(defaultUri?.fsPath, join(results, 'scifact.test.md'));
      assert.ok(existed, 'results/ exists when the dialog opens in it');
      assert.equal(path, join(results, 'scifact.test.md'));
      assert.ok(existsSync(path!));
      assert.equal(readFileSync(path!, 'utf8'), '| a |\n');
      assert.deepEqual(messages[0].items, ['Open', 'Reveal']);
      assert.match(messages[0].message, /saved scifact\.test\.md/);
      if (action === 'Open') await waitFor('the export opened', () => vscode.window.activeTextEditor?.document.uri.fsPath === path);
      else assert.equal((await waitFor('reveal', () => revealed[0]))?.fsPath, path);
    });
  }

  test('a cancelled export leaves no empty results/ behind', async () => {
    const results = join(workspaceRoot().fsPath, 'results');
    rmSync(results, { recursive: true, force: true });
    stub(vscode.window, 'showSaveDialog', () => Promise.resolve(undefined));
    const path = await saveExport({ fileName: 'x.md', fallbackDir: datasetUri('scifact').fsPath, filters: {}, title: 'Export', content: () => Promise.resolve('') });
    assert.equal(path, null);
    assert.ok(!existsSync(results));
  });
});
