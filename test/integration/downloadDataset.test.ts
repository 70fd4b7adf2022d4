// "Download BEIR Dataset…" in the extension host, against a local HTTP server serving a zip this test builds.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { md5, startServer, zipFolder, type ServedFile } from '../helpers/datasetServer';
import { activateExtension, manifest } from './helpers';

suite('Download BEIR Dataset', () => {
  let tmp: string;
  let zip: Buffer;
  const files = new Map<string, ServedFile>();
  let server: Awaited<ReturnType<typeof startServer>>;

  suiteSetup(async () => {
    const ext = await activateExtension();
    assert.ok(manifest(ext).contributes.commands.some((c) => c.command === 'irWorkbench.downloadDataset' && c.title === 'Download BEIR Dataset…'));
    tmp = mkdtempSync(join(tmpdir(), 'irw-download-'));
    const source = join(tmp, 'source');
    mkdirSync(join(source, 'qrels'), { recursive: true });
    writeFileSync(join(source, 'corpus.jsonl'), '{"_id": "d1", "title": "t", "text": "one"}\n{"_id": "d2", "title": "t", "text": "two"}\n');
    writeFileSync(join(source, 'queries.jsonl'), '{"_id": "q1", "text": "one"}\n');
    writeFileSync(join(source, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n');
    zip = await zipFolder(source, 'scifact');
    files.set('/beir/scifact.zip', { body: zip });
    server = await startServer(files);
  });
  suiteTeardown(async () => {
    await server?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  test('downloads, checks the md5 and unpacks; arguments skip the pickers', async () => {
    const dir = join(tmp, 'ok');
    const folder = await vscode.commands.executeCommand<string | undefined>('irWorkbench.downloadDataset', { name: 'scifact', dir, baseUrl: `${server.url}/beir`, md5: md5(zip) });
    assert.equal(folder, join(dir, 'scifact'));
    assert.match(readFileSync(join(dir, 'scifact', 'qrels', 'test.tsv'), 'utf8'), /q1\td1\t1/);
  });

  test('a wrong checksum leaves no dataset and resolves to undefined (the error is shown)', async () => {
    const dir = join(tmp, 'bad');
    const folder = await vscode.commands.executeCommand<string | undefined>('irWorkbench.downloadDataset', { name: 'scifact', dir, baseUrl: `${server.url}/beir`, md5: '0'.repeat(32) });
    assert.equal(folder, undefined);
    assert.ok(!existsSync(join(dir, 'scifact')));
  });
});
