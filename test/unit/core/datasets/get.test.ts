import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDatasetError } from '../../../../src/core/datasets/errors';
import { getDataset, type GetProgress } from '../../../../src/core/datasets/get';
import { formatTransfer } from '../../../../src/core/progress/format';
import { md5, startServer, zipFolder, type ServedFile } from '../../../helpers/datasetServer';
import { writeSyntheticBeir } from '../../../helpers/syntheticBeir';

describe('datasets get (library, local HTTP server)', () => {
  let tmp: string;
  let source: string;
  let zip: Buffer;
  const files = new Map<string, ServedFile>();
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'irw-datasets-'));
    source = join(tmp, 'source');
    writeSyntheticBeir(source, { docs: 400, queries: 20, vocabulary: 2000, seed: 3 });
    zip = await zipFolder(source, 'scifact');
    server = await startServer(files);
  });
  after(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const fresh = (name: string) => join(tmp, name);
  const sameFiles = (folder: string) => {
    for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) assert.ok(readFileSync(join(folder, f)).equals(readFileSync(join(source, f))), f);
  };

  it('downloads, checks the md5 and unpacks into DIR/NAME with the BEIR layout', async () => {
    files.set('/ok/scifact.zip', { body: zip });
    const dir = fresh('ok');
    const seen: GetProgress['phase'][] = [];
    const r = await getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/ok/`, md5: md5(zip) }, { onProgress: (p) => seen.push(p.phase) });
    assert.equal(r.folder, join(dir, 'scifact'));
    assert.equal(r.downloaded, true);
    assert.equal(r.bytes, zip.length);
    assert.deepEqual(r.datasets, [{ folder: join(dir, 'scifact'), splits: ['test'] }]);
    sameFiles(r.folder);
    assert.ok(seen.includes('download') && seen.includes('verify') && seen.includes('unpack'));
    assert.ok(!existsSync(join(dir, 'scifact.zip')) && !existsSync(join(dir, 'scifact.zip.part')), 'zip and part removed');
    const again = await getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/ok/`, md5: md5(zip) });
    assert.equal(again.downloaded, false, 'an existing dataset is not downloaded again');
  });

  it('a truncated transfer fails with a clear error, keeps the part, and the next call resumes with a Range request', async () => {
    const half = Math.floor(zip.length / 2);
    files.set('/cut/scifact.zip', { body: zip, cutAfter: half });
    const dir = fresh('cut');
    const base = `${server.url}/cut`;
    await assert.rejects(getDataset({ name: 'scifact', dir, baseUrl: base, md5: md5(zip) }), (e) => {
      assert.ok(isDatasetError(e));
      assert.match(e.format(), new RegExp(`stopped after ${half} of ${zip.length} bytes[^]*run the same command again to resume`));
      return true;
    });
    assert.equal(statSync(join(dir, 'scifact.zip.part')).size, half);
    assert.ok(!existsSync(join(dir, 'scifact')), 'no dataset folder from a partial download');
    files.set('/cut/scifact.zip', { body: zip });
    server.ranges.length = 0;
    const r = await getDataset({ name: 'scifact', dir, baseUrl: base, md5: md5(zip) });
    assert.deepEqual(server.ranges, [`bytes=${half}-`]);
    assert.equal(r.resumedFrom, half);
    sameFiles(r.folder);
  });

  it('cancelling keeps the partial file for a later resume, and writes no dataset', async () => {
    files.set('/slow/scifact.zip', { body: zip, slowPieces: 50 });
    const dir = fresh('slow');
    const controller = new AbortController();
    const got = getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/slow`, md5: md5(zip) }, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'download' && p.received > zip.length / 10) controller.abort();
      },
    });
    await assert.rejects(got, (e) => (e as Error).name === 'AbortError');
    const kept = statSync(join(dir, 'scifact.zip.part')).size;
    assert.ok(kept > 0 && kept < zip.length, `kept ${kept} of ${zip.length}`);
    assert.ok(!existsSync(join(dir, 'scifact')));
    const r = await getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/ok`, md5: md5(zip) });
    assert.equal(r.resumedFrom, kept);
    sameFiles(r.folder);
  });

  it('a server that ignores Range restarts the file from the beginning', async () => {
    files.set('/norange/scifact.zip', { body: zip, ignoreRange: true });
    const dir = fresh('norange');
    mkdirSync(dir);
    writeFileSync(join(dir, 'scifact.zip.part'), zip.subarray(0, 100));
    const r = await getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/norange`, md5: md5(zip) });
    assert.equal(r.resumedFrom, 0);
    sameFiles(r.folder);
  });

  it('a wrong checksum deletes the file, writes no dataset, and says so', async () => {
    files.set('/bad/scifact.zip', { body: zip });
    const dir = fresh('bad');
    await assert.rejects(getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/bad`, md5: '0'.repeat(32) }), (e) => {
      assert.ok(isDatasetError(e));
      assert.match(e.message, new RegExp(`checksum mismatch: md5 ${md5(zip)}, expected 0{32}`));
      return true;
    });
    assert.ok(!existsSync(join(dir, 'scifact.zip.part')) && !existsSync(join(dir, 'scifact.zip')) && !existsSync(join(dir, 'scifact')));
  });

  it("checks BEIR's published md5 when none is given", async () => {
    files.set('/beirmd5/scifact.zip', { body: zip });
    await assert.rejects(getDataset({ name: 'scifact', dir: fresh('beirmd5'), baseUrl: `${server.url}/beirmd5` }), /expected 5f7d1de60b170fc8027bb7898e2efca1/);
  });

  it('refuses unknown datasets, datasets BEIR does not redistribute, HTTP errors and zips without a dataset', async () => {
    await assert.rejects(getDataset({ name: 'nope', dir: fresh('x') }), /unknown BEIR dataset 'nope'[^]*/);
    await assert.rejects(getDataset({ name: 'robust04', dir: fresh('x') }), /BEIR publishes no zip for 'robust04'/);
    await assert.rejects(getDataset({ name: 'scifact', dir: fresh('x'), baseUrl: `${server.url}/missing`, md5: md5(zip) }), /HTTP 404/);
    const other = join(tmp, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'readme.txt'), 'no dataset here');
    const junk = await zipFolder(other, 'scifact');
    files.set('/junk/scifact.zip', { body: junk });
    await assert.rejects(getDataset({ name: 'scifact', dir: fresh('junk'), baseUrl: `${server.url}/junk`, md5: md5(junk) }), /holds no BEIR dataset/);
    assert.ok(!existsSync(join(fresh('junk'), 'scifact')));
  });

  it('refuses an archive entry that would land outside the target folder (zip slip)', async () => {
    const evil = join(tmp, 'evil-src');
    mkdirSync(join(evil, 'XX', 'XX'), { recursive: true });
    writeFileSync(join(evil, 'XX', 'XX', 'evil.txt'), 'outside');
    // yazl refuses '..' itself, so the names are patched in the built archive (names are not checksummed).
    const body = Buffer.from((await zipFolder(evil, 'scifact')).toString('latin1').replaceAll('scifact/XX/XX/', 'scifact/../../'), 'latin1');
    files.set('/evil/scifact.zip', { body });
    const dir = fresh('evil');
    await assert.rejects(getDataset({ name: 'scifact', dir, baseUrl: `${server.url}/evil`, md5: md5(body) }), (e) => isDatasetError(e) && /zip|outside/.test(e.message));
    assert.ok(!existsSync(join(dir, '..', 'evil.txt')) && !existsSync(join(tmp, 'evil.txt')));
  });

  it('formats progress as bytes, rate and time left', () => {
    assert.equal(formatTransfer(1_200_000, 2_800_000, 1_200_000, 2000), '1.2 MB / 2.8 MB (42 %), 600 kB/s, 3 s left');
    assert.equal(formatTransfer(500, null, 0, 0), '500 B');
  });
});
