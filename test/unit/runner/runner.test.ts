import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { InputError } from '../../../src/core/formats/errors';
import type { Bm25RunRequest, RunProgress } from '../../../src/core/retrieval/bm25/run';
import { RunnerError, startBm25Run, type StartOptions } from '../../../src/runner/client';
import { writeSyntheticBeir } from '../../helpers/syntheticBeir';
import { DATASETS, needsShared } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const SCIFACT = join(DATASETS, 'scifact');
// The child runs from source through tsx (the bundle, dist/runner.js, is the same module bundled).
const CHILD: StartOptions = { runnerPath: join(ROOT, 'src/runner/child.ts'), execArgv: ['--import', 'tsx'] };

function alive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runner child process', () => {
  let dir: string;
  let big: string;
  const request = (over: Partial<Bm25RunRequest>): Bm25RunRequest => ({
    dataset: big,
    split: 'test',
    k1: 0.9,
    b: 0.4,
    fields: 'flat',
    topK: 10,
    removeQuery: true,
    rm3: null,
    queryWeights: null,
    cacheDir: null,
    out: join(dir, 'run.trec'),
    ...over,
  });
  /** Files left in the output folder besides the expected ones (temporary run files would show here). */
  const leftovers = (outDir: string) => readdirSync(outDir).filter((f) => f.includes('.partial'));

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-runner-'));
    // Big enough that indexing and searching take seconds, so cancel and kill land mid-run.
    big = join(dir, 'big');
    writeSyntheticBeir(big, { docs: 25_000, queries: 4000, meanWords: 80, vocabulary: 50_000 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs BM25 in a child, reports progress, writes the run and exits', { skip: needsShared('datasets/scifact') }, async () => {
    const progress: RunProgress[] = [];
    const out = join(dir, 'ok.trec');
    const handle = startBm25Run(request({ dataset: SCIFACT, topK: 10, out }), { ...CHILD, onProgress: (p) => progress.push(p) });
    const result = await handle.result;
    assert.equal(result.queries, 300);
    assert.equal(result.documents, 5183);
    assert.equal(result.tag, 'bm25-flat-k1=0.9-b=0.4-removeQuery');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(lines.length, result.lines);
    assert.match(lines[0], /^\S+ Q0 \S+ 1 \d+\.\d{6} bm25-flat-k1=0\.9-b=0\.4-removeQuery$/);
    assert.ok(progress.some((p) => p.phase === 'index' && p.done === 5183));
    assert.ok(progress.some((p) => p.phase === 'search' && p.done === 300));
    assert.deepEqual(leftovers(dir), []);
    await waitUntil(() => !alive(handle.pid));
  });

  it('cancel stops the child promptly, removes partial output, leaves no process', async () => {
    const out = join(dir, 'cancelled.trec');
    const ac = new AbortController();
    let sawSearch = false;
    const handle = startBm25Run(request({ dataset: big, out, topK: 1000 }), {
      ...CHILD,
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'search' && !sawSearch) {
          sawSearch = true;
          ac.abort(); // mid-search: the temporary run file exists now
        }
      },
    });
    const t = Date.now();
    await assert.rejects(handle.result, (e: unknown) => e instanceof RunnerError && e.code === 'cancelled');
    assert.ok(sawSearch);
    assert.ok(Date.now() - t < 30_000);
    assert.equal(existsSync(out), false);
    assert.deepEqual(leftovers(dir), []);
    await waitUntil(() => !alive(handle.pid));
  });

  it('a signal aborted before the child is ready cancels without running', async () => {
    const out = join(dir, 'early.trec');
    const handle = startBm25Run(request({ out }), { ...CHILD, signal: AbortSignal.abort() });
    await assert.rejects(handle.result, (e: unknown) => e instanceof RunnerError && e.code === 'cancelled');
    assert.equal(existsSync(out), false);
    await waitUntil(() => !alive(handle.pid));
  });

  it('kill -9 of the child gives the parent a clear error and no partial file', async () => {
    const out = join(dir, 'killed.trec');
    let killed = false;
    const handle = startBm25Run(request({ dataset: big, out, topK: 1000 }), {
      ...CHILD,
      onProgress: (p) => {
        if (p.phase === 'search' && !killed) {
          killed = true;
          process.kill(handle.pid!, 'SIGKILL');
        }
      },
    });
    await assert.rejects(handle.result, (e: unknown) => {
      assert.ok(e instanceof RunnerError);
      assert.equal(e.code, 'crashed');
      assert.match(e.message, /SIGKILL/);
      return true;
    });
    assert.equal(existsSync(out), false);
    assert.deepEqual(leftovers(dir), []);
  });

  it('if the parent dies, the child stops, removes its partial output and exits', async () => {
    const outDir = join(dir, 'orphan');
    mkdirSync(outDir);
    const parent = join(dir, 'parent.ts');
    // A parent that starts a run and exits abruptly (no cancel) once the child is searching.
    writeFileSync(
      parent,
      `import { startBm25Run } from ${JSON.stringify(join(ROOT, 'src/runner/client.ts'))};
const h = startBm25Run(${JSON.stringify(request({ dataset: big, out: join(outDir, 'o.trec'), topK: 1000 }))},
  { runnerPath: ${JSON.stringify(CHILD.runnerPath)}, execArgv: ['--import', 'tsx'], onProgress: (p) => {
    if (p.phase === 'search') { process.stdout.write(String(h.pid) + '\\n'); process.exit(0); } } });
h.result.catch(() => undefined);
`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', parent], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    const pid = Number(r.stdout.trim());
    assert.ok(pid > 0, r.stderr);
    await waitUntil(() => !alive(pid), 10_000);
    assert.deepEqual(readdirSync(outDir), []);
  });

  it('bad input comes back as an InputError with file and line', async () => {
    const bad = join(dir, 'bad');
    mkdirSync(join(bad, 'qrels'), { recursive: true });
    writeFileSync(join(bad, 'corpus.jsonl'), '{"_id": "d1", "text": "a b"}\n{"_id": "d2", "text": "c"}\n');
    writeFileSync(join(bad, 'queries.jsonl'), '{"_id": "q1", "text": "a"}\n');
    writeFileSync(join(bad, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\nq1\td2\tlots\r\n');
    const out = join(dir, 'bad.trec');
    await assert.rejects(startBm25Run(request({ dataset: bad, out }), CHILD).result, (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.file, join(bad, 'qrels', 'test.tsv'));
      assert.equal(e.line, 3);
      assert.match(e.format(), /test\.tsv:3: /);
      return true;
    });
    assert.equal(existsSync(out), false);
  });

  it('an invalid request is a usage error', async () => {
    await assert.rejects(
      startBm25Run(request({ b: 2 }), CHILD).result,
      (e: unknown) => e instanceof RunnerError && e.code === 'usage' && /b must be between 0 and 1/.test(e.message),
    );
  });

  it('a runner that cannot start is reported, not awaited forever', async () => {
    await assert.rejects(
      startBm25Run(request({}), { runnerPath: join(dir, 'no-such-runner.js') }).result,
      (e: unknown) => e instanceof RunnerError && e.code === 'crashed',
    );
  });
});

async function waitUntil(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
