import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRun } from '../../../src/core/formats/run';
import { runBm25 } from '../../../src/core/retrieval/bm25/run';
import { smallDataset } from '../../helpers/neuralFixtures';
import { requireBuiltCli } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const irw = (...args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), 'explain', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('irw explain', () => {
  let dir: string;
  let dataset: string;
  let run: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irw-explain-cli-'));
    dataset = smallDataset(dir).dir;
    run = join(dir, 'bm25.trec');
    await runBm25({ dataset, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 10, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: run });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('text: the per-term breakdown and the steps to the run file\'s number; json: the same as data', () => {
    const r = readRun(run).ranking('q1')!;
    const text = irw('--run', run, '--dataset', dataset, 'q1', r.docs[0]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /BM25 k1=0.9 b=0.4/);
    assert.match(text.stdout, /term +query weight +tf +n +idf +weight +tf-norm +contribution/);
    assert.match(text.stdout, new RegExp(`printed: ${r.scores[0].toFixed(6)} at rank 1`));
    assert.match(text.stdout, /= the run file's score/);
    const json = irw('--run', run, 'q1', r.docs[0], '--format', 'json');
    assert.equal(json.status, 0, json.stderr);
    const e = JSON.parse(json.stdout) as { retriever: string; reproduced: boolean; printed: string; terms: unknown[] };
    assert.equal(e.retriever, 'bm25');
    assert.equal(e.reproduced, true);
    assert.equal(Number(e.printed), r.scores[0]);
  });

  it('a run whose corpus changed since: the breakdown is shown, the mismatch said, exit 1', () => {
    const r = readRun(run).ranking('q1')!;
    const corpus = join(dataset, 'corpus.jsonl');
    const original = readFileSync(corpus, 'utf8');
    try {
      writeFileSync(corpus, original.replace(/"text": ?"/g, '"text": "padding words padding words '));
      const x = irw('--run', run, 'q1', r.docs[0]);
      assert.equal(x.status, 1, x.stderr);
      assert.match(x.stdout, /!= the run file's score/);
      assert.match(x.stderr, /the breakdown does not give the run file's score/);
    } finally {
      writeFileSync(corpus, original);
    }
  });

  it('usage errors: missing --run, wrong argument count, unknown format; an imported run gets its rank and score only', () => {
    assert.equal(irw('q1', 'd').status, 2);
    assert.match(irw('--run', run, 'q1').stderr, /expected QUERY_ID and DOC_ID/);
    assert.equal(irw('--run', run, 'q1', 'd', '--format', 'xml').status, 2);
    const imported = join(dir, 'imported.trec');
    writeFileSync(imported, 'q1 Q0 d1 1 3.5 other\n');
    const x = irw('--run', imported, 'q1', 'd1');
    assert.equal(x.status, 0, x.stderr);
    assert.match(x.stdout, /rank 1, score 3.5/);
    assert.match(x.stdout, /no .*imported.trec.json records how this run was made/);
  });
});
