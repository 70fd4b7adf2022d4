import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../../../src/core/judgements/annotations';

const root = mkdtempSync(join(tmpdir(), 'irw-appendlog-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDataset = () => join(root, `ds${n++}`);

/** Replaces an fs function for the code under test (CommonJS and ESM callers alike) until the test ends. */
const restores: (() => void)[] = [];
function patch<K extends 'writeSync' | 'fsyncSync' | 'ftruncateSync' | 'existsSync'>(name: K, fake: (original: (typeof fs)[K]) => (typeof fs)[K]): void {
  const original = fs[name];
  (fs as unknown as Record<string, unknown>)[name] = fake(original);
  syncBuiltinESMExports();
  restores.push(() => {
    (fs as unknown as Record<string, unknown>)[name] = original;
    syncBuiltinESMExports();
  });
}
afterEach(() => {
  while (restores.length > 0) restores.pop()!();
});

const errno = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: simulated`), { code });

/** writeSync that, for the `nth` judgement line written to a file under `dir`, writes half of it and then fails. */
function failHalfway(dir: string, code: string): void {
  let seen = 0;
  patch('writeSync', (original) => ((fd: number, buf: Buffer, off: number, len: number, pos?: number | null) => {
    const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    if (target.startsWith(dir) && target.endsWith('.annotations.tsv') && Buffer.isBuffer(buf) && buf.toString('utf8', off, off + len).startsWith('q2\t')) {
      seen++;
      if (seen === 1) {
        original(fd, buf, off, Math.floor(len / 2), pos);
        throw errno(code);
      }
    }
    return original(fd, buf, off, len, pos);
  }) as typeof fs.writeSync);
}

describe('judgement durability', () => {
  it('leaves nothing of a write that failed part-way (disk full), names the file, and the next judgement is intact', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    failHalfway(dir, 'ENOSPC');
    assert.throws(
      () => writer.judge({ queryId: 'q2', docId: 'd2-long-document-id', grade: 2 }),
      (e: Error) => e.message.includes(tsv) && /disk is full/.test(e.message) && /Free some space/.test(e.message) && /Not recorded/.test(e.message),
    );
    writer.judge({ queryId: 'q3', docId: 'd3', grade: 0 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq3\td3\t0\n');
    assert.deepEqual(readAnnotations(tsv).problems, []);
  });

  it('does not keep a line whose fsync failed (I/O error): reported failed means not recorded', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    let failNext = true;
    patch('fsyncSync', (original) => (fd: number) => {
      if (failNext && fs.readlinkSync(`/proc/self/fd/${fd}`) === tsv) {
        failNext = false;
        throw errno('EIO');
      }
      original(fd);
    });
    assert.throws(() => writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 }), (e: Error) => e.message.includes(tsv) && /I\/O error/.test(e.message));
    writer.judge({ queryId: 'q2', docId: 'd2', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq2\td2\t1\n');
  });

  it('cuts a failed write it could not roll back before the next append, even from another writer', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    failHalfway(dir, 'EIO');
    patch('ftruncateSync', (original) => (fd: number, len?: number) => {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === tsv) throw errno('EIO');
      original(fd, len);
    });
    assert.throws(() => writer.judge({ queryId: 'q2', docId: 'd2-long-document-id', grade: 2 }), /Not recorded/);
    restores.splice(0).reverse().forEach((r) => r());
    const other = AnnotationWriter.open(dir, 'test');
    other.writer.judge({ queryId: 'q3', docId: 'd3', grade: 0 });
    other.writer.close();
    writer.judge({ queryId: 'q4', docId: 'd4', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq3\td3\t0\nq4\td4\t1\n');
    assert.equal(other.problems.length, 1);
    assert.match(other.problems[0].message, /interrupted/);
  });

  it("never deletes another tool's unterminated last line (TREC separators, CRLF, free text): keeps and reports it", () => {
    // [file as another tool left it, line reported (0: none, the last line parses), the judgement as appended (in the file's columns)]
    for (const [body, reported, appended] of [
      ['q1 0 d1 1\r\nq2 0 d2 0', 0, 'q9 0 d9 1'], // TREC qrels with CRLF, last line unterminated
      ['query-id\tcorpus-id\tscore\nq1\td1\t1\nq2  d2  2', 0, 'q9\td9\t1'], // BEIR, spaces instead of TABs
      ['query-id\tcorpus-id\tscore\nq1\td1\t1\nchecked up to q1', 3, 'q9\td9\t1'],
      ['q1 0 d1 1\rq2 0 d2 1', 1, 'q9\td9\t1'], // old Mac line endings, which no reader splits: reported, still kept
    ] as const) {
      const dir = freshDataset();
      const { tsv } = annotationPaths(dir, 'test');
      mkdirSync(join(dir, 'qrels'), { recursive: true });
      writeFileSync(tsv, body);
      const { writer, problems } = AnnotationWriter.open(dir, 'test');
      writer.judge({ queryId: 'q9', docId: 'd9', grade: 1 });
      writer.close();
      assert.equal(readFileSync(tsv, 'utf8'), `${body}\n${appended}\n`, JSON.stringify(body));
      if (reported === 0) assert.deepEqual(problems, []);
      else {
        assert.equal(problems.length, 1);
        assert.equal(problems[0].line, reported);
        assert.match(problems[0].message, /fix or delete the line/);
      }
    }
  });

  it('creates the file with exactly one header when another process creates it at the same moment', () => {
    const dir = freshDataset();
    const { tsv } = annotationPaths(dir, 'test');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    // The other process creates the file (with its header) right after this one looked for it.
    patch('existsSync', (original) => (p: fs.PathLike) => {
      if (p === tsv && !original(p)) {
        writeFileSync(tsv, 'query-id\tcorpus-id\tscore\n');
        return false;
      }
      return original(p);
    });
    const { writer } = AnnotationWriter.open(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
  });

  it('two processes judging the same new files at once: one header each, every line whole', async () => {
    const dirs = Array.from({ length: 6 }, freshDataset);
    const start = Date.now() + 1500; // both children open the files at the same moment
    const child = (name: string) =>
      new Promise<void>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'appendLogChild.ts'), name, String(start), ...dirs], { stdio: ['ignore', 'inherit', 'inherit'] });
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`child ${name} exited with ${code}`))));
      });
    await Promise.all([child('a'), child('b')]);
    for (const dir of dirs) {
      const { tsv, meta } = annotationPaths(dir, 'test');
      const lines = readFileSync(tsv, 'utf8').split('\n');
      assert.equal(lines.pop(), '');
      assert.equal(lines.filter((l) => l.startsWith('query-id')).length, 1);
      assert.equal(lines[0], 'query-id\tcorpus-id\tscore');
      const body = lines.slice(1);
      assert.equal(body.length, 400);
      for (const who of ['a', 'b']) {
        const mine = body.filter((l) => l.startsWith(`${who}-`));
        assert.deepEqual(mine, Array.from({ length: 200 }, (_, i) => `${who}-q${i}\td${i}\t${i % 3}`));
      }
      assert.equal(readQrels(tsv).grade('a-q7', 'd7'), 1);
      assert.equal(readFileSync(meta, 'utf8').split('\n').filter(Boolean).length, 400);
      assert.ok(!existsSync(`${tsv}.lock`), 'the lock is released');
    }
  });

  it('takes over the lock a killed writer left and cuts only its unconfirmed bytes', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    writer.close();
    const { tsv } = annotationPaths(dir, 'test');
    const offset = readFileSync(tsv).length;
    const inFlight = Buffer.from('q2\td2\t2\n');
    fs.appendFileSync(tsv, inFlight.subarray(0, 4));
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(`${tsv}.lock`, JSON.stringify({ pid: deadPid, host: hostname(), nonce: 'n', pending: { offset, bytes: inFlight.toString('base64') } }));
    const reopened = AnnotationWriter.open(dir, 'test');
    reopened.writer.judge({ queryId: 'q3', docId: 'd3', grade: 0 });
    reopened.writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq3\td3\t0\n');
    assert.equal(reopened.problems.length, 1);
  });
});
