import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { addRunFiles, loadSession } from '../../../../src/core/analysis/load';
import { addRunFilesInWorkers } from '../../../../src/core/analysis/runReader';
import { DATASETS, REPO, RUNS } from '../../support/paths';

const SCIFACT = join(DATASETS, 'scifact');
const WORKER = join(REPO, 'src', 'core', 'analysis', 'runReaderWorker.ts');
const FILES = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec', 'neural-rerank.kirloxious.tsv'].map((f) =>
  join(RUNS, 'scifact', f),
);

describe('reading and scoring runs in worker threads', () => {
  it('gives the same runs, rankings and figures as reading on this thread, and the same skipped files', async () => {
    const here = loadSession({ datasetDir: SCIFACT, split: 'test' });
    const there = loadSession({ datasetDir: SCIFACT, split: 'test' });
    const notARun = join(SCIFACT, 'queries.jsonl');
    const skippedHere = await addRunFiles(here, [...FILES, notARun]);
    const skippedThere = await addRunFilesInWorkers(there, [...FILES, notARun], WORKER);
    assert.deepEqual(skippedThere.map((s) => s.file), [notARun]);
    assert.deepEqual(skippedThere, skippedHere);
    assert.deepEqual(there.runRefs(), here.runRefs());
    for (const f of FILES) {
      assert.deepEqual(there.scores(f, 'original'), here.scores(f, 'original'));
      assert.deepEqual(there.run(f).ranking('1'), here.run(f).ranking('1'));
      assert.equal(there.run(f).tag, here.run(f).tag);
    }
    // The figures the views show: nDCG@10 of the real runs (trec_eval -c, shared/runs/scifact/README.md).
    assert.equal(+there.scores(FILES[0], 'original').means[0].toFixed(4), 0.5597);
    assert.equal(+there.scores(FILES[1], 'original').means[0].toFixed(4), 0.6451);
  });

  it('a missing reader script is an error the caller can fall back on', async () => {
    const s = loadSession({ datasetDir: SCIFACT, split: 'test' });
    await assert.rejects(addRunFilesInWorkers(s, FILES, join(REPO, 'no-such-reader.js')), /run reader missing/);
  });
});
