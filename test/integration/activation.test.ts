// Must run before any suite calls activateExtension(): test files run in name order and this one sorts first.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from './helpers';

suite('Activation', () => {
  test('activates on its own in a workspace holding a BEIR corpus.jsonl', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    // (In an empty workspace it stays inactive: checked by hand when this test was written.)
    await waitFor('activation by workspaceContains:**/corpus.jsonl', () => ext.isActive);
  });
});
