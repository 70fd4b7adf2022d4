// The Datasets view on a workspace holding an MS MARCO-style folder (collection.tsv, queries.<split>.tsv,
// qrels.<split>.tsv): the store discovers it as `irw run --dataset` reads it, with its splits.
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { IrWorkbenchApi } from '../../src/extension/extension';
import { findDatasets } from '../../src/extension/datasets';
import { writeMsmarcoStyle } from '../helpers/trecStyleDatasets';
import { activateExtension, waitFor, workspaceRoot } from './helpers';

suite('Datasets view: MS MARCO/TREC-style folders', () => {
  let api: IrWorkbenchApi;
  let dir: string;

  suiteSetup(async () => {
    api = (await activateExtension()).exports as IrWorkbenchApi;
    dir = join(workspaceRoot().fsPath, 'msmarco-passage');
  });
  suiteTeardown(async () => {
    rmSync(dir, { recursive: true, force: true });
    await vscode.commands.executeCommand('irWorkbench.reindexWorkspace');
  });

  test('a folder written into the workspace appears in the Datasets tree with its splits (through the file watchers)', async () => {
    writeMsmarcoStyle(dir);
    mkdirSync(join(dir, 'qrels'));
    writeFileSync(join(dir, 'queries.extra.tsv'), '300\tpower plants\n');
    writeFileSync(join(dir, 'qrels', 'extra.txt'), '300 0 3 1\n');
    // train has queries but no qrels: not a split; dev.small is MS MARCO's name for its small dev set.
    const expected = {
      name: 'msmarco-passage',
      docCount: 6,
      queryCount: 4,
      splits: [['dev', join(dir, 'qrels.dev.tsv'), 3], ['dev.small', join(dir, 'qrels.dev.small.tsv'), 2], ['extra', join(dir, 'qrels', 'extra.txt'), 1]],
    };
    const shown = () => {
      const node = api.datasets().find((d) => d.dir === dir);
      return node && { name: node.name, docCount: node.docCount, queryCount: node.queryCount, splits: node.splits.map((s) => [s.split, s.qrelsPath, s.qrelsQueries]) };
    };
    // The folder may first be shown as a pass found it halfway through the writes above (the engine's thread scans
    // while this one writes); the pass its creation starts then shows all of it.
    await waitFor('msmarco-passage in the Datasets tree with every file written', () => JSON.stringify(shown()) === JSON.stringify(expected), 30_000).catch((e: Error) => {
      assert.deepEqual(shown(), expected, e.message);
    });
  });

  test('a judgement added to a TREC qrels file in qrels/ is indexed (its own watcher)', async () => {
    // The folder is new, and code-server's watcher has missed events inside dataset folders created after it
    // started: qrels/ has a watcher of its own from the update after it exists (folderWatchers.ts), so one write
    // is seen.
    const count = () => api.datasets().find((d) => d.dir === dir)?.splits.find((s) => s.split === 'extra')?.qrelsCount;
    writeFileSync(join(dir, 'qrels', 'extra.txt'), '300 0 3 1\n300 0 0 1\n');
    await waitFor('the new judgement in the tree', () => count() === 2, 30_000);
  });

  test('Run BEIR Eval offers it too (the workspace search looks for every corpus file name)', async () => {
    const found = await findDatasets();
    assert.deepEqual(found.find((d) => d.path === dir), { path: dir, name: 'msmarco-passage', splits: ['dev', 'dev.small', 'extra'] });
  });
});
