// The extension loads in a real VS Code extension host, activates, and contributes its command and settings.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension, datasetUri, manifest } from './helpers';

const RUN_BEIR_EVAL = 'irWorkbench.runBeirEval';

suite('IR Workbench extension', () => {
  let ext: vscode.Extension<unknown>;

  suiteSetup(async () => {
    ext = await activateExtension();
  });

  test('is present and active', () => {
    assert.equal(ext.isActive, true);
  });

  test(`registers ${RUN_BEIR_EVAL}`, async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes(RUN_BEIR_EVAL), `${RUN_BEIR_EVAL} missing from ${commands.length} registered commands`);
  });

  test('contributes "Run BEIR Eval" in the IR Workbench category', () => {
    const contributed = manifest(ext).contributes.commands.find((c) => c.command === RUN_BEIR_EVAL);
    assert.deepEqual(
      { title: contributed?.title, category: contributed?.category },
      { title: 'Run BEIR Eval', category: 'IR Workbench' },
    );
  });

  test('every irWorkbench.* setting reads back as its contributed default', () => {
    const properties = Object.entries(manifest(ext).contributes.configuration.properties);
    assert.ok(properties.length > 0, 'the manifest contributes no settings');
    const config = vscode.workspace.getConfiguration('irWorkbench');
    for (const [key, schema] of properties) {
      assert.ok(key.startsWith('irWorkbench.'), `setting ${key} is outside the irWorkbench.* namespace`);
      const name = key.slice('irWorkbench.'.length);
      assert.deepEqual(config.inspect(name)?.defaultValue, schema.default, `default of ${key}`);
      assert.deepEqual(config.get(name), schema.default, `value of ${key}`);
    }
  });

  test('a workspace setting overrides a default and is read back', async () => {
    const config = () => vscode.workspace.getConfiguration('irWorkbench');
    await config().update('runs.folder', 'integration-runs', vscode.ConfigurationTarget.Workspace);
    try {
      assert.equal(config().get('runs.folder'), 'integration-runs');
    } finally {
      await config().update('runs.folder', undefined, vscode.ConfigurationTarget.Workspace);
    }
    assert.equal(config().inspect('runs.folder')?.workspaceValue, undefined);
  });
});

suite('Fixture workspace', () => {
  test('holds SciFact in BEIR layout', async () => {
    for (const file of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) {
      const stat = await vscode.workspace.fs.stat(vscode.Uri.joinPath(datasetUri('scifact'), file));
      assert.ok(stat.size > 0, `scifact/${file} is empty`);
    }
  });

  test('the corpus is found by the workspace search behind workspaceContains:**/corpus.jsonl', async () => {
    const found = await vscode.workspace.findFiles('**/corpus.jsonl');
    assert.deepEqual(
      found.map((u) => vscode.workspace.asRelativePath(u)),
      ['scifact/corpus.jsonl'],
    );
  });
});
