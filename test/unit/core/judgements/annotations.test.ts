import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { readQrels } from '../../../../src/core/formats/qrels';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../../../src/core/judgements/annotations';

const root = mkdtempSync(join(tmpdir(), 'irw-annotations-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDataset = () => join(root, `ds${n++}`);

describe('annotation files', () => {
  it('creates BEIR qrels with the header, readable by the qrels reader, and never touches the original', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    writer.judge({ queryId: '1', docId: '31715818', grade: 2, by: 'ann', note: 'clearly on topic' });
    writer.judge({ queryId: '3', docId: '14717500', grade: 0 });
    writer.close();
    const { tsv, meta } = annotationPaths(dir, 'test');
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\n1\t31715818\t2\n3\t14717500\t0\n');
    const qrels = readQrels(tsv);
    assert.equal(qrels.format, 'beir');
    assert.equal(qrels.grade('1', '31715818'), 2);
    const read = readAnnotations(tsv);
    assert.deepEqual(read.problems, []);
    assert.equal(read.judgements[0].by, 'ann');
    assert.equal(read.judgements[0].note, 'clearly on topic');
    assert.match(read.judgements[0].at ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(readFileSync(meta, 'utf8').split('\n').length, 3);
  });

  it('lets a later judgement of the same (query, doc) supersede an earlier one: last line wins', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'dev');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1, note: 'first look' });
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 0 });
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 0, note: 'on second thought' });
    writer.close();
    const { tsv } = annotationPaths(dir, 'dev');
    const read = readAnnotations(tsv);
    assert.equal(read.lines, 3);
    assert.deepEqual(
      read.judgements.map((j) => [j.queryId, j.docId, j.grade, j.note]),
      [
        ['q1', 'd2', 0, undefined],
        ['q1', 'd1', 0, 'on second thought'],
      ],
    );
    // The lead's reader agrees when told that later lines supersede.
    assert.equal(readQrels(tsv, { duplicates: 'last' }).grade('q1', 'd1'), 0);
  });

  it('refuses ids that would break the TAB-separated line, before writing anything', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    assert.throws(() => writer.judge({ queryId: 'q 1', docId: 'd1', grade: 1 }), /white space/);
    assert.throws(() => writer.judge({ queryId: 'q1', docId: '', grade: 1 }), /empty/);
    assert.throws(() => writer.judge({ queryId: 'q1', docId: 'd1', grade: 1.5 }), /integer/);
    writer.close();
    assert.equal(readFileSync(annotationPaths(dir, 'test').tsv, 'utf8'), 'query-id\tcorpus-id\tscore\n');
  });

  it('reports a bad line with its line number and keeps every other judgement', () => {
    const dir = freshDataset();
    AnnotationWriter.open(dir, 'test').writer.close();
    const { tsv } = annotationPaths(dir, 'test');
    appendFileSync(tsv, 'q1\td1\t1\nq2 d2 one\nq3\td3\t2\n');
    const read = readAnnotations(tsv);
    assert.deepEqual(read.judgements.map((j) => j.queryId), ['q1', 'q3']);
    assert.equal(read.problems.length, 1);
    assert.equal(read.problems[0].line, 3);
    assert.match(read.problems[0].message, /Fix or delete the line/);
  });

  it('recovers from a write torn at any byte by a killed writer: every confirmed line survives, the file parses', () => {
    // Simulates a crash part-way through an append (power loss, SIGKILL): the file is cut at an arbitrary byte
    // of the last line, or its tail replaced by the NUL bytes some file systems leave, and the writer's lock
    // is left behind naming the bytes in flight (the lock format is part of the on-disk contract, fileLock.ts).
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const lines = ['q1\tdoc-1\t1', 'q2\tdoc-22\t2', 'q3\tdoc-333\t0', 'q10\tdoc-4\t9'];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: lines.length }), fc.nat(), fc.boolean(), (kept, cutSeed, nulTail) => {
        const dir = freshDataset();
        const { writer } = AnnotationWriter.open(dir, 'test');
        for (const l of lines.slice(0, kept)) {
          const [queryId, docId, grade] = l.split('\t');
          writer.judge({ queryId, docId, grade: Number(grade) });
        }
        writer.close();
        const { tsv } = annotationPaths(dir, 'test');
        const full = statSync(tsv).size;
        const lastLen = lines[kept - 1].length + 1;
        const cut = full - lastLen + (cutSeed % lastLen); // somewhere inside the last line, before its '\n'
        truncateSync(tsv, cut);
        if (nulTail) appendFileSync(tsv, Buffer.alloc(full - cut));
        const pending = { offset: full - lastLen, bytes: Buffer.from(`${lines[kept - 1]}\n`).toString('base64') };
        writeFileSync(`${tsv}.lock`, JSON.stringify({ pid: deadPid, host: hostname(), nonce: 'crashed', pending }));
        const reopened = AnnotationWriter.open(dir, 'test');
        reopened.writer.judge({ queryId: 'q9', docId: 'after', grade: 1 });
        reopened.writer.close();
        const qrels = readQrels(tsv, { duplicates: 'last' });
        for (const l of lines.slice(0, kept - 1)) {
          const [q, d, g] = l.split('\t');
          assert.equal(qrels.grade(q, d), Number(g), `confirmed line ${l} lost`);
        }
        assert.equal(qrels.grade('q9', 'after'), 1);
        const text = readFileSync(tsv, 'utf8');
        assert.ok(text.startsWith('query-id\tcorpus-id\tscore\n') && text.endsWith('\n') && !text.includes('\0'));
        assert.deepEqual(readAnnotations(tsv).problems, []);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a valid last line that only lacks its newline (a hand edit), and keeps a torn header it did not write', () => {
    const dir = freshDataset();
    const { tsv } = annotationPaths(dir, 'test');
    AnnotationWriter.open(dir, 'test').writer.close();
    appendFileSync(tsv, 'q1\td1\t1');
    const { writer, problems } = AnnotationWriter.open(dir, 'test');
    writer.judge({ queryId: 'q2', docId: 'd2', grade: 0 });
    writer.close();
    assert.deepEqual(problems, []);
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t0\n');

    const torn = freshDataset();
    const paths = annotationPaths(torn, 'test');
    AnnotationWriter.open(torn, 'test').writer.close();
    writeFileSync(paths.tsv, 'query-id\tcor');
    const reopened = AnnotationWriter.open(torn, 'test');
    reopened.writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    reopened.writer.close();
    assert.equal(reopened.problems.length, 1);
    assert.equal(reopened.problems[0].line, 1);
    assert.equal(readFileSync(paths.tsv, 'utf8'), 'query-id\tcor\nq1\td1\t1\n');
  });

  it('validates every judgement at the boundary, whoever sends it, so nothing is confirmed that a reader skips', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const refused: [unknown, unknown, unknown, RegExp][] = [
      ['q\u0001', 'd1', 1, /control character/],
      ['q1', 'd\u007f', 1, /control character/],
      ['q1', 'd\u2028', 1, /white space/],
      ['q1', 'd\ud800', 1, /Unicode/],
      ['q1', 'x'.repeat(1001), 1, /longer/],
      [1, 'd1', 1, /not a string/],
      ['q1', 'd1', 1e30, /-1 \(unjudged\) to 10/],
      ['q1', 'd1', -2, /integer from -1/],
      ['q1', 'd1', 11, /integer from -1/],
      ['q1', 'd1', '1', /integer from -1/],
      ['q1', 'd1', Number.NaN, /integer from -1/],
    ];
    for (const [queryId, docId, grade, why] of refused) {
      assert.throws(() => writer.judge({ queryId, docId, grade } as never), why, JSON.stringify([queryId, docId, grade]));
    }
    assert.throws(() => writer.judge({ queryId: 'q1', docId: 'd1', grade: 3 }, [0, 1, 2]), /grade 3 is not an integer on this dataset's scale \(0, 1, 2\) or -1/);
    writer.judge({ queryId: 'q1', docId: 'd1', grade: -1 });
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 10 });
    writer.close();
    const { tsv } = annotationPaths(dir, 'test');
    assert.equal(readFileSync(tsv, 'utf8'), 'query-id\tcorpus-id\tscore\nq1\td1\t-1\nq1\td2\t10\n');
    assert.equal(readQrels(tsv).grade('q1', 'd2'), 10);
  });

  it('counts lines other tools wrote in a form irw eval reads (TREC columns, spaces, CRLF)', () => {
    const dir = freshDataset();
    AnnotationWriter.open(dir, 'test').writer.close();
    const { tsv } = annotationPaths(dir, 'test');
    // A TREC line that lost its document id ('q3 0 1') is not read as a BEIR judgement of a document "0": the
    // first judgement's columns hold for the file.
    appendFileSync(tsv, 'q1 0 d1 2\r\nq2  0  d2  1\r\nnot a judgement\nq3 0 1\n');
    const read = readAnnotations(tsv);
    assert.deepEqual(read.judgements.map((j) => [j.queryId, j.docId, j.grade]), [['q1', 'd1', 2], ['q2', 'd2', 1]]);
    assert.deepEqual(read.problems.map((p) => p.line), [4, 5]);
    assert.match(read.problems[1].message, /expected 4 columns like the first line, found 3/);
  });

  it("writes judgements in the file's columns: TREC's four when another tool made the file so", () => {
    const dir = freshDataset();
    const { tsv } = annotationPaths(dir, 'test');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(tsv, 'q1 0 d1 2\n');
    const { writer } = AnnotationWriter.open(dir, 'test');
    writer.judge({ queryId: 'q2', docId: 'd2', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), 'q1 0 d1 2\nq2 0 d2 1\n');
    assert.equal(readQrels(tsv).size, 2);
    assert.deepEqual(readAnnotations(tsv).judgements.map((j) => j.docId), ['d1', 'd2']);
  });
});
