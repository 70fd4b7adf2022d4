// Fault class: a hostile or broken dataset mirror on 127.0.0.1, through `irw datasets get` as a user runs it. The
// server hangs (before answering, mid-header, mid-body at many offsets), drops the connection (at many offsets),
// lies about lengths and ranges, redirects in a loop, answers errors; the archive slips out of its folder, holds
// links, NUL bytes or control characters in names, a file where a folder goes, a name twice, corrupt data, or is no
// zip at all. Each must end in exit 1 with one message naming the file and what to do (no stack trace), nothing
// written outside the folder, no half dataset; an interrupted transfer resumes to the right dataset.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as yazl from 'yazl';
import { md5, zipFolder } from '../helpers/datasetServer';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';
import { requireBuiltCli } from '../unit/support/paths';
import { tally } from './tally';

const root = mkdtempSync(join(tmpdir(), 'irw-faults-mirror-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** What the mirror does for one path: a raw socket handler (full control of the bytes), given the request. */
type Behaviour = (req: http.IncomingMessage, socket: Socket) => void;

const STALL_SECONDS = 1;

function irw(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [requireBuiltCli(), ...args], { env: { ...process.env, IRW_DOWNLOAD_STALL_SECONDS: String(STALL_SECONDS) } });
    let stderr = '';
    child.stderr.on('data', (b) => (stderr += b));
    child.stdout.resume();
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

function zipOf(entries: [string, string | Buffer, number?][]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content, mode] of entries) zip.addBuffer(Buffer.from(content), name, mode ? { mode } : {});
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Renames in a built archive (names are not checksummed), for names yazl itself refuses. */
const patchNames = (zip: Buffer, from: string, to: string) => Buffer.from(zip.toString('latin1').replaceAll(from, to), 'latin1');

describe('fault class: a hostile dataset mirror', () => {
  let good: Buffer;
  let source: string;
  const behaviours = new Map<string, Behaviour>();
  const sockets = new Set<Socket>();
  let server: http.Server;
  let url: string;

  before(async () => {
    source = join(root, 'source');
    writeSyntheticBeir(source, { docs: 300, queries: 10, vocabulary: 1500, seed: 9 });
    good = await zipFolder(source, 'scifact');
    server = http.createServer();
    server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
    server.on('request', (req, res) => {
      const b = behaviours.get((req.url ?? '').replace(/\/scifact\.zip$/, ''));
      if (!b) return void res.writeHead(404).end();
      b(req, res.socket!);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  /** Serves `body` honestly (with Range), after `misbehave` had its way with the first request. */
  const honest = (body: Buffer): Behaviour => (req, socket) => {
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const head = m ? `HTTP/1.1 206 Partial Content\r\ncontent-range: bytes ${start}-${body.length - 1}/${body.length}\r\n` : 'HTTP/1.1 200 OK\r\n';
    socket.end(Buffer.concat([Buffer.from(`${head}content-length: ${body.length - start}\r\nconnection: close\r\n\r\n`), body.subarray(start)]));
  };

  async function expectFailure(name: string, behaviour: Behaviour, message: RegExp, body = good, part?: Buffer): Promise<boolean> {
    behaviours.set(`/${name}`, behaviour);
    const dir = join(root, name);
    if (part) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'scifact.zip.part'), part);
    }
    const r = await irw(['datasets', 'get', 'scifact', '--dir', dir, '--base-url', `${url}/${name}`, '--md5', md5(body)]);
    assert.equal(r.status, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, message, name);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at \S+ \(/, `${name}: no stack trace`);
    assert.ok(!existsSync(join(dir, 'scifact')), `${name}: no half dataset`);
    assert.ok(!existsSync(join(root, 'evil.txt')) && !existsSync('/tmp/irw-evil.txt'), `${name}: nothing written outside`);
    return true;
  }

  it('the transfer: hangs, stalls and drops at many offsets fail within the stall timeout, keep the part, and resume', async () => {
    const counts = tally('hostile mirror: hangs, stalls, drops, lies');
    counts.case(await expectFailure('hang', () => undefined, /did not answer for 1 s/));
    counts.case(await expectFailure('half-header', (_req, s) => s.write('HTTP/1.1 200 OK\r\ncontent-le'), /did not answer for 1 s/));
    counts.case(await expectFailure('error500', (_req, s) => s.end('HTTP/1.1 500 Oops\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'), /HTTP 500/));
    counts.case(await expectFailure('loop', (req, s) => s.end(`HTTP/1.1 302 Found\r\nlocation: ${req.url}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`), /too many redirects/));
    counts.case(await expectFailure('bad-range', (req, s) => {
      if (!req.headers.range) return honest(good)(req, s);
      s.end(`HTTP/1.1 206 Partial Content\r\ncontent-range: bytes 7-9/${good.length}\r\ncontent-length: 3\r\nconnection: close\r\n\r\nabc`);
    }, /wrong range/, good, good.subarray(0, 100)));
    counts.case(await expectFailure('not-a-zip', honest(Buffer.from('<html>not found</html>')), /not a readable zip/, Buffer.from('<html>not found</html>')));
    counts.case(await expectFailure('long-length', (_req, s) => s.end(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${good.length + 100}\r\n\r\n`), good])), /stopped after \d+ of \d+ bytes/));
    for (const at of [0, 100, Math.floor(good.length / 2), good.length - 1]) {
      for (const how of ['stall', 'drop'] as const) {
        const name = `${how}-${at}`;
        let first = true;
        behaviours.set(`/${name}`, (req, s) => {
          if (!first) return honest(good)(req, s);
          first = false;
          s.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${good.length}\r\n\r\n`), good.subarray(0, at)]));
          if (how === 'drop') setTimeout(() => s.destroy(), 20);
        });
        const dir = join(root, name);
        const args = ['datasets', 'get', 'scifact', '--dir', dir, '--base-url', `${url}/${name}`, '--md5', md5(good)];
        const r = await irw(args);
        assert.equal(r.status, 1, `${name}: ${r.stderr}`);
        assert.match(r.stderr, how === 'stall' ? /sent nothing for 1 s/ : /connection was closed/, name);
        assert.match(r.stderr, /partial file is kept/);
        const again = await irw(args);
        assert.equal(again.status, 0, `${name}: ${again.stderr}`);
        assert.ok(readFileSync(join(dir, 'scifact', 'corpus.jsonl')).equals(readFileSync(join(source, 'corpus.jsonl'))), name);
        assert.deepEqual(readdirSync(dir), ['scifact'], `${name}: nothing else left`);
        counts.case(true);
      }
    }
    counts.report();
  });

  it('the archive: zip slip, links, NUL and control characters in names, clashes, repeats, corrupt data', async () => {
    const counts = tally('hostile mirror: bad archives');
    const base: [string, string][] = [['scifact/corpus.jsonl', '{"_id":"d1","text":"x"}\n'], ['scifact/queries.jsonl', '{"_id":"q1","text":"x"}\n'], ['scifact/qrels/test.tsv', 'q1\td1\t1\n']];
    const archives: [string, Buffer, RegExp][] = [
      ['slip-dotdot', patchNames(await zipOf([...base, ['scifact/XX/XX/XX/evil.txt', 'x']]), 'scifact/XX/XX/XX/', 'scifact/../../../'), /outside its folder|invalid relative path/],
      ['slip-absolute', patchNames(await zipOf([...base, ['XtmpXirw-evil.txt', 'x']]), 'XtmpXirw-evil.txt', '/tmp/irw-evil.txt'), /outside its folder|not a readable zip|broken zip/],
      ['symlink', await zipOf([...base, ['scifact/link', '/etc/passwd', 0o120777]]), /symbolic link/],
      ['nul-name', patchNames(await zipOf([...base, ['scifact/aXb.txt', 'x']]), 'aXb', 'a\0b'), /control character/],
      ['newline-name', patchNames(await zipOf([...base, ['scifact/aXb.txt', 'x']]), 'aXb', 'a\nb'), /control character/],
      ['file-then-folder', await zipOf([['scifact/qrels', 'a file'], ...base]), /a file and a folder at the same path/],
      ['folder-then-file', await zipOf([...base, ['scifact/qrels/test.tsv/x', 'y']]), /a file and a folder at the same path/],
      ['twice', await zipOf([...base, ['scifact/corpus.jsonl', 'again']]), /the same file twice/],
      ['corrupt-data', (() => {
        const z = Buffer.from(good);
        const at = z.indexOf('corpus.jsonl') + 200; // inside the corpus entry's compressed data
        z.fill(0x55, at, at + 64);
        return z;
      })(), /cannot unpack|broken zip|invalid|damaged/],
      ['no-dataset', await zipOf([['scifact/readme.txt', 'nothing here']]), /holds no BEIR dataset/],
    ];
    for (const [name, body, message] of archives) counts.case(await expectFailure(name, honest(body), message, body));
    counts.report();
  });
});
