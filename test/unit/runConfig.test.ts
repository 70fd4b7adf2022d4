import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RunWriter } from '../../src/core/formats/runWriter';
import { DATASETS, requireBuiltCli } from './support/paths';

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

  it('irw run records the retriever and its parameters', () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-sidecar-'));
    const out = join(dir, 'scifact.trec');
    const r = spawnSync(process.execPath, [requireBuiltCli(), 'run', '--dataset', join(DATASETS, 'scifact'), '--k1', '1.2', '--top-k', '10', '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(out));
    const config = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
    assert.deepEqual([config.retriever, config.k1, config.b, config.topK, config.split], ['bm25', 1.2, 0.4, 10, 'test']);
  });
});
