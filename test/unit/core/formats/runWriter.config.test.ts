import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InputError } from '../../../../src/core/formats/errors';
import { RunWriter } from '../../../../src/core/formats/runWriter';
import { DATASETS, needsShared, requireBuiltCli } from '../../support/paths';

describe('a full disk while writing a run', () => {
  it('is an error saying so, naming the file, and leaves no partial file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-full-'));
    const writer = new RunWriter(join(dir, 'full.trec'), 'tag');
    const real = fs.writeSync;
    (fs as { writeSync: unknown }).writeSync = () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    try {
      writer.writeRanking('q1', ['d1', 'd2'], [2, 1]);
      assert.throws(
        () => writer.commit(),
        (e: unknown) =>
          e instanceof InputError &&
          e.code === 'unwritable' &&
          e.file === join(dir, 'full.trec') &&
          /disk is full \(ENOSPC\); no partial run file was left/.test(e.message) &&
          /Free some space/.test(e.hint ?? ''),
      );
    } finally {
      (fs as { writeSync: unknown }).writeSync = real;
    }
    assert.deepEqual(readdirSync(dir), []);
  });
});

describe('run configuration sidecar (<run>.json)', () => {
  it('is written with the run on commit, never on abort', () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-sidecar-'));
    const ok = new RunWriter(join(dir, 'a.trec'), 'tag', undefined, { retriever: 'bm25', k1: 0.9, tmpOut: '/x' });
    ok.writeRanking('q1', ['d1'], [1]);
    ok.commit();
    const config = JSON.parse(readFileSync(join(dir, 'a.trec.json'), 'utf8'));
    assert.equal(config.retriever, 'bm25');
    assert.equal(config.k1, 0.9);
    assert.equal(config.tag, 'tag');
    assert.equal(config.tmpOut, undefined);
    assert.ok(!Number.isNaN(Date.parse(config.finishedAt)));
    const aborted = new RunWriter(join(dir, 'b.trec'), 'tag', undefined, { retriever: 'bm25' });
    aborted.writeRanking('q1', ['d1'], [1]);
    aborted.abort();
    assert.deepEqual(readdirSync(dir).sort(), ['a.trec', 'a.trec.json']);
  });

  it('irw run records the retriever and its parameters', { skip: needsShared('datasets/scifact') }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-sidecar-'));
    const out = join(dir, 'scifact.trec');
    const r = spawnSync(process.execPath, [requireBuiltCli(), 'run', '--dataset', join(DATASETS, 'scifact'), '--k1', '1.2', '--top-k', '10', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(out));
    const config = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
    assert.deepEqual([config.retriever, config.k1, config.b, config.topK, config.split], ['bm25', 1.2, 0.4, 10, 'test']);
  });
});
