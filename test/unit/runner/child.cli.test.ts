import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeSyntheticBeir } from '../../helpers/syntheticBeir';
import { DATASETS, needsShared, requireBuiltCli } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const SCIFACT = join(DATASETS, 'scifact');
const CLI = [requireBuiltCli()];

describe('irw run (CLI)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-cli-run-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a TREC run, progress on stderr, exit 0', { skip: needsShared('datasets/scifact') }, () => {
    const out = join(dir, 'sf.trec');
    const r = spawnSync(process.execPath, [...CLI, 'run', '--dataset', SCIFACT, '--out', out, '--top-k', '5', '--fields', 'multifield'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /building the index 5,183\/5,183/);
    assert.match(r.stderr, /wrote .*sf\.trec: 300 queries/);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.ok(lines.length >= 1490 && lines.length <= 1500);
    assert.match(lines[0], / bm25-multifield-k1=0\.9-b=0\.4-removeQuery$/);
  });

  it('usage errors exit 2; bad input exits 1 naming file and line', () => {
    const bad = join(dir, 'bad');
    mkdirSync(join(bad, 'qrels'), { recursive: true });
    writeFileSync(join(bad, 'corpus.jsonl'), '{"_id": "d1", "text": "x"}\n{"_id": "d1", "text": "y"}\n');
    writeFileSync(join(bad, 'queries.jsonl'), '{"_id": "q1", "text": "x"}\n');
    writeFileSync(join(bad, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\nq1\td2\tlots\r\n');
    const b = spawnSync(process.execPath, [...CLI, 'run', '--dataset', bad, '--out', join(dir, 'b.trec')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(b.status, 1);
    assert.match(b.stderr, /test\.tsv:3: /);
    assert.equal(existsSync(join(dir, 'b.trec')), false);
    const u = spawnSync(process.execPath, [...CLI, 'run', '--dataset', bad, '--out', join(dir, 'u.trec'), '--b', '7'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(u.status, 2);
    assert.match(u.stderr, /b must be between 0 and 1/);
  });

  it('Ctrl-C (SIGINT) mid-run: exit code 3 and no partial run file', async () => {
    const big = join(dir, 'big');
    writeSyntheticBeir(big, { docs: 25_000, queries: 4000, meanWords: 80, vocabulary: 50_000 });
    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const out = join(outDir, 'int.trec');
    const child = spawn(process.execPath, [...CLI, 'run', '--dataset', big, '--out', out], { cwd: ROOT });
    let stderr = '';
    let sent = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      stderr += s;
      // Interrupt once searching has begun, i.e. while the temporary run file is being written.
      if (!sent && /searching/.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    assert.ok(sent, stderr);
    assert.equal(code, 3, stderr);
    assert.match(stderr, /cancelled; no run file written/);
    assert.deepEqual(readdirSync(outDir), []);
  });
});
