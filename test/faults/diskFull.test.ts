// Fault class: a full disk (ENOSPC, a real one: a tiny tmpfs, see tinyDisk.ts) under every file the product writes:
// the annotations file and its journal and lock, the index snapshot, run files, the BM25 index cache, exports, and
// downloads (the partial file, then the unpacked dataset). Each case fills the disk to a different point, so writes
// fail before they start, part-way (a short write), or only for a second file. What must hold: nothing confirmed is
// lost, nothing half-written replaces a good file, the error names the file and says what to do, and once space
// is free the same action succeeds.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EngineClient } from '../../src/core/engine/client';
import { writeFileAtomic } from '../../src/core/durableFs';
import { InputError } from '../../src/core/formats/errors';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../src/core/judgements/annotations';
import { md5, startServer, zipFolder, type ServedFile } from '../helpers/datasetServer';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';
import { REPO, requireBuiltCli } from '../unit/support/paths';
import { fill, NO_TINY_DISKS, tinyDisk } from './tinyDisk';
import { tally } from './tally';

/** The bundled engine (starts in a fraction of the time the TypeScript source takes under tsx). */
const WORKER = join(REPO, 'dist', 'engine.js');
const PAGE = 4096;
const root = mkdtempSync(join(tmpdir(), 'irw-faults-full-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A small BEIR dataset on the ordinary disk (the inputs are never on the full one). */
const dataset = join(root, 'synthetic');
writeSyntheticBeir(dataset, { docs: 400, queries: 12, vocabulary: 1500, seed: 11 });

const irw = (args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), ...args], { encoding: 'utf8' });
/** irw without blocking this process (whose event loop serves the HTTP mirror). */
function irwAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [requireBuiltCli(), ...args]);
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.stdout.resume();
    child.on('close', (status) => resolve({ status, stderr }));
  });
}
const noStack = (stderr: string) => assert.doesNotMatch(stderr, /internal error|\n\s+at \S+ \(/);

describe('fault class: a full disk under every file the product writes', { skip: NO_TINY_DISKS }, () => {
  it('annotations (.tsv, journal, lock): a judgement is confirmed whole or refused with nothing of it kept', () => {
    const counts = tally('full disk: annotations file, journal, lock');
    for (const slack of [1, 5, 17, 29, 300]) {
      for (const room of [0, PAGE, 2 * PAGE]) {
        const disk = tinyDisk(512);
        try {
          const dir = join(disk.dir, 'ds');
          const { tsv } = annotationPaths(dir, 'test');
          mkdirSync(join(dir, 'qrels'), { recursive: true });
          // A file whose last page has `slack` bytes left: the next line crosses into a page the disk may not have.
          const head = 'query-id\tcorpus-id\tscore\n';
          writeFileSync(tsv, `${head}#${'x'.repeat(PAGE - slack - head.length - 2)}\n`);
          const { writer } = AnnotationWriter.open(dir, 'test');
          writer.judge({ queryId: 'q0', docId: 'before', grade: 1 });
          const free = fill(disk.dir, room);
          const before = readFileSync(tsv);
          let confirmed = false;
          try {
            writer.judge({ queryId: 'q1', docId: 'during-the-full-disk', grade: 1, note: 'n'.repeat(200) });
            confirmed = true;
          } catch (e) {
            assert.match((e as Error).message, new RegExp(`^Not recorded: writing ${tsv} failed \\(ENOSPC\\) because the disk is full. Free some space`), `slack ${slack} room ${room}`);
          }
          const during = readFileSync(tsv);
          if (confirmed) assert.ok(during.toString().endsWith('q1\tduring-the-full-disk\t1\n'));
          else assert.ok(during.equals(before), `slack ${slack} room ${room}: nothing of a refused judgement is kept`);
          free();
          writer.judge({ queryId: 'q2', docId: 'after', grade: 0 });
          writer.close();
          const read = readAnnotations(tsv);
          assert.deepEqual(read.problems, []);
          assert.deepEqual(read.judgements.map((j) => j.docId), confirmed ? ['before', 'during-the-full-disk', 'after'] : ['before', 'after']);
          counts.case(true);
        } finally {
          disk.umount();
        }
      }
    }
    counts.report();
  });

  it('the index snapshot: judgements are confirmed, the engine answers, the save fails naming the file, then works once there is room', async () => {
    const counts = tally('full disk: index snapshot');
    for (const room of [0, 16 * PAGE]) {
      const disk = tinyDisk(4096);
      const ws = join(root, `snap-${room}`);
      mkdirSync(ws);
      const ds = join(ws, 'synthetic');
      for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) {
        mkdirSync(join(ds, f, '..'), { recursive: true });
        writeFileSync(join(ds, f), readFileSync(join(dataset, f)));
      }
      const dbPath = join(disk.dir, 'storage', 'store.sqlite');
      const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 5 });
      const warnings: string[] = [];
      client.onWarning((w) => warnings.push(w));
      try {
        await client.request('index', { roots: [ws], runsFolder: 'runs', measures: [] });
        await client.request('flush', {});
        const free = fill(disk.dir, room);
        for (let i = 0; i < 10; i++) await client.request('judge', { datasetDir: ds, split: 'test', queryId: 'q1', docId: `full-${i}`, grade: 1 });
        await client.request('index', { roots: [ws], runsFolder: 'runs', measures: [] });
        await assert.rejects(client.request('flush', {}), (e: Error) => e.message.includes(dbPath) && /disk is full/.test(e.message));
        assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, 10);
        assert.deepEqual(readdirSync(join(disk.dir, 'storage')), ['store.sqlite'], 'no temporary file left');
        free();
        await client.request('flush', {});
        assert.ok(warnings.length >= 1 && /could not be saved/.test(warnings[0]));
      } finally {
        await client.close();
      }
      const reopened = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
      try {
        assert.equal(reopened.discarded, undefined, 'the snapshot saved after the disk had room is used');
        assert.equal((await reopened.request('tree', {}))[0].splits[0].judgementCount, 10);
      } finally {
        await reopened.close();
        disk.umount();
      }
      counts.case(true);
    }
    counts.report();
  });

  it('run files: irw run on a full disk exits 1 naming the file; the run there before is intact, nothing partial is left', () => {
    const counts = tally('full disk: run files (and their .json)');
    for (const room of [0, PAGE, 8 * PAGE]) {
      const disk = tinyDisk(1024);
      try {
        const out = join(disk.dir, 'runs', 'bm25.trec');
        const ok = irw(['run', '--dataset', dataset, '--out', out, '--top-k', '50']);
        assert.equal(ok.status, 0, ok.stderr);
        const good = readFileSync(out);
        const goodSidecar = readFileSync(`${out}.json`);
        const free = fill(disk.dir, room);
        const r = irw(['run', '--dataset', dataset, '--out', out, '--top-k', '100', '--tag', 'second']);
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, new RegExp(`${out}: cannot write file: the disk is full \\(ENOSPC\\)`));
        noStack(r.stderr);
        assert.ok(readFileSync(out).equals(good) && readFileSync(`${out}.json`).equals(goodSidecar), 'the run before is intact');
        assert.deepEqual(readdirSync(join(disk.dir, 'runs')).sort(), ['bm25.trec', 'bm25.trec.json']);
        free();
        const again = irw(['run', '--dataset', dataset, '--out', out, '--top-k', '100', '--tag', 'second']);
        assert.equal(again.status, 0, again.stderr);
        assert.match(readFileSync(out, 'utf8'), / second\n$/);
        counts.case(true);
      } finally {
        disk.umount();
      }
    }
    counts.report();
  });

  it('the BM25 index cache: a full cache folder costs the cache, not the run', () => {
    const counts = tally('full disk: BM25 index cache');
    const plain = join(root, 'uncached.trec');
    assert.equal(irw(['run', '--dataset', dataset, '--out', plain, '--top-k', '20']).status, 0);
    for (const room of [0, PAGE, 4 * PAGE]) {
      const disk = tinyDisk(256);
      try {
        const out = join(root, `cached-${room}.trec`);
        const free = fill(disk.dir, room);
        const r = irw(['run', '--dataset', dataset, '--out', out, '--top-k', '20', '--cache', join(disk.dir, 'cache')]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stderr, /could not be cached in .*disk is full/);
        assert.equal(readFileSync(out, 'utf8').replace(/ \S+\n/g, '\n'), readFileSync(plain, 'utf8').replace(/ \S+\n/g, '\n'));
        assert.deepEqual(existsSync(join(disk.dir, 'cache')) ? readdirSync(join(disk.dir, 'cache')) : [], [], 'no partial cache file');
        free();
        counts.case(true);
      } finally {
        disk.umount();
      }
    }
    counts.report();
  });

  it('exports (judgements as qrels, the results table): the previous export stays whole, the error names the file', async () => {
    const counts = tally('full disk: exports');
    const disk = tinyDisk(512);
    const ws = join(root, 'export-ws');
    const ds = join(ws, 'synthetic');
    for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv']) {
      mkdirSync(join(ds, f, '..'), { recursive: true });
      writeFileSync(join(ds, f), readFileSync(join(dataset, f)));
    }
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', { roots: [ws], runsFolder: 'runs', measures: [] });
      for (let i = 0; i < 600; i++) await client.request('judge', { datasetDir: ds, split: 'test', queryId: `q${i % 12}`, docId: `doc-${i}`, grade: i % 2 });
      const out = join(disk.dir, 'judgements.qrels');
      await client.request('exportJudgements', { datasetDir: ds, split: 'test', format: 'trec', merge: true, out });
      const good = readFileSync(out);
      assert.ok(good.length > 2 * PAGE);
      // No room, a page, two pages (the export needs three): it fails before its write, early in it, late in it.
      for (const room of [0, PAGE, 2 * PAGE]) {
        await client.request('judge', { datasetDir: ds, split: 'test', queryId: 'q1', docId: `new-${room}`, grade: 1 });
        const free = fill(disk.dir, room);
        await assert.rejects(client.request('exportJudgements', { datasetDir: ds, split: 'test', format: 'trec', merge: true, out }), (e: Error) => e.message.startsWith(`${out}: cannot write file: the disk is full`) && /file was not changed/.test(e.message));
        assert.ok(readFileSync(out).equals(good));
        assert.throws(() => writeFileAtomic(join(disk.dir, 'results.csv'), 'x'.repeat(3 * PAGE)), (e: unknown) => e instanceof InputError && /disk is full/.test(e.message));
        assert.deepEqual(readdirSync(disk.dir).filter((f) => f !== '.filler').sort(), ['judgements.qrels']);
        free();
        counts.case(true);
      }
    } finally {
      await client.close();
      disk.umount();
    }
    counts.report();
  });

  describe('downloads', () => {
    let zip: Buffer;
    const files = new Map<string, ServedFile>();
    let server: Awaited<ReturnType<typeof startServer>>;
    before(async () => {
      zip = await zipFolder(dataset, 'scifact');
      files.set('/beir/scifact.zip', { body: zip });
      server = await startServer(files);
    });
    after(() => server.close());

    it('the partial download and the unpacked dataset: exit 1 naming the file; once there is room the same command resumes, without downloading twice', async () => {
      const counts = tally('full disk: downloads (partial file, unpacking)');
      for (const [what, kib] of [['download', Math.floor(zip.length / 2048)], ['unpack', Math.ceil((zip.length * 1.5) / 1024) + 16]] as const) {
        const disk = tinyDisk(kib);
        try {
          const args = ['datasets', 'get', 'scifact', '--dir', disk.dir, '--base-url', `${server.url}/beir`, '--md5', md5(zip)];
          server.ranges.length = 0;
          const r = await irwAsync(args);
          assert.equal(r.status, 1, `${what}: ${r.stderr}`);
          assert.match(r.stderr, /disk is full/, what);
          assert.match(r.stderr, what === 'download' ? /scifact\.zip\.part: the download could not be written/ : /scifact\.zip: unpacking .* failed: the disk is full/, what);
          noStack(r.stderr);
          assert.ok(!existsSync(join(disk.dir, 'scifact')), `${what}: no half dataset`);
          assert.deepEqual(readdirSync(disk.dir).filter((f) => f.startsWith('.scifact')), [], `${what}: no staging folder or lock left`);
          const requests = server.ranges.length;
          spawnSync('mount', ['-o', 'remount,size=16m', disk.dir]);
          const again = await irwAsync(args);
          assert.equal(again.status, 0, again.stderr);
          if (what === 'download') assert.match(String(server.ranges[requests]), /^bytes=\d+-$/, 'resumed with a Range request');
          else assert.equal(server.ranges.length, requests, 'the complete zip is not downloaded again');
          assert.ok(readFileSync(join(disk.dir, 'scifact', 'corpus.jsonl')).equals(readFileSync(join(dataset, 'corpus.jsonl'))));
          counts.case(true);
        } finally {
          disk.umount();
        }
      }
      counts.report();
    });
  });
});
