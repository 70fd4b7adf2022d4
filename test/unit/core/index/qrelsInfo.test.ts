// What the qrels editor asks the store about a line: original and user's grade with when, query text,
// document title and grade scale, from the store's own tables on a copy of SciFact.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { AnnotationWriter } from '../../../../src/core/judgements/annotations';
import { openDatabase } from '../../../../src/core/index/database';
import { indexWorkspace } from '../../../../src/core/engine/indexer';
import { qrelsLineInfo, splitJudgements } from '../../../../src/core/index/qrelsInfo';
import { needsShared, scifactWorkspace } from '../../../helpers/storeFixtures';

describe('store: qrels line info', { skip: needsShared('datasets/scifact') }, () => {
  const ws = scifactWorkspace([]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));

  it('gives the original grade, then the user\'s with when, the query text and the document title', async () => {
    const { db } = await openDatabase(undefined);
    const index = () => indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: ['map'] });
    await index();
    const pair = { datasetDir: ws.dataset, split: 'test', queryId: '1', docId: '31715818' };
    assert.deepEqual(await qrelsLineInfo(db, pair), {
      original: 1,
      yours: null,
      at: null,
      query: '0-dimensional biomaterials show inductive properties.',
      title: 'New opportunities: the use of nanotechnologies to manipulate and track stem cells.',
      scale: [0, 1],
    });
    assert.deepEqual(splitJudgements(db, pair), []);

    const { writer } = AnnotationWriter.open(ws.dataset, 'test');
    writer.judge({ queryId: '1', docId: '31715818', grade: 2, at: '2026-11-23T10:00:00.000Z' });
    writer.judge({ queryId: '1', docId: 'not-in-qrels', grade: 0, at: '2026-11-23T10:01:00.000Z' });
    await index();
    const info = await qrelsLineInfo(db, pair);
    assert.deepEqual([info.original, info.yours, info.at], [1, 2, '2026-11-23T10:00:00.000Z']);
    assert.deepEqual(info.scale, [0, 1], 'the scale comes from the original qrels');
    const none = await qrelsLineInfo(db, { ...pair, docId: 'not-in-qrels' });
    assert.deepEqual([none.original, none.yours, none.title], [null, 0, null]);
    assert.deepEqual(
      splitJudgements(db, pair).sort((a, b) => a.docId.localeCompare(b.docId)),
      [
        { queryId: '1', docId: '31715818', grade: 2, at: '2026-11-23T10:00:00.000Z' },
        { queryId: '1', docId: 'not-in-qrels', grade: 0, at: '2026-11-23T10:01:00.000Z' },
      ],
    );
    assert.equal((await qrelsLineInfo(db, { ...pair, datasetDir: '/nowhere' })).original, null);
  });
});
