import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnnotationQueue } from '../../src/core/analysis/annotationQueue';

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

test('an empty queue has no current item', () => {
  const q = new AnnotationQueue([]);
  assert.equal(q.current, undefined);
  q.recorded(null);
  assert.equal(q.undoRecording(), undefined);
});
