// Line reading of gzip, standard input and UTF-16 (issue 28 item 11, issue 25 item 10).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { InputError } from '../../../../src/core/formats/errors';
import { forEachLineSync } from '../../../../src/core/formats/lines';
import { readRun } from '../../../../src/core/formats/run';
import { CLI, REPO, requireBuiltCli } from '../../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'irw-lines-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A gzip file of `chunks` pieces, streamed (never whole in memory), fastest compression. */
async function gzipOf(name: string, chunks: () => Iterable<Buffer>): Promise<string> {
  const path = join(dir, name);
  await pipeline(Readable.from(chunks()), createGzip({ level: constants.Z_BEST_SPEED }), createWriteStream(path));
  return path;
}

/** Reads `path` line by line in a child process; its answer: lines, the error, and its peak resident memory. */
function readInChild(path: string): { lines?: number; error?: { message: string; hint?: string; line?: number }; maxRssMb: number } {
  const script = `
    const { forEachLineSync } = require(${JSON.stringify(join(REPO, 'src/core/formats/lines.ts'))});
    let out;
    try { out = { lines: forEachLineSync(${JSON.stringify(path)}, () => {}) }; }
    catch (e) { out = { error: { message: e.message, hint: e.hint, line: e.line } }; }
    out.maxRssMb = process.resourceUsage().maxRSS / 1024;
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('gzip input', () => {
  it('streams: a small .gz of one 1 GiB line fails at the line limit with its own hint, memory bounded by that limit', async () => {
    const mib = Buffer.alloc(1 << 20, 0x61);
    const path = await gzipOf('one-line.gz', function* () {
      for (let i = 0; i < 1024; i++) yield mib;
    });
    const r = readInChild(path);
    assert.match(r.error?.message ?? '', /longer than 32 MiB without a line break/);
    assert.equal(r.error?.line, 1);
    assert.doesNotMatch(r.error?.hint ?? '', /copied completely/);
    // Whole-file decompression held the 1 GiB (2.24 GB peak in the audit); streaming holds the line limit and a step.
    assert.ok(r.maxRssMb < 400, `peak ${r.maxRssMb.toFixed(0)} MB`);
  });

  it('streams: a valid run of 256 MiB decompressed is read whole, memory far below its size', async () => {
    const block = Buffer.from(Array.from({ length: 4096 }, (_, i) => `q${i % 50} Q0 doc${i} ${i + 1} ${(1000 - i / 10).toFixed(4)} tag\n`).join(''));
    const copies = Math.ceil((256 << 20) / block.length);
    const path = await gzipOf('big-run.gz', function* () {
      for (let i = 0; i < copies; i++) yield block;
    });
    const r = readInChild(path);
    assert.equal(r.lines, copies * 4096);
    assert.ok(r.maxRssMb < 256, `peak ${r.maxRssMb.toFixed(0)} MB`);
  });

  it('a truncated gzip says it ends early; damaged gzip data says so; neither passes as a shorter file', () => {
    const text = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `q1 Q0 d${i} ${i + 1} ${-i} t\n`).join(''));
    const gz = gzipSync(text);
    const truncated = join(dir, 'truncated.gz');
    writeFileSync(truncated, gz.subarray(0, gz.length - 100));
    assert.throws(() => readRun(truncated), (e: unknown) => e instanceof InputError && e.file === truncated && /ends early/.test(e.hint ?? ''));
    const damaged = join(dir, 'damaged.gz');
    const bad = Buffer.from(gz);
    bad[gz.length - 6] ^= 0xff; // the CRC: every deflate block still decodes
    writeFileSync(damaged, bad);
    assert.throws(() => readRun(damaged), (e: unknown) => e instanceof InputError && /data is damaged/.test(e.hint ?? '') && /check/.test(e.message));
    const twoMembers = join(dir, 'members.gz');
    writeFileSync(twoMembers, Buffer.concat([gzipSync(text.subarray(0, 1000)), gzipSync(text.subarray(1000))]));
    assert.equal(readRun(twoMembers).numLines, 20_000, 'concatenated members (pigz, cat a.gz b.gz) read on');
  });

  it("on standard input ('-') gzip is recognised by its magic bytes, as on a file", () => {
    requireBuiltCli();
    const qrels = join(dir, 'qrels.txt');
    writeFileSync(qrels, 'q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n');
    const run = 'q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d4 1 3.0 t\nq2 Q0 d3 2 1.0 t\n';
    const plain = spawnSync(process.execPath, [CLI, 'eval', '-m', 'map', qrels, '-'], { input: run, encoding: 'utf8' });
    const gz = spawnSync(process.execPath, [CLI, 'eval', '-m', 'map', qrels, '-'], { input: gzipSync(run), encoding: 'utf8' });
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(gz.status, 0, gz.stderr);
    assert.equal(gz.stdout, plain.stdout);
    assert.match(gz.stdout, /map\s+all\s+0\.7500/);
  });

  it('reads from a pipe that delivers the gzip header a byte at a time', () => {
    const text = 'a\nb\nc\n';
    const script = `
      const { forEachLineSync } = require(${JSON.stringify(join(REPO, 'src/core/formats/lines.ts'))});
      const lines = []; forEachLineSync('-', (b, s, e) => lines.push(b.toString('utf8', s, e)));
      console.log(JSON.stringify(lines));`;
    const gz = gzipSync(text);
    const feeder = `const gz = Buffer.from(${JSON.stringify(gz.toString('base64'))}, 'base64'); let i = 0;
      const next = () => { if (i < gz.length) { process.stdout.write(gz.subarray(i, i + 1)); i++; setTimeout(next, i < 4 ? 30 : 0); } }; next();`;
    const r = spawnSync('sh', ['-c', `"${process.execPath}" -e "$FEED" | "${process.execPath}" --require tsx/cjs -e "$READ"`], {
      cwd: REPO,
      env: { ...process.env, FEED: feeder, READ: script },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), ['a', 'b', 'c']);
  });
});

describe('UTF-16 input', () => {
  it('is decoded to the same lines as its UTF-8 text (with or without a byte-order mark)', () => {
    const text = 'q1 0 d1 1\r\nq1 0 dé 2\n';
    for (const bytes of [Buffer.concat([Buffer.of(0xff, 0xfe), Buffer.from(text, 'utf16le')]), Buffer.from(text, 'utf16le').swap16(), Buffer.from(text, 'utf16le')]) {
      const path = join(dir, 'utf16.txt');
      writeFileSync(path, bytes);
      const lines: string[] = [];
      forEachLineSync(path, (b, s, e) => lines.push(b.toString('utf8', s, e)));
      assert.deepEqual(lines, ['q1 0 d1 1', 'q1 0 dé 2'], readFileSync(path).subarray(0, 4).toString('hex'));
    }
  });
});
