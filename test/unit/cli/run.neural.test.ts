import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { readRun } from '../../../src/core/formats/run';
import { RunnerError, startNeuralRun } from '../../../src/runner/client';
import type { NeuralProgress } from '../../../src/core/retrieval/neuralJob';
import { smallDataset, tinyBiEncoder, tinyCrossEncoder } from '../../helpers/neuralFixtures';
import { writeNpy } from '../../helpers/npy';

/** `irw run --retriever dense|rerank|hybrid`, `irw fuse` and the runner child process, with generated models. */
const ROOT = resolve(__dirname, '../../..');
const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/main.ts')];
const CHILD = { runnerPath: join(ROOT, 'src/runner/child.ts'), execArgv: ['--import', 'tsx'] };

const tmp = mkdtempSync(join(tmpdir(), 'irw-neural-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
const ds = smallDataset(tmp);
const bi = tinyBiEncoder(tmp, 'bi', { pooling: 'mean', normalize: true, maxLength: 64, similarity: 'cosine' });
const ce = tinyCrossEncoder(tmp, 'ce', { maxLength: 64 });

function irw(...args: string[]) {
  return spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
}

/** In-process `irw` (no Node start-up) for checks that fail before any work: exit code and stderr. */
async function irwHere(...args: string[]): Promise<{ status: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((s: string) => {
    stderr += s;
    return true;
  }) as typeof process.stderr.write;
  try {
    return { status: await main(args), stderr };
  } finally {
    process.stderr.write = write;
  }
}

describe('irw run: dense, rerank and hybrid retrievers', () => {
  const dense = join(tmp, 'dense.trec');

  it('dense: writes the run, reports progress and reuses cached embeddings', () => {
    const cache = join(tmp, 'cache');
    const r = irw('run', '--retriever', 'dense', '--dataset', ds.dir, '--model', bi.dir, '--out', dense, '--top-k', '10', '--cache', cache);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /encoding documents 40\/40/);
    assert.match(r.stderr, /wrote .*dense\.trec: 6 queries, 60 lines, tag dense-bi-cosine; corpus embeddings encoded/);
    const again = irw('run', '--retriever', 'dense', '--dataset', ds.dir, '--model', bi.dir, '--out', join(tmp, 'd2.trec'), '--top-k', '10', '--cache', cache);
    assert.match(again.stderr, /corpus embeddings from cache/);
  });

  it('rerank: re-ranks the top N of a first-stage run', () => {
    const out = join(tmp, 'rerank.trec');
    const r = irw('run', '--retriever', 'rerank', '--dataset', ds.dir, '--model', ce.dir, '--first-stage', dense, '--rerank-depth', '4', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /24 pairs scored/);
    const run = readRun(out);
    const first = readRun(dense);
    for (const q of run.qids) assert.deepEqual(new Set(run.ranking(q)!.docs), new Set(first.ranking(q)!.docs.slice(0, 4)));
  });

  it('hybrid: BM25 + dense fused; no temporary files left behind', () => {
    const out = join(tmp, 'hybrid.trec');
    const scratch = () => readdirSync(tmpdir()).filter((f) => f.startsWith('irw-hybrid-')).length;
    const before = scratch();
    const r = irw('run', '--retriever', 'hybrid', '--dataset', ds.dir, '--model', bi.dir, '--method', 'rrf', '--bm25-depth', '20', '--dense-depth', '5', '--top-k', '15', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /BM25: searching 6\/6/);
    assert.match(r.stderr, /dense: searching 6\/6/);
    const run = readRun(out);
    assert.match(run.tag, /^hybrid-fused-rrf60-dense-bi-cosine$/);
    assert.equal(run.qids.length, 6);
    assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('.')), []);
    assert.equal(scratch(), before, 'the temporary BM25 run is removed');
  });

  it('dense with imported .npy embeddings: no model needed; ids of another corpus are refused (exit 1)', () => {
    const dim = 4;
    const rows = (n: number, seed: number) => Float32Array.from({ length: n * dim }, (_, i) => ((i * 7 + seed) % 11) - 5);
    const docs = { m: join(tmp, 'docs.npy'), ids: join(tmp, 'docs.tsv') };
    const queries = { m: join(tmp, 'queries.npy'), ids: join(tmp, 'queries.txt') };
    writeNpy(docs.m, rows(40, 1), [40, dim], { descr: '<f2' });
    writeFileSync(docs.ids, ds.ids.join('\n') + '\n');
    writeNpy(queries.m, rows(6, 3), [6, dim]);
    writeFileSync(queries.ids, 'q1\nq2\nq3\nq4\nq5\nq6\n');
    const args = ['run', '--retriever', 'dense', '--dataset', ds.dir, '--similarity', 'dot', '--top-k', '5', '--query-embeddings', queries.m, '--query-ids', queries.ids];
    const out = join(tmp, 'imported.trec');
    const r = irw(...args, '--doc-embeddings', docs.m, '--doc-ids', docs.ids, '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /wrote .*imported\.trec: 6 queries, 30 lines, tag dense-docs-dot; corpus embeddings imported/);
    writeFileSync(docs.ids, [...ds.ids.slice(1), 'other'].join('\n') + '\n');
    const bad = irw(...args, '--doc-embeddings', docs.m, '--doc-ids', docs.ids, '--out', join(tmp, 'bad.trec'));
    assert.equal(bad.status, 1, bad.stderr);
    assert.match(bad.stderr, /docs\.tsv:1: row 0 is document .* but document 1 of .*corpus\.jsonl is/);
    assert.equal(existsSync(join(tmp, 'bad.trec')), false);
  });

  it('usage errors exit 2 with what to do', async () => {
    const cases: [string[], RegExp][] = [
      [['--retriever', 'dense'], /needs --model DIR/],
      [['--retriever', 'rerank', '--model', ce.dir], /needs --first-stage FILE/],
      [['--retriever', 'dense', '--model', bi.dir, '--similarity', 'l1'], /--similarity must be dot or cosine/],
      [['--retriever', 'dense', '--model', bi.dir, '--method', 'rrf'], /--method has no effect with --retriever dense: only hybrid fuses two rankings/],
      [['--retriever', 'hybrid', '--model', bi.dir, '--method', 'geometric', '--norm', 'z-score'], /geometric mean needs non-negative scores/],
      [['--retriever', 'dense', '--doc-embeddings', 'x.npy'], /--doc-embeddings and --doc-ids go together/],
      [['--retriever', 'dense', '--doc-embeddings', 'x.npy', '--doc-ids', 'x', '--query-embeddings', 'q.npy', '--query-ids', 'q'], /similarity \(dot or cosine\) must be given/],
      [['--retriever', 'dense', '--model', bi.dir, '--doc-embeddings', 'x.npy', '--doc-ids', 'x', '--query-embeddings', 'q.npy', '--query-ids', 'q'], /the model has no effect when both/],
      [['--retriever', 'hybrid', '--model', bi.dir, '--doc-embeddings', 'x.npy', '--doc-ids', 'x'], /--doc-embeddings has no effect with --retriever hybrid: .*applies to --retriever dense/],
      [['--retriever', 'sparse'], /unknown retriever 'sparse' \(available: bm25, dense, rerank, hybrid\)/],
    ];
    for (const [args, message] of cases) {
      const r = await irwHere('run', '--dataset', ds.dir, '--out', join(tmp, 'u.trec'), ...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
    }
  });

  it('a max length the model cannot take exits 1 naming where it was set, with no stack trace (not an internal error)', () => {
    const cases: [string, Record<string, unknown>, Partial<Parameters<typeof tinyBiEncoder>[3]>, RegExp][] = [
      ['len2', { maxLength: 2 }, {}, /maxLength 2 \(irw-model.json maxLength\) leaves no room for text/],
      ['len8', { maxLength: 64 }, { positions: 8 }, /onnxruntime could not run the model on \d+ texts of \d+ tokens/],
    ];
    for (const [name, config, spec, message] of cases) {
      const model = tinyBiEncoder(tmp, name, config, spec);
      const r = irw('run', '--retriever', 'dense', '--dataset', ds.dir, '--model', model.dir, '--out', join(tmp, `${name}.trec`));
      assert.equal(r.status, 1, `${name}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
      assert.equal(existsSync(join(tmp, `${name}.trec`)), false);
    }
  });

  it('a model with the wrong signature exits 1 naming expected and found', () => {
    const r = irw('run', '--retriever', 'dense', '--dataset', ds.dir, '--model', ce.dir, '--out', join(tmp, 'x.trec'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /model\.onnx: the model does not have the signature of a sentence-transformers bi-encoder export/);
    assert.match(r.stderr, /found: {4}inputs input_ids: int64/);
  });
});

describe('irw fuse', () => {
  it('fuses run files and reads the options', async () => {
    const a = join(tmp, 'dense.trec');
    const b = join(tmp, 'rerank.trec');
    const out = join(tmp, 'fused.trec');
    const r = irw('fuse', a, b, '--norm', 'l2', '--method', 'linear', '--weights', '1,8', '--depth', '10,4', '--top-k', '5', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /wrote .*fused\.trec: 6 queries, 30 lines, tag fused-l2-linear/);
    const bad = await irwHere('fuse', a, b, '--weights', '1', '--out', out);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /1 weights for 2 runs/);
    const missing = await irwHere('fuse', a, join(tmp, 'nope.trec'), '--out', join(tmp, 'n.trec'));
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /nope\.trec/);
    assert.equal(existsSync(join(tmp, 'n.trec')), false);
  });
});

describe('runner child process: neural jobs', () => {
  it('runs a dense job with progress; cancel stops a job and leaves no file', async () => {
    const out = join(tmp, 'child-dense.trec');
    const progress: NeuralProgress[] = [];
    const request = { dataset: ds.dir, split: 'test', model: bi.dir, similarity: null, topK: 5, batchSize: 4, threads: 1, removeQuery: true, cacheDir: null, out };
    const result = await startNeuralRun({ job: 'dense', request }, { ...CHILD, onProgress: (p) => progress.push(p) }).result;
    assert.equal(result.job, 'dense');
    assert.equal(result.lines, 30);
    assert.ok(progress.some((p) => p.phase === 'encode-corpus' && p.done === 40));
    assert.equal(readFileSync(out, 'utf8').split('\n').length, 31);

    // 1,000 documents one at a time: long enough that the cancel always arrives mid-encoding.
    const big = smallDataset(join(tmp, 'big'), 1000);
    const cancelled = join(tmp, 'child-cancel.trec');
    const ac = new AbortController();
    const handle = startNeuralRun(
      { job: 'dense', request: { ...request, dataset: big.dir, batchSize: 1, out: cancelled } },
      { ...CHILD, signal: ac.signal, onProgress: (p) => p.phase === 'encode-corpus' && p.done >= 2 && ac.abort() },
    );
    await assert.rejects(handle.result, (e: unknown) => e instanceof RunnerError && e.code === 'cancelled');
    assert.equal(existsSync(cancelled), false);
  });

  it('an invalid job is a usage error from the child', async () => {
    await assert.rejects(
      startNeuralRun({ job: 'fuse', request: { runs: [join(tmp, 'dense.trec')], fusion: { method: 'rrf', norm: 'none', weights: null, depth: null, rrfK: 60, topK: 10 }, tag: null, out: join(tmp, 'f.trec') } }, CHILD).result,
      (e: unknown) => e instanceof RunnerError && e.code === 'usage' && /two or more runs/.test(e.message),
    );
  });
});
