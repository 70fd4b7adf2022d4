// irw datasets get under faults (issue 28 items 2, 9, 10; issue 25 item 11): the user's files survive --force, a
// server that stalls is given up on with the part kept, bad archives and clashes are errors naming the file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as yazl from 'yazl';
import { isDatasetError } from '../../../../src/core/datasets/errors';
import { getDataset } from '../../../../src/core/datasets/get';
import { md5, startServer, zipFolder, type ServedFile } from '../../../helpers/datasetServer';
import { writeSyntheticBeir } from '../../../helpers/syntheticBeir';
import { REPO, requireBuiltCli } from '../../support/paths';

/** A zip of the given entries (name -> content), names as given (yazl checks them, so odd ones are patched after). */
function zipOf(entries: [string, string][]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of entries) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

function irw(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [requireBuiltCli(), ...args], { cwd: REPO, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('datasets get: faults', () => {
  let tmp: string;
  let source: string;
  let zip: Buffer;
  const files = new Map<string, ServedFile>();
  let server: Awaited<ReturnType<typeof startServer>>;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'irw-get-faults-'));
    source = join(tmp, 'source');
    writeSyntheticBeir(source, { docs: 300, queries: 10, vocabulary: 1500, seed: 5 });
    zip = await zipFolder(source, 'scifact');
    files.set('/ok/scifact.zip', { body: zip });
    server = await startServer(files);
  });
  after(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  const get = (dir: string, extra: Partial<Parameters<typeof getDataset>[0]> = {}) => getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/ok`, md5: md5(zip), ...extra });

  it("--force replaces BEIR's files only: the user's judgements, runs and notes in the folder are kept", async () => {
    const dir = join(tmp, 'force');
    const { folder } = await get(dir);
    const mine = {
      'qrels/test.annotations.tsv': 'query-id\tcorpus-id\tscore\nq1\td9\t2\n',
      'qrels/test.annotations.meta.jsonl': '{"query":"q1","doc":"d9","grade":2}\n',
      'runs/bm25.trec': 'q1 Q0 d1 1 1.0 mine\n',
      'notes.md': 'my notes',
    };
    for (const [f, text] of Object.entries(mine)) {
      mkdirSync(join(folder, f, '..'), { recursive: true });
      writeFileSync(join(folder, f), text);
    }
    writeFileSync(join(folder, 'corpus.jsonl'), 'damaged'); // what --force is for
    const r = await get(dir, { force: true });
    assert.equal(r.downloaded, true);
    for (const [f, text] of Object.entries(mine)) assert.equal(readFileSync(join(folder, f), 'utf8'), text, f);
    assert.ok(readFileSync(join(folder, 'corpus.jsonl')).equals(readFileSync(join(source, 'corpus.jsonl'))), 'the damaged corpus is replaced');
    assert.deepEqual(readdirSync(dir).sort(), ['scifact'], 'no zip, staging or lock left');
  });

  it('--force refuses, naming it, where a folder stands for a file of the dataset; nothing is replaced', async () => {
    const dir = join(tmp, 'force-clash');
    const { folder } = await get(dir);
    rmSync(join(folder, 'queries.jsonl'));
    mkdirSync(join(folder, 'queries.jsonl'));
    writeFileSync(join(folder, 'corpus.jsonl'), 'mine');
    await assert.rejects(get(dir, { force: true }), (e) => isDatasetError(e) && e.file === join(folder, 'queries.jsonl') && /a folder stands where the dataset has the file/.test(e.message));
    assert.equal(readFileSync(join(folder, 'corpus.jsonl'), 'utf8'), 'mine');
  });

  it('a server that never answers, or stops sending: a clear error after the stall timeout, the part kept and resumed', async () => {
    const hang = http.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as AddressInfo).port;
    try {
      const t0 = Date.now();
      await assert.rejects(getDataset({ name: 'scifact', dir: join(tmp, 'hang'), baseUrl: `http://127.0.0.1:${port}`, md5: md5(zip), stallMs: 300 }), (e) => isDatasetError(e) && /did not answer for 0 s|did not answer/.test(e.message));
      assert.ok(Date.now() - t0 < 5000);
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
    files.set('/stall/scifact.zip', { body: zip, stallAfter: 1000 });
    const dir = join(tmp, 'stall');
    await assert.rejects(getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/stall`, md5: md5(zip), stallMs: 300 }), (e) => {
      assert.ok(isDatasetError(e));
      assert.match(e.format(), /stopped after 1000 of \d+ bytes \(the server sent nothing for 0 s\)[^]*partial file is kept/);
      return true;
    });
    assert.equal(statSync(join(dir, 'scifact.zip.part')).size, 1000);
    const r = await get(dir);
    assert.equal(r.resumedFrom, 1000);
  });

  it('bad entries: a NUL byte in a name, a file where a folder goes, a name given twice, outside the folder: exit 1 naming the zip, no dataset', async () => {
    const dataset = (extra: [string, string][]) => [['scifact/corpus.jsonl', '{"_id":"d1","text":"x"}\n'], ['scifact/queries.jsonl', '{"_id":"q1","text":"x"}\n'], ['scifact/qrels/test.tsv', 'q1\td1\t1\n'], ...extra] as [string, string][];
    const cases: [string, Buffer, RegExp][] = [
      ['nul', Buffer.from((await zipOf(dataset([['scifact/evilXname.txt', 'x']]))).toString('latin1').replaceAll('evilXname', 'evil\0name'), 'latin1'), /control character/],
      ['clash', await zipOf([['scifact/qrels', 'a file'], ...dataset([])]), /a file and a folder at the same path/],
      ['twice', await zipOf(dataset([['scifact/corpus.jsonl', 'again']])), /the same file twice/],
      ['slip', Buffer.from((await zipOf(dataset([['scifact/XX/XX/e.txt', 'x']]))).toString('latin1').replaceAll('scifact/XX/XX/', 'scifact/../../'), 'latin1'), /outside its folder|zip/],
    ];
    for (const [name, body, message] of cases) {
      files.set(`/${name}/scifact.zip`, { body });
      const dir = join(tmp, `entries-${name}`);
      const r = await irw(['datasets', 'get', 'scifact', '--dir', dir, '--base-url', `${server.url}/${name}`, '--md5', md5(body)]);
      assert.equal(r.status, 1, `${name}: ${r.stderr}`);
      assert.match(r.stderr, message, name);
      assert.match(r.stderr, /scifact\.zip/, name);
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, `${name}: no stack trace`);
      assert.ok(!existsSync(join(dir, 'scifact')), `${name}: no dataset folder`);
      assert.ok(!existsSync(join(tmp, 'e.txt')), `${name}: nothing outside`);
    }
  });

  it('two gets of one dataset at once run one after the other: one downloads, the other finds it', async () => {
    files.set('/slow/scifact.zip', { body: zip, slowPieces: 5 });
    const dir = join(tmp, 'twice');
    const args = ['datasets', 'get', 'scifact', '--dir', dir, '--base-url', `${server.url}/slow`, '--md5', md5(zip)];
    const [a, b] = await Promise.all([irw(args), irw(args)]);
    assert.equal(a.status, 0, a.stderr);
    assert.equal(b.status, 0, b.stderr);
    assert.equal([a, b].filter((r) => /md5 checked, unpacked/.test(r.stderr)).length, 1, a.stderr + b.stderr);
    assert.equal([a, b].filter((r) => /already in/.test(r.stderr)).length, 1);
    assert.ok(readFileSync(join(dir, 'scifact', 'corpus.jsonl')).equals(readFileSync(join(source, 'corpus.jsonl'))));
  });

  it('an unknown name is refused before anything is printed or fetched, with the nearest names', async () => {
    const r = await irw(['datasets', 'get', 'nosuch', '--dir', join(tmp, 'nosuch')]);
    assert.equal(r.status, 1);
    assert.equal(r.stderr.split('\n')[0], "irw datasets: unknown BEIR dataset 'nosuch'.");
    assert.doesNotMatch(r.stderr, /https?:/);
    assert.ok(!existsSync(join(tmp, 'nosuch')));
    const typo = await irw(['datasets', 'get', 'scifct', '--dir', join(tmp, 'nosuch')]);
    assert.match(typo.stderr, /unknown BEIR dataset 'scifct': did you mean 'scifact'\?/);
  });

  it('a checksum mismatch says how to give a mirror\'s md5 (--md5)', async () => {
    await assert.rejects(get(join(tmp, 'md5'), { md5: '0'.repeat(32) }), (e) => isDatasetError(e) && /--md5/.test(e.format()));
  });
});
