import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseList } from '../../../src/cli/tune';
import { readSidecar } from '../../../src/core/provenance/record';
import { smallDataset } from '../../helpers/neuralFixtures';
import { requireBuiltCli } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const irw = (...args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), 'tune', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('irw tune', () => {
  let dir: string;
  let dataset: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-tune-cli-'));
    dataset = smallDataset(dir, 40, 12).dir;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists: a,b,c or FROM:TO:STEP inclusive without float drift', () => {
    assert.deepEqual(parseList('k1', '0.5:1.5:0.1', []), [0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5]);
    assert.deepEqual(parseList('b', '0.2,0.75', []), [0.2, 0.75]);
    assert.deepEqual(parseList('b', undefined, [0.4]), [0.4]);
    assert.throws(() => parseList('b', '1:0:0.1', []), /TO >= FROM/);
    assert.throws(() => parseList('b', '0.1,,2', []), /needs numbers/);
  });

  it('BM25: the fold table, the held-out gain with its interval, the tuned run and its sidecar', () => {
    const out = join(dir, 'tuned.trec');
    const r = irw('--dataset', dataset, '--k1', '0.6,1.2', '--b', '0.3,0.8', '--folds', '3', '--resamples', '200', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /tuning BM25 on ndcg_cut_10, split test \(12 queries/);
    assert.match(r.stdout, /fold +queries +chosen on the other folds +tuning +default +held-out +default +gain/);
    assert.match(r.stdout, /held-out gain over the default: [+-]\d\.\d{4}, 95% CI \[[+-]\d\.\d{4}, [+-]\d\.\d{4}\]/);
    assert.match(r.stderr, /tuned on the test split: its figures there are not held out/);
    assert.equal((readSidecar(out)!.provenance!.tuning as { onTestSplit: boolean }).onTestSplit, true);
  });

  it('usage errors name the option: mixed BM25 and fusion options, a measure of many values, bad folds', () => {
    assert.match(irw('--dataset', dataset, '--method', 'rrf').stderr, /--method has no effect when tuning BM25/);
    assert.match(irw('--dataset', dataset, '-m', 'ndcg_cut').stderr, /tuning optimizes one value/);
    assert.equal(irw('--dataset', dataset, '--folds', '1').status, 2);
    assert.match(irw('--qrels', join(dataset, 'qrels', 'test.tsv'), join(dir, 'x.trec'), join(dir, 'y.trec'), '--k1', '1').stderr, /--k1 has no effect when tuning a fusion/);
    assert.equal(irw().status, 2);
  });
});
