// The Run Diff's model on SciFact: deltas sorted and consistent with the per-query scores; a query's detail.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { join } from 'node:path';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import type { SplitState } from '../../../../src/core/split/state';
import { needsShared, SHARED } from '../../support/paths';
import { diffModel } from '../../../../src/core/split/diff';
import { queryDetail } from '../../../../src/core/split/queryDetail';

const SCIFACT = join(SHARED, 'datasets/scifact');
const RUNS = join(SHARED, 'runs/scifact');
const BM25 = join(RUNS, 'bm25okapi.knarfthekant.trec');
const DENSE = join(RUNS, 'minilm-faiss.knarfthekant.trec');
const TFIDF = join(RUNS, 'vsm-tfidf.titles_fulltext.omar-khattab.trec');

describe('diff model on SciFact', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  let session: SplitState;
  before(async () => {
    session = await loadSplit({ datasetDir: SCIFACT, split: 'test' });
    await addRunFiles(session, [BM25, DENSE, TFIDF]);
  });

  test('diff: deltas sorted, consistent with the per-query scores; query detail has grades, holes and moves', async () => {
    const d = diffModel(session, BM25, DENSE);
    assert.equal(d.queries.length, 300);
    for (let i = 1; i < d.deltas.length; i++) assert.ok(d.deltas[i - 1] >= d.deltas[i]);
    assert.ok(Math.abs(d.meanB - d.meanA - d.deltas.reduce((s, x) => s + x, 0) / 300) < 1e-12);
    const qid = d.queries[0];
    const detail = await queryDetail(session, BM25, DENSE, qid, 10);
    assert.equal(detail.a.length, 10);
    assert.ok(detail.text.length > 0);
    assert.ok(Math.abs(detail.scoreB - detail.scoreA - d.deltas[0]) < 1e-12);
    assert.ok(detail.b.some((x) => x.grade !== null && x.grade > 0), 'the best gain has a relevant document in b');
    for (const x of detail.b) {
      if (x.move === 'new') assert.ok(!detail.a.some((y) => y.docId === x.docId));
      if (x.move === 'up') assert.ok(x.otherRank! > x.rank);
    }
    for (const x of detail.a) if (x.move === 'dropped') assert.ok(detail.droppedFromA.includes(x.docId));
    assert.equal(detail.grades.join(','), '0,1', 'SciFact is binary');
    assert.ok(detail.b.every((x) => x.title.length > 0 && x.snippet.length <= 241));
    assert.equal((await queryDetail(session, BM25, DENSE, qid, 50)).a.length, 50, 'more depth on demand');
  });

});
