// Another program replaces, deletes, truncates or re-encodes the annotations file while judging (issue 28 items
// 1, 6, 12): a judgement is confirmed only once it is in the file the path names now, and bytes of others stay.
import assert from 'node:assert/strict';
import fs, { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../../../src/core/judgements/annotations';

const root = mkdtempSync(join(tmpdir(), 'irw-replaced-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDataset = () => join(root, `ds${n++}`);
const HEADER = 'query-id\tcorpus-id\tscore\n';

/** What `sed -i`, vim's save and `git checkout` do: write a new file beside it, rename it over. */
function replaceByRename(path: string, content: string | Buffer, mtime?: Date): void {
  const tmp = `${path}.sedXYZ`;
  writeFileSync(tmp, content);
  if (mtime) utimesSync(tmp, mtime, mtime);
  renameSync(tmp, path);
}

describe('the annotations file changed by another program while the writer is open', () => {
  it('renamed over (sed -i): the judgements after it go to the new file, whose edit is kept', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 0 });
    // The user fixes a grade in another editor, which saves by rename, a moment later. (Written at once, its
    // mtime can fall before the last judgement's confirmation: file times come from the kernel's coarse clock,
    // up to a tick behind Date.now(); the writer would then count it as written before that judgement.)
    replaceByRename(tsv, readFileSync(tsv, 'utf8').replace('q1\td2\t0', 'q1\td2\t1'), new Date(Date.now() + 1000));
    const problems = writer.judge({ queryId: 'q2', docId: 'd3', grade: 1 });
    writer.judge({ queryId: 'q2', docId: 'd4', grade: 0 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q1\td1\t1\nq1\td2\t1\nq2\td3\t1\nq2\td4\t0\n`);
    assert.match(problems.map((p) => p.message).join('\n'), /another program replaced the file/);
    assert.equal(readQrels(tsv).size, 4);
  });

  it('renamed over by a file written before the last confirmed judgement: that judgement is added to it, nothing doubled', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    // A sync tool read the file before the next judgement and renames its copy over it after: the copy was
    // written (mtime) before that judgement was confirmed, so it cannot hold it.
    const stale = readFileSync(tsv, 'utf8');
    const written = new Date(Date.now() - 60_000);
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 2 });
    replaceByRename(tsv, stale, written);
    const problems = writer.judge({ queryId: 'q1', docId: 'd3', grade: 0 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q1\td1\t1\nq1\td2\t2\nq1\td3\t0\n`);
    assert.match(problems.map((p) => p.message).join('\n'), /with 1 earlier judgement the replacement lacked/);
  });

  it('renamed over by a file written after the judgements (git checkout): its content wins, nothing is added back', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 1 });
    replaceByRename(tsv, `${HEADER}q9\td9\t1\n`, new Date(Date.now() + 60_000));
    writer.judge({ queryId: 'q1', docId: 'd3', grade: 0 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q9\td9\t1\nq1\td3\t0\n`);
  });

  it('renamed over while the judgement was being written: it is written again to the new file before it is confirmed', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    const before = readFileSync(tsv, 'utf8');
    const original = fs.fsyncSync;
    let swapped = false;
    fs.fsyncSync = (fd: number) => {
      original(fd);
      // Between our write and our check: another program renames its copy (read before our write) over the file.
      if (!swapped && fs.readlinkSync(`/proc/self/fd/${fd}`) === tsv) {
        swapped = true;
        replaceByRename(tsv, `${before}q5\td5\t1\n`);
      }
    };
    syncBuiltinESMExports();
    try {
      writer.judge({ queryId: 'q2', docId: 'd2', grade: 1 });
    } finally {
      fs.fsyncSync = original;
      syncBuiltinESMExports();
    }
    writer.close();
    assert.ok(swapped);
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q1\td1\t1\nq5\td5\t1\nq2\td2\t1\n`);
  });

  it('deleted: re-created with its header, and the judgement recorded', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv, meta } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    unlinkSync(tsv);
    unlinkSync(meta);
    const problems = writer.judge({ queryId: 'q2', docId: 'd2', grade: 1, note: 'after the delete' });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q2\td2\t1\n`);
    assert.match(problems.map((p) => p.message).join('\n'), /deleted while judging, so it was created again/);
    assert.equal(readAnnotations(tsv).judgements[0].note, 'after the delete');
  });

  it('truncated in place: the next judgement starts on a line of its own, the partial line is kept', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    writer.judge({ queryId: 'q1', docId: 'd2', grade: 1 });
    truncateSync(tsv, HEADER.length + 5); // "q1\td1" left, without its grade
    writer.judge({ queryId: 'q3', docId: 'd3', grade: 0 });
    truncateSync(tsv, 0);
    writer.judge({ queryId: 'q4', docId: 'd4', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q4\td4\t1\n`);
  });

  it('saved as UTF-16 by an editor: judgements are appended in UTF-16, no byte of the file is changed, every reader reads it', () => {
    for (const [encoding, bom] of [['utf16le', Buffer.of(0xff, 0xfe)], ['utf16be', Buffer.of(0xfe, 0xff)], ['utf16le', Buffer.alloc(0)]] as const) {
      const dir = freshDataset();
      const { writer } = AnnotationWriter.open(dir, 'test');
      const { tsv } = annotationPaths(dir, 'test');
      writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
      const utf16 = (s: string) => (encoding === 'utf16le' ? Buffer.from(s, 'utf16le') : Buffer.from(s, 'utf16le').swap16());
      // Saved without a final line break, as editors may.
      const saved = Buffer.concat([bom, utf16(`${HEADER}q1\td1\t1\nq1\td2\t2`)]);
      writeFileSync(tsv, saved);
      writer.judge({ queryId: 'q2', docId: 'd3', grade: 0 });
      writer.close();
      const after = readFileSync(tsv);
      assert.ok(after.subarray(0, saved.length).equals(saved), `${encoding}${bom.length ? ' with BOM' : ''}: the saved bytes are untouched`);
      assert.ok(after.subarray(saved.length).equals(utf16('\nq2\td3\t0\n')));
      const read = readAnnotations(tsv);
      assert.deepEqual(read.judgements.map((j) => [j.queryId, j.docId, j.grade]), [['q1', 'd1', 1], ['q1', 'd2', 2], ['q2', 'd3', 0]]);
      assert.deepEqual(read.problems, []);
      assert.equal(readQrels(tsv).grade('q2', 'd3'), 0);
    }
  });

  it('a line appended by another program (no lock) is kept; ours follow it', () => {
    const dir = freshDataset();
    const { writer } = AnnotationWriter.open(dir, 'test');
    const { tsv } = annotationPaths(dir, 'test');
    writer.judge({ queryId: 'q1', docId: 'd1', grade: 1 });
    appendFileSync(tsv, 'q7 0 d7 2\n');
    writer.judge({ queryId: 'q2', docId: 'd2', grade: 1 });
    writer.close();
    assert.equal(readFileSync(tsv, 'utf8'), `${HEADER}q1\td1\t1\nq7 0 d7 2\nq2\td2\t1\n`);
  });
});
