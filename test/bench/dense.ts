/**
 * npm run bench:dense — exact dense retrieval at scale, from imported embeddings (noisy on a shared machine:
 * the load average is printed with the figures):
 *
 * 1M synthetic 384-dimensional document embeddings (a float32 .npy, 1.5 GB) and 1,000 query embeddings, exact
 * top-1000 per query by dot product, as `irw run --retriever dense --doc-embeddings ... --query-embeddings ...`
 * in a process of its own: wall time, CPU time and peak resident memory (the matrix is read a block at a time,
 * so it sits in the page cache, not in the process; goal: <= 512 MB). Beside it, where python3 has numpy, the
 * same search with numpy (memory-mapped matrix, one BLAS thread, float32 matrix products + argpartition, a
 * block of 65,536 rows at a time), and the overlap of the two top-1000 lists (they differ only where float32
 * and double sums order near-equal scores differently).
 *
 * Options: --docs N (default 1000000), --queries N (1000), --dim N (384), --k N (1000), --dtype f4|f2,
 * --no-peer.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readRun } from '../../src/core/formats/run';
import { npyBytes } from '../helpers/npy';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '1000' },
    dim: { type: 'string', default: '384' },
    k: { type: 'string', default: '1000' },
    dtype: { type: 'string', default: 'f4' },
    'no-peer': { type: 'boolean', default: false },
  },
});
const N = Number(values.docs);
const NQ = Number(values.queries);
const DIM = Number(values.dim);
const K = Number(values.k);
const DESCR = `<${values.dtype}`;
const ROOT = resolve(__dirname, '../..');

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;

/** Deterministic values in [-1, 1) (xorshift32), so every run of the benchmark searches the same matrix. */
function filler(seed: number): (out: Float32Array) => void {
  let x = seed >>> 0 || 1;
  return (out) => {
    for (let i = 0; i < out.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = Math.round(((x >>> 0) / 2 ** 31 - 1) * 1024) / 1024; // exact in float16 too
    }
  };
}

/** A .npy written a block of rows at a time (the header from npyBytes of an empty matrix of the right shape). */
function writeMatrix(path: string, rows: number, seed: number): void {
  const head = npyBytes(new Float32Array(0), [rows, DIM], { descr: DESCR });
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    const fill = filler(seed);
    const block = new Float32Array(8192 * DIM);
    for (let at = 0; at < rows; at += 8192) {
      const n = Math.min(8192, rows - at);
      const part = block.subarray(0, n * DIM);
      fill(part);
      const bytes = DESCR === '<f2' ? npyBytes(part, [n, DIM], { descr: DESCR }) : Buffer.from(part.buffer, 0, part.byteLength);
      writeSync(fd, DESCR === '<f2' ? bytes.subarray(bytes.length - n * DIM * 2) : bytes);
    }
  } finally {
    closeSync(fd);
  }
}

function dataset(dir: string): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const fd = openSync(join(dir, 'corpus.jsonl'), 'w');
  try {
    for (let at = 0; at < N; at += 65536) {
      let chunk = '';
      for (let i = at; i < Math.min(N, at + 65536); i++) chunk += `{"_id":"d${i}","title":"","text":""}\n`;
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  const qids = Array.from({ length: NQ }, (_, i) => `q${i}`);
  writeFileSync(join(dir, 'queries.jsonl'), qids.map((q) => `{"_id":"${q}","text":""}\n`).join(''));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${qids.map((q, i) => `${q}\td${i % N}\t1\n`).join('')}`);
  const ids = openSync(join(dir, 'doc-ids.txt'), 'w');
  try {
    for (let at = 0; at < N; at += 65536) writeSync(ids, Array.from({ length: Math.min(65536, N - at) }, (_, i) => `d${at + i}\n`).join(''));
  } finally {
    closeSync(ids);
  }
  writeFileSync(join(dir, 'query-ids.txt'), qids.map((q) => `${q}\n`).join(''));
}

const PEER = `
import resource, sys, time
import numpy as np
docs, queries, k, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
t0 = time.perf_counter()
D = np.load(docs, mmap_mode='r')
Q = np.load(queries).astype(np.float32)
n = D.shape[0]
best_s = np.full((Q.shape[0], 0), -np.inf, dtype=np.float32)
best_i = np.zeros((Q.shape[0], 0), dtype=np.int64)
for at in range(0, n, 65536):
    B = np.asarray(D[at:at + 65536], dtype=np.float32)
    S = np.concatenate([best_s, Q @ B.T], axis=1)
    I = np.concatenate([best_i, np.broadcast_to(np.arange(at, at + B.shape[0]), (Q.shape[0], B.shape[0]))], axis=1)
    if S.shape[1] > k:
        p = np.argpartition(-S, k - 1, axis=1)[:, :k]
        S = np.take_along_axis(S, p, axis=1)
        I = np.take_along_axis(I, p, axis=1)
    best_s, best_i = S, I
order = np.argsort(-best_s, axis=1, kind='stable')
best_i = np.take_along_axis(best_i, order, axis=1)
t1 = time.perf_counter()
np.save(out, best_i[:10])
ru = resource.getrusage(resource.RUSAGE_SELF)
print(f"{t1 - t0:.3f} {ru.ru_maxrss * 1024} {ru.ru_utime + ru.ru_stime:.3f}")
`;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'irw-bench-dense-'));
  try {
    console.log(`dense at scale: ${N.toLocaleString('en')} x ${DIM} document embeddings (${DESCR}), ${NQ} queries, exact top-${K} (dot); load average ${load()}`);
    let t = performance.now();
    dataset(dir);
    writeMatrix(join(dir, 'docs.npy'), N, 7);
    writeMatrix(join(dir, 'queries.npy'), NQ, 11);
    console.log(`  synthetic dataset and matrices written in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const out = join(dir, 'run.trec');
    t = performance.now();
    const r = spawnSync(
      process.execPath,
      ['-r', join(__dirname, 'rss.cjs'), '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'run', '--retriever', 'dense', '--dataset', dir, '--similarity', 'dot',
        '--top-k', String(K), '--doc-embeddings', join(dir, 'docs.npy'), '--doc-ids', join(dir, 'doc-ids.txt'),
        '--query-embeddings', join(dir, 'queries.npy'), '--query-ids', join(dir, 'query-ids.txt'), '--out', out],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    const wall = (performance.now() - t) / 1000;
    if (r.status !== 0) throw new Error(`irw run failed (${r.status}):\n${r.stderr}`);
    const [, rss, cpu] = /IRW_BENCH (\d+) ([\d.]+)/.exec(r.stderr)!;
    const summary = r.stderr.split('\n').find((l) => l.startsWith('wrote ')) ?? '';
    console.log(`  irw (whole process, one thread): ${wall.toFixed(1)} s wall, ${Number(cpu).toFixed(1)} s CPU, peak RSS ${mb(Number(rss) * 1024)} (goal <= 512 MB); load average ${load()}`);
    console.log(`    ${summary.replace(/^wrote \S+: /, '')}`);
    console.log(`    ${((N * NQ * DIM) / (Number(/search (\d+) ms/.exec(summary)?.[1] ?? NaN) / 1000) / 1e9).toFixed(2)} G multiply-adds/s in the search`);

    if (values['no-peer']) return;
    const py = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
    if (py.status !== 0) {
      console.log('  numpy peer: skipped (python3 with numpy not installed: apt-get install python3-numpy)');
      return;
    }
    writeFileSync(join(dir, 'peer.py'), PEER);
    const env = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
    t = performance.now();
    const p = spawnSync('python3', [join(dir, 'peer.py'), join(dir, 'docs.npy'), join(dir, 'queries.npy'), String(K), join(dir, 'peer-top.npy')], { encoding: 'utf8', env });
    const pWall = (performance.now() - t) / 1000;
    if (p.status !== 0) throw new Error(`numpy peer failed:\n${p.stderr}`);
    const [pSearch, pRss, pCpu] = p.stdout.trim().split(' ').map(Number);
    console.log(`  numpy (one BLAS thread, float32): ${pWall.toFixed(1)} s wall (search ${pSearch.toFixed(1)} s), ${pCpu.toFixed(1)} s CPU, peak RSS ${mb(pRss)} (its memory-mapped matrix counts there); load average ${load()}`);
    console.log(`  ratio irw / numpy: wall ${(wall / pWall).toFixed(2)}x, CPU ${(Number(cpu) / pCpu).toFixed(2)}x (the fairer figure under load), peak RSS ${((Number(rss) * 1024) / pRss).toFixed(2)}x`);
    // Overlap of the first 10 queries' top-k lists (numpy's .npy of int64 indices: header, then data).
    const top = readFileSync(join(dir, 'peer-top.npy'));
    const idx = new BigInt64Array(top.buffer.slice(top.byteOffset + top.length - 10 * K * 8, top.byteOffset + top.length));
    const run = readRun(out);
    let same = 0;
    for (let q = 0; q < 10; q++) {
      const ours = new Set(run.ranking(`q${q}`)!.docs);
      for (let j = 0; j < K; j++) if (ours.has(`d${idx[q * K + j]}`)) same++;
    }
    console.log(`  top-${K} overlap with numpy over 10 queries: ${((same / (10 * K)) * 100).toFixed(2)} %`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
