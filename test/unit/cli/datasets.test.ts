import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { md5, startServer, zipFolder, type ServedFile } from '../../helpers/datasetServer';
import { writeSyntheticBeir } from '../../helpers/syntheticBeir';
import { DATASETS, REPO, requireBuiltCli } from '../support/paths';

const CLI = [requireBuiltCli()];

function irw(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: REPO, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * A fresh clone without ../shared: `irw datasets get scifact` against a local server, then the README's demo
 * commands on what it unpacked. The zip is built from ../shared's SciFact when it is there (then the figures must
 * be Anserini's), else from a generated dataset.
 */
describe('irw datasets (CLI, local HTTP server)', () => {
  let tmp: string;
  let source: string;
  let real: boolean;
  let zip: Buffer;
  const files = new Map<string, ServedFile>();
  let server: Awaited<ReturnType<typeof startServer>>;

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'irw-cli-datasets-'));
    real = existsSync(join(DATASETS, 'scifact', 'corpus.jsonl'));
    source = real ? join(DATASETS, 'scifact') : join(tmp, 'generated');
    if (!real) writeSyntheticBeir(source, { docs: 500, queries: 30, vocabulary: 3000, seed: 7 });
    zip = await zipFolder(source, 'scifact');
    server = await startServer(files);
  });
  after(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('gets SciFact with the documented command (base URL from IRW_BEIR_BASE_URL), then irw run and irw eval work on it', async () => {
    files.set('/beir/scifact.zip', { body: zip, slowPieces: 12 });
    const dir = join(tmp, 'datasets');
    const got = await irw(['datasets', 'get', 'scifact', '--dir', dir, '--md5', md5(zip)], { IRW_BEIR_BASE_URL: `${server.url}/beir`, IRW_PROGRESS_SECONDS: '0.25' });
    assert.equal(got.status, 0, got.stderr);
    // stderr is a pipe here: progress comes as separate lines, several during a ~1 s transfer.
    const progress = got.stderr.split('\n').filter((l) => /^scifact\.zip: [\d.]+ [kM]?B \/ [\d.]+ [kM]?B \(\d+ %\)/.test(l));
    assert.ok(progress.length >= 3, got.stderr);
    assert.match(got.stderr, /[kM]B\/s, \d+ s left/);
    assert.match(got.stderr, /md5 checked, unpacked into/);
    assert.match(got.stdout, /scifact\tsplits: test(, train)?\n$/);
    const folder = join(dir, 'scifact');
    for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) assert.ok(readFileSync(join(folder, f)).equals(readFileSync(join(source, f))), f);

    const run = join(tmp, 'scifact.bm25.trec');
    const r = await irw(['run', '--dataset', folder, '--out', run]);
    assert.equal(r.status, 0, r.stderr);
    const e = await irw(['eval', '-c', '-m', 'ndcg_cut.10', '-m', 'recall.100', join(folder, 'qrels', 'test.tsv'), run]);
    assert.equal(e.status, 0, e.stderr);
    const ndcg = Number(/^ndcg_cut_10\s+all\s+(\S+)$/m.exec(e.stdout)?.[1]);
    if (real) {
      assert.match(e.stdout, /^ndcg_cut_10\s+all\s+0\.6789$/m);
      assert.match(e.stdout, /^recall_100\s+all\s+0\.9253$/m);
    } else assert.ok(ndcg > 0.5, e.stdout);
  });

  it('a wrong checksum exits 1 with one message saying what happened and what to do', async () => {
    files.set('/beir/scifact.zip', { body: zip });
    const r = await irw(['datasets', 'get', 'scifact', '--dir', join(tmp, 'bad'), '--base-url', `${server.url}/beir`]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /irw datasets: .*scifact\.zip: checksum mismatch: md5 [0-9a-f]{32}, expected 5f7d1de60b170fc8027bb7898e2efca1 \(the file was deleted\)\n {2}Run again/);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
  });

  it('list shows the 19 datasets of BEIR\'s table, the public ones with their md5', async () => {
    const r = await irw(['datasets', 'list']);
    assert.equal(r.status, 0);
    const rows = r.stdout.split('\n').filter((l) => /^[a-z0-9-]+\s+(yes|no)\s/.test(l));
    assert.equal(rows.length, 19);
    assert.equal(rows.filter((l) => /\syes\s/.test(l)).length, 15);
    assert.match(r.stdout, /^scifact\s+yes\s+train,test\s+300\s+5K\s+5f7d1de60b170fc8027bb7898e2efca1\s+CC BY-NC 2\.0/m);
    assert.match(r.stdout, /^robust04\s+no\s+.*-\s+not redistributed by BEIR/m);
  });

  it('usage errors exit 2', async () => {
    assert.equal((await irw(['datasets', 'get'])).status, 2);
    assert.equal((await irw(['datasets', 'fetch', 'x'])).status, 2);
  });
});
