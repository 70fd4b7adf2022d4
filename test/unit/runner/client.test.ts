import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../src/core/formats/errors';
import type { Bm25RunRequest } from '../../../src/core/retrieval/bm25/run';
import { RunnerError, startBm25Run, type StartOptions } from '../../../src/runner/client';
import { writeSyntheticBeir } from '../../helpers/syntheticBeir';

const ROOT = resolve(__dirname, '../../..');
const CHILD: StartOptions = { runnerPath: join(ROOT, 'src/runner/child.ts'), execArgv: ['--import', 'tsx'] };
const dir = mkdtempSync(join(tmpdir(), 'irw-runner-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const request = (over: Partial<Bm25RunRequest>): Bm25RunRequest => ({
  dataset: join(dir, 'ds'),
  split: 'test',
  k1: 0.9,
  b: 0.4,
  fields: 'flat',
  topK: 10,
  removeQuery: true,
  rm3: null,
  queryWeights: null,
  cacheDir: null,
  out: join(dir, 'out', 'run.trec'),
  ...over,
});

describe('runner client: faults', () => {
  it('a stopped child (SIGSTOP) with no cancel fails the run with a clear message instead of hanging', { timeout: 60_000 }, async () => {
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeSyntheticBeir(join(dir, 'big'), { docs: 20_000, queries: 2000, meanWords: 60, vocabulary: 40_000 });
    const handle = startBm25Run(request({ dataset: join(dir, 'big') }), {
      ...CHILD,
      silenceMs: 3000,
      onProgress: () => {
        if (handle.pid) process.kill(handle.pid, 'SIGSTOP');
      },
    });
    await assert.rejects(handle.result, (e: unknown) => e instanceof RunnerError && e.code === 'crashed' && /sent nothing for 3 s \(stopped or hung\)/.test(e.message));
    assert.deepEqual(
      readdirSync(join(dir, 'out')).filter((f) => f.includes('.partial')),
      [],
    );
  });

  it('bad corpus lines are skipped and reported as warnings; the run is written', async () => {
    const ds = join(dir, 'ds');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), '\ufeff{"_id": "d1", "text": "apple"}\n{"_id": "d2" "text": "x"}\n{"_id": "d3", "text": "apple pie"}\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "apple"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    const warnings: string[] = [];
    const r = await startBm25Run(request({}), { ...CHILD, onWarning: (t) => warnings.push(t) }).result;
    assert.equal(r.lines, 2);
    assert.ok(warnings.some((w) => /byte-order mark/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /corpus\.jsonl:2: not valid JSON at column 14/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /skipped 1 bad line of .*corpus\.jsonl/.test(w)), warnings.join('\n'));
  });

  it('an empty split is refused up front as bad input', async () => {
    writeFileSync(join(dir, 'ds', 'qrels', 'empty.tsv'), 'query-id\tcorpus-id\tscore\n');
    await assert.rejects(startBm25Run(request({ split: 'empty' }), CHILD).result, (e: unknown) => e instanceof InputError && /no judgement/.test(e.message));
  });
});
