// The judging queue (position, undo) and qrels-line parsing for the editor hover and CodeLens.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AnnotationQueue } from '../../../../src/core/split/annotationQueue';
import { parseQrelsLine, qrelsFileSplit } from '../../../../src/core/judgements/qrelsLine';

const items = [
  { queryId: 'q1', docId: 'a' },
  { queryId: 'q1', docId: 'b' },
  { queryId: 'q2', docId: 'a' },
];

test('judging advances; the last item stays current; moves are clamped', () => {
  const q = new AnnotationQueue(items);
  q.recorded(null);
  assert.deepEqual(q.current, items[1]);
  q.move(5);
  assert.equal(q.index, 2);
  q.recorded(null);
  assert.equal(q.index, 2, 'stays on the last item');
  q.move(-10);
  assert.equal(q.index, 0);
});

test('a move that is not a whole number of items (NaN, 0.5, Infinity, a string) is refused; the queue keeps working', () => {
  const q = new AnnotationQueue(items);
  q.move(1);
  for (const by of [Number.NaN, 0.5, -0.5, Infinity, '1' as unknown as number, undefined as unknown as number]) {
    assert.throws(() => q.move(by), /whole number/, String(by));
    assert.equal(q.index, 1);
    assert.deepEqual(q.current, items[1]);
  }
  q.recorded(null);
  assert.deepEqual(q.current, items[2]);
});

test('undo re-records the replaced grade (or -1 for "unjudged") and returns to that item, newest first', () => {
  const q = new AnnotationQueue(items);
  assert.equal(q.undoRecording(), undefined);
  q.recorded(null); // a: was unjudged
  q.recorded(2); // b: had grade 2
  assert.deepEqual(q.undoRecording(), { queryId: 'q1', docId: 'b', grade: 2 });
  q.undone();
  assert.equal(q.index, 1);
  assert.deepEqual(q.undoRecording(), { queryId: 'q1', docId: 'a', grade: -1 });
  q.undone();
  assert.equal(q.index, 0);
  assert.equal(q.undoRecording(), undefined);
  q.undone();
  assert.equal(q.index, 0);
});

test('place: the pair the sidebar shows at an index becomes current there, whatever the order did meanwhile', () => {
  const q = new AnnotationQueue([...items, { queryId: 'q3', docId: 'c' }]);
  q.place(1, items[1]);
  assert.deepEqual([q.index, q.current], [1, items[1]]);
  // The order changed under the sidebar (impact): the pair it shows at 1 is brought there, nothing is lost.
  q.place(1, { queryId: 'q3', docId: 'c' });
  assert.deepEqual(q.items, [items[0], { queryId: 'q3', docId: 'c' }, items[1], items[2]]);
  assert.deepEqual(q.current, { queryId: 'q3', docId: 'c' });
  // One already passed becomes current where it is; a pair not in the queue is inserted.
  q.place(3, items[0]);
  assert.equal(q.index, 0);
  q.place(2, { queryId: 'q9', docId: 'z' });
  assert.deepEqual(q.items.map((i) => i.docId), ['a', 'c', 'z', 'b', 'a']);
  assert.equal(q.index, 2);
  // Without a pair: only the position; an index outside the queue (NaN, a fraction, past the end) is refused.
  q.place(4);
  assert.equal(q.index, 4);
  for (const bad of [NaN, 0.5, -1, 5]) assert.throws(() => q.place(bad), /no pair/);
  assert.equal(q.index, 4);
  assert.throws(() => new AnnotationQueue([]).place(0), /no pair 1 in this queue of 0/);
});

test('an empty queue has no current item', () => {
  const q = new AnnotationQueue([]);
  assert.equal(q.current, undefined);
  q.recorded(null);
  assert.equal(q.undoRecording(), undefined);
});

test('qrels lines: BEIR and TREC layouts; headers and bad lines are not judgements', () => {
  assert.deepEqual(parseQrelsLine('q1\td7\t2'), { queryId: 'q1', docId: 'd7', grade: 2 });
  assert.deepEqual(parseQrelsLine('q1 0 d7 -1\r'), { queryId: 'q1', docId: 'd7', grade: -1 });
  assert.equal(parseQrelsLine('query-id\tcorpus-id\tscore'), undefined);
  assert.equal(parseQrelsLine(''), undefined);
  assert.equal(parseQrelsLine('q1 d7 1.5'), undefined);
  const scifact = join(mkdtempSync(join(tmpdir(), 'irw-qrels-split-')), 'scifact');
  mkdirSync(join(scifact, 'qrels'), { recursive: true });
  writeFileSync(join(scifact, 'corpus.jsonl'), '');
  assert.deepEqual(qrelsFileSplit(join(scifact, 'qrels/test.tsv')), { datasetDir: scifact, split: 'test' });
  assert.deepEqual(qrelsFileSplit(join(scifact, 'qrels/dev.annotations.tsv')), { datasetDir: scifact, split: 'dev' });
  assert.equal(qrelsFileSplit(join(scifact, 'runs/test.tsv')), undefined);
  assert.equal(qrelsFileSplit('/nowhere/qrels/test.tsv'), undefined);
});

test('reorder (impact order): the items from the current one on follow the new order; those passed stay, once', () => {
  const it = (d: string) => ({ queryId: 'q', docId: d });
  const q = new AnnotationQueue([it('a'), it('b'), it('c'), it('d')]);
  q.recorded(null);
  // After judging a, the new order puts d first and still lists a (already passed): a is not repeated.
  q.reorder([it('d'), it('a'), it('c'), it('b')]);
  assert.deepEqual(q.items.map((i) => i.docId), ['a', 'd', 'c', 'b']);
  assert.equal(q.current?.docId, 'd');
  q.recorded(null);
  q.reorder([it('b')]);
  assert.deepEqual(q.items.map((i) => i.docId), ['a', 'd', 'b']);
  assert.deepEqual(q.undoRecording(), { queryId: 'q', docId: 'd', grade: -1 });
  q.undone();
  assert.equal(q.current?.docId, 'd', 'undo goes back to the passed item');
  q.reorder([]);
  assert.deepEqual(q.items.map((i) => i.docId), ['a']);
  assert.equal(q.current?.docId, 'a', 'nothing left after: the index stays on the list');
});
