/**
 * npm run bench:neural — figures for the neural/hybrid part (noisy on a shared 2-core machine):
 *
 * 1. Pipeline throughput: DenseEncoder.encode (tokenize + infer + pool) against bare onnxruntime-node
 *    session.run on the same, pre-tokenized batches, with a generated model of MiniLM-L6's shape (6 layers,
 *    hidden 384, 22M parameters) so that inference costs what a real model's does. Goal: >= 90 %.
 * 2. Fusion of two 300-query x 1,000-document runs (min-max + arithmetic, and RRF). Goal: < 100 ms.
 *
 * Options: --docs N (SciFact documents encoded, default 192), --batch N (default 32), --max-length N (256),
 * --only fusion|pipeline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS } from '../unit/support/paths';
import { parseArgs } from 'node:util';
import { Run } from '../../src/core/formats/run';
import { readCorpusTexts } from '../../src/core/retrieval/dense/dataset';
import { DenseEncoder } from '../../src/core/retrieval/dense/encoder';
import { EncoderSession } from '../../src/core/retrieval/dense/session';
import { loadTokenizer } from '../../src/core/retrieval/dense/tokenizer';
import { fuse } from '../../src/core/retrieval/fusion/fuse';
import { REALISTIC, writeModelFolder } from '../helpers/modelFolders';
import { biEncoder, rng } from '../helpers/onnxModels';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '192' },
    batch: { type: 'string', default: '32' },
    'max-length': { type: 'string', default: '256' },
    only: { type: 'string' },
  },
});
const nDocs = Number(values.docs);
const batchSize = Number(values.batch);
const maxLength = Number(values['max-length']);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function pipeline(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'irw-bench-neural-'));
  try {
    const folder = writeModelFolder(join(dir, 'model'), biEncoder({ ...REALISTIC, seed: 1 }), { pooling: 'mean', normalize: true, maxLength });
    const corpus = await readCorpusTexts(join(DATASETS, 'scifact'));
    const texts = corpus.texts.slice(0, nDocs);

    // The batches the pipeline will form: longest text first, then tokenized ahead of time for the bare runs.
    const tk = loadTokenizer(folder, maxLength);
    const order = texts.map((t, i) => [t.length, i]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((p) => p[1]);
    const batches = [];
    for (let s = 0; s < order.length; s += batchSize) batches.push(tk.encodeBatch(order.slice(s, s + batchSize).map((i) => texts[i])));
    const tokens = batches.reduce((a, b) => a + b.batch * b.seqLen, 0);

    const session = await EncoderSession.open(join(folder, 'model.onnx'), 'bi-encoder');
    const encoder = await DenseEncoder.open(folder);
    await session.run(batches[batches.length - 1]); // warm-up
    await encoder.encode(texts.slice(0, 2), '', { batchSize });
    const bare: number[] = [];
    const full: number[] = [];
    for (let rep = 0; rep < 3; rep++) {
      let t0 = performance.now();
      for (const b of batches) await session.run(b);
      bare.push(performance.now() - t0);
      t0 = performance.now();
      await encoder.encode(texts, '', { batchSize });
      full.push(performance.now() - t0);
    }
    await session.release();
    await encoder.release();
    const b = median(bare);
    const f = median(full);
    console.log(`dense pipeline: ${texts.length} SciFact docs, batch ${batchSize}, max length ${maxLength}, ${tokens} padded tokens, MiniLM-L6-shaped model`);
    console.log(`  bare session.run on pre-tokenized batches: ${(b / 1000).toFixed(2)} s (${((texts.length / b) * 1000).toFixed(1)} docs/s)`);
    console.log(`  tokenize + infer + pool (DenseEncoder):    ${(f / 1000).toFixed(2)} s (${((texts.length / f) * 1000).toFixed(1)} docs/s)`);
    console.log(`  pipeline / bare throughput: ${((b / f) * 100).toFixed(1)} % (goal >= 90 %)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function syntheticRun(tag: string, seed: number, queries: number, depth: number, pool: number): Run {
  const next = rng(seed);
  const rankings: [string, string[], number[]][] = [];
  for (let q = 0; q < queries; q++) {
    const docs = new Set<string>();
    while (docs.size < depth) docs.add(`doc${Math.floor(((next() + 1) / 2) * pool)}`);
    rankings.push([`q${q}`, [...docs], [...docs].map(() => next() * 10 + 20)]);
  }
  return Run.fromRankings(tag, rankings);
}

function fusion(): void {
  const a = syntheticRun('a', 1, 300, 1000, 5000);
  const b = syntheticRun('b', 2, 300, 1000, 5000);
  for (const [name, opts] of [
    ['min-max + arithmetic', { method: 'arithmetic', norm: 'min-max' }],
    ['rrf', { method: 'rrf', norm: 'none' }],
  ] as const) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      fuse([a, b], { ...opts, k: 1000, tag: 'f' });
      const c = process.cpuUsage(c0);
      times.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    console.log(
      `fusion, 2 runs x 300 queries x 1,000 docs, ${name}: median ${median(times).toFixed(1)} ms wall, ` +
        `${median(cpu).toFixed(1)} ms CPU; best ${Math.min(...times).toFixed(1)} ms (goal < 100 ms)`,
    );
  }
}

async function main(): Promise<void> {
  if (values.only !== 'pipeline') fusion();
  if (values.only !== 'fusion') await pipeline();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
