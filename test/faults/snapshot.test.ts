// Fault class: a damaged index snapshot (store.sqlite). Random damage anywhere in a real snapshot (a SciFact
// workspace indexed with a run and judgements): blocks of zeros or of garbage, single flipped bits, a cut end, the
// file replaced by another. Each must be discarded at start and everything rebuilt from the files, never used,
// never a dead engine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { EngineClient } from '../../src/core/engine/client';
import { openDatabase } from '../../src/core/index/database';
import { uniform } from '../../src/core/random';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';
import { REPO } from '../unit/support/paths';
import { tally } from './tally';

const WORKER = join(REPO, 'dist', 'engine.js');
const root = mkdtempSync(join(tmpdir(), 'irw-faults-snap-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('fault class: a damaged index snapshot', () => {
  const ws = join(root, 'ws');
  const ds = join(ws, 'synthetic');
  const dbPath = join(root, 'storage', 'store.sqlite');
  const args = { roots: [ws], runsFolder: 'runs', measures: ['ndcg_cut.10'] };

  it('damage at random offsets (zeros, garbage, a flipped bit, a cut end): always discarded, the engine rebuilds from the files', async () => {
    writeSyntheticBeir(ds, { docs: 600, queries: 15, vocabulary: 2000, seed: 21 });
    mkdirSync(join(ws, 'runs', 'synthetic'), { recursive: true });
    writeFileSync(join(ws, 'runs', 'synthetic', 'run.trec'), readFileSync(join(ds, 'qrels', 'test.tsv'), 'utf8').split('\n').slice(1).filter(Boolean).map((l, i) => `${l.split('\t')[0]} Q0 ${l.split('\t')[1]} 1 ${100 - i} r`).join('\n'));
    const first = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
    await first.request('index', args);
    for (let i = 0; i < 20; i++) await first.request('judge', { datasetDir: ds, split: 'test', queryId: 'q1', docId: `j${i}`, grade: i % 2 });
    await first.close();
    const good = readFileSync(dbPath);
    assert.equal((await openDatabase(dbPath)).discarded, undefined, 'the intact snapshot is used');

    const counts = tally('damaged index snapshot');
    const rnd = uniform(28);
    const damage: [string, (b: Buffer) => Buffer][] = [];
    for (let k = 0; k < 40; k++) {
      const at = Math.floor(rnd() * good.length);
      const len = 1 + Math.floor(rnd() * 4096);
      damage.push([`zeros at ${at}`, (b) => b.fill(0, at, at + len)]);
      damage.push([`garbage at ${at}`, (b) => b.fill(Math.floor(rnd() * 256), at, at + len)]);
      damage.push([`bit flipped at ${at}`, (b) => ((b[at] ^= 1 << Math.floor(rnd() * 8)), b)]);
    }
    for (const cut of [0, 1, 8, 100, Math.floor(good.length / 2), good.length - 1]) damage.push([`cut to ${cut}`, (b) => b.subarray(0, cut)]);
    damage.push(['an SQLite file of another program', () => Buffer.concat([Buffer.from('SQLite format 3\0'), good.subarray(16)])]);
    for (const [what, hurt] of damage) {
      const bad = hurt(Buffer.from(good));
      if (bad.equals(good)) continue; // zeros over zeros (SQLite's free space): no damage
      writeFileSync(dbPath, bad);
      const opened = await openDatabase(dbPath);
      const held = opened.discarded !== undefined && /damaged|unreadable/.test(opened.discarded);
      counts.case(held);
      assert.ok(held, `${what}: discarded (${opened.discarded})`);
      opened.db.close();
    }
    // Through the engine, a few of them: it starts, says why, and the files give back everything.
    for (const [what, hurt] of damage.filter((_, i) => i % 50 === 0)) {
      writeFileSync(dbPath, hurt(Buffer.from(good)));
      const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
      try {
        assert.match(client.discarded ?? '', /damaged|unreadable/, what);
        await client.request('index', args);
        const split = (await client.request('tree', {}))[0].splits[0];
        assert.equal(split.judgementCount, 20, `${what}: the judgements come back from the annotations file`);
        assert.equal(split.runs.length, 1);
      } finally {
        await client.close();
      }
    }
    truncateSync(dbPath, 0);
    assert.match((await openDatabase(dbPath)).discarded ?? '', /damaged/);
    rmSync(dbPath);
    mkdirSync(dbPath);
    assert.match((await openDatabase(dbPath)).discarded ?? '', /damaged|unreadable/, 'a folder in its place');
    assert.ok(existsSync(dbPath));
    counts.report();
  });
});
