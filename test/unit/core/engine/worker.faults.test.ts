// The engine under faults (issue 28): a snapshot that cannot be written or read, an annotations file another
// program replaced or deleted, a worker that dies, a grade off the dataset's scale from any sender.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { after, describe, it } from 'node:test';
import { EngineClient } from '../../../../src/core/engine/client';
import { readAnnotations } from '../../../../src/core/judgements/annotations';
import { scifactWorkspace } from '../../../helpers/storeFixtures';

const WORKER = join(__dirname, '../../../../src/core/engine/worker.ts');
const RUN = 'bm25okapi.knarfthekant.trec';

describe('engine faults', () => {
  const ws = scifactWorkspace([RUN]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));
  const args = { roots: [ws.root], runsFolder: 'runs', measures: ['ndcg_cut.10'] };
  const tsv = join(ws.dataset, 'qrels', 'test.annotations.tsv');
  const judge = (client: EngineClient, queryId: string, docId: string, grade: number) => client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId, docId, grade });

  it('a snapshot that cannot be written (a folder at its path) is a warning: every judgement is confirmed, the engine answers on', async () => {
    const storage = join(ws.root, 'storage-folder');
    const dbPath = join(storage, 'store.sqlite');
    mkdirSync(dbPath, { recursive: true });
    const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 5 });
    const warnings: string[] = [];
    client.onWarning((m) => warnings.push(m));
    try {
      await client.request('index', args);
      for (let i = 0; i < 40; i++) {
        await judge(client, '1', `snap-${i}`, i % 2);
        if (i % 10 === 0) await assert.rejects(client.request('flush', {}), new RegExp(`${dbPath}: cannot write file: a folder of that name exists`));
        await new Promise((r) => setTimeout(r, 2)); // the debounced save runs (and fails) between judgements
      }
      const lines = readFileSync(tsv, 'utf8');
      for (let i = 0; i < 40; i++) assert.ok(lines.includes(`1\tsnap-${i}\t${i % 2}\n`), `judgement ${i} on disk`);
      assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, 40);
      assert.equal(warnings.length, 1, 'said once, not at every retry');
      assert.match(warnings[0], /snapshot could not be saved.*Nothing is lost/s);
      assert.deepEqual(readdirSync(storage), ['store.sqlite'], 'no temporary file left');
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('a snapshot damaged anywhere (its header intact) is discarded and rebuilt from the files', async () => {
    const dbPath = join(ws.root, 'storage-damaged', 'store.sqlite');
    const first = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
    await first.request('index', args);
    await first.close();
    const good = readFileSync(dbPath);
    for (const offset of [200, Math.floor(good.length / 3), good.length - 100]) {
      const bad = Buffer.from(good);
      bad.fill(0x5a, offset, Math.min(bad.length, offset + 64));
      writeFileSync(dbPath, bad);
      const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
      try {
        assert.match(client.discarded ?? '', /damaged/, `offset ${offset}`);
        assert.equal((await client.request('index', args)).runs, 1);
        assert.equal((await client.request('tree', {}))[0].splits[0].runs.length, 1);
      } finally {
        await client.close();
      }
    }
  });

  it("checks every grade against the split's scale, whoever sends it; -1 (an undo) always passes", async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', args);
      for (const grade of [2, 10, -2, 0.5]) {
        await assert.rejects(judge(client, '1', 'scale-doc', grade), /not an integer on this dataset's scale \(0, 1\) or -1/, String(grade));
      }
      await judge(client, '1', 'scale-doc', 1);
      await judge(client, '1', 'scale-doc', -1);
      assert.ok(!readFileSync(tsv, 'utf8').includes('scale-doc\t2'));
    } finally {
      await client.close();
    }
  });

  it('an annotations file replaced by rename or deleted: the next judgements are in the file the path names, counted as in it', async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', args);
      await judge(client, '3', 'ren-1', 1);
      // sed -i: the new file drops one line (the user removed a judgement by hand).
      const edited = readFileSync(tsv, 'utf8').replace('3\tren-1\t1\n', '');
      writeFileSync(`${tsv}.sed`, edited);
      renameSync(`${tsv}.sed`, tsv);
      await judge(client, '3', 'ren-2', 1);
      await judge(client, '3', 'ren-3', 0);
      const lines = readFileSync(tsv, 'utf8');
      assert.ok(lines.includes('3\tren-2\t1\n') && lines.includes('3\tren-3\t0\n') && !lines.includes('ren-1'));
      await client.request('index', args);
      assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, readAnnotations(tsv).judgements.filter((j) => j.grade >= 0).length);
      unlinkSync(tsv);
      await judge(client, '3', 'del-1', 1);
      assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\n3\tdel-1\t1\n');
      await client.request('index', args);
      assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, 1);
    } finally {
      await client.close();
    }
  });

  it('a worker that dies is restarted: the request in flight fails saying so, listeners stay, the next request is answered', async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', args);
      const restarted = new Promise<{ why: string; running: boolean }>((resolve) => client.onRestarted(resolve));
      const inFlight = client.request('index', args);
      await (client as unknown as { worker: Worker }).worker.terminate();
      await assert.rejects(inFlight, /engine stopped \(it exited with code 1\); it is being restarted/);
      const r = await restarted;
      assert.equal(r.running, true);
      assert.equal((await client.request('index', args)).runs, 1);
      await judge(client, '5', 'after-restart', 1);
      assert.ok(readFileSync(tsv, 'utf8').includes('5\tafter-restart\t1\n'));
    } finally {
      await client.close();
    }
  });
});
