import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readRun } from '../../../../src/core/formats/run';
import { sha256File } from '../../../../src/core/fileHash';
import { runBm25 } from '../../../../src/core/retrieval/bm25/run';
import { EngineClient, EngineError } from '../../../../src/core/engine/client';
import { needsShared, scifactWorkspace } from '../../../helpers/storeFixtures';

const WORKER = join(__dirname, '../../../../src/core/engine/worker.ts');
const RUN = 'bm25okapi.knarfthekant.trec';

const ndcgColumn = (measures: { key: string }[]) => measures.findIndex((m) => m.key === 'ndcg_cut_10');

describe('store worker', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace([RUN]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));
  const dbPath = join(ws.root, 'storage', 'store.sqlite');
  const args = { roots: [ws.root], runsFolder: 'runs', measures: ['ndcg_cut.10', 'map'] };

  it('indexes with progress, judges durably, re-scores in place, and persists a snapshot', async () => {
    const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
    try {
      const fractions: number[] = [];
      const summary = await client.request('index', args, (_m, f) => f !== undefined && fractions.push(f));
      assert.equal(summary.runs, 1);
      assert.ok(fractions.length > 0 && fractions.every((f) => f >= 0 && f <= 1));
      const before = (await client.request('tree', {}))[0].splits[0].runs[0].means;

      const changed = new Promise<void>((resolve) => client.onChanged(resolve));
      const top = readRun(join(ws.runsDir, RUN)).ranking('1')!.docs.slice(0, 3);
      for (const docId of top) await client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '1', docId, grade: 1, by: 'me' });
      // Confirmed means on disk: the annotation file already holds all three.
      const file = readFileSync(join(ws.dataset, 'qrels', 'test.annotations.tsv'), 'utf8');
      for (const d of top) assert.ok(file.includes(`1\t${d}\t1\n`));
      await changed;
      const after = (await client.request('tree', {}))[0].splits[0];
      assert.equal(after.judgementCount, 3);
      // The tree keeps both figures: the original qrels' and, apart, the annotated ones.
      assert.deepEqual(after.runs[0].means, before);
      assert.ok(after.runs[0].annotated.hole_10 < before.hole_10);
      // The store's own appends need no re-index (its file watcher asks this); another writer's do.
      const tsv = join(ws.dataset, 'qrels', 'test.annotations.tsv');
      assert.equal(await client.request('isCurrent', { path: tsv }), true);
      // An undo back to unjudged (-1) is not one of "your judgements".
      await client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '1', docId: top[2], grade: -1 });
      assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, 2);
      assert.equal(await client.request('isCurrent', { path: tsv }), true);
      await client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '1', docId: top[2], grade: 1 });
      // Whoever sends it, a judgement a reader would skip is refused before anything is written.
      await assert.rejects(client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '1\u0000', docId: 'd', grade: 1 }), /control character/);
      await assert.rejects(client.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '1', docId: 'd', grade: '2' as unknown as number }), /integer/);

      const doc = await client.request('document', { datasetDir: ws.dataset, docId: top[0] });
      assert.equal(doc?.id, top[0]);
      await assert.rejects(client.request('exportJudgements', { datasetDir: '/nowhere', split: 'test', format: 'trec', merge: false, out: join(ws.root, 'x') }), EngineError);
      const { bytes } = await client.request('flush', {});
      assert.ok(bytes > 0);
    } finally {
      await client.close();
    }

    // A new session starts from the snapshot: nothing to re-read, same figures.
    const reopened = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
    try {
      assert.equal(reopened.discarded, undefined);
      assert.equal((await reopened.request('tree', {}))[0].splits[0].judgementCount, 3);
      // A judgement before this session's first indexing is evaluated with the stored settings (map too).
      const changed = new Promise<void>((resolve) => reopened.onChanged(resolve));
      await reopened.request('judge', { datasetDir: ws.dataset, split: 'test', queryId: '3', docId: 'x-1', grade: 0 });
      await changed;
      assert.ok('map' in (await reopened.request('tree', {}))[0].splits[0].runs[0].means);
      assert.deepEqual((await reopened.request('index', args)).reindexed, []);
      const tsv = join(ws.dataset, 'qrels', 'test.annotations.tsv');
      assert.equal(await reopened.request('isCurrent', { path: tsv }), true);
      utimesSync(tsv, new Date(), new Date(Date.now() + 5000)); // as another program's write would
      assert.equal(await reopened.request('isCurrent', { path: tsv }), false);
      // An index pass that re-read a file says "changed" (before its result) so views reading the store refresh;
      // a pass that found nothing new does not.
      let changes = 0;
      reopened.onChanged(() => changes++);
      appendFileSync(tsv, '3\tx-1\t1\n'); // a new grade for a pair judged above: the count stays
      assert.deepEqual((await reopened.request('index', args)).reindexed, [tsv]);
      assert.equal(changes, 1);
      await reopened.request('index', args);
      assert.equal(changes, 1);
    } finally {
      await reopened.close();
    }
  });

  it('rebuilds from the files when the snapshot is corrupt', async () => {
    writeFileSync(dbPath, 'not a database');
    const client = await EngineClient.start(WORKER, { dbPath, snapshotDelayMs: 60_000 });
    try {
      assert.match(client.discarded ?? '', /damaged/);
      const summary = await client.request('index', args);
      assert.equal(summary.runs, 1);
      assert.equal((await client.request('tree', {}))[0].splits[0].judgementCount, 4, 'judgements come back from the annotation file');
    } finally {
      await client.close();
    }
  });

  it('answers the views from one split state: the tree and the results table agree, a judgement pushes one update', async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', args);
      const info = await client.request('openSplit', { datasetDir: ws.dataset, split: 'test', extraRuns: [] });
      const tree = (await client.request('tree', {}))[0].splits[0];
      assert.deepEqual(info.runs.map((r) => r.key), tree.runs.map((r) => r.path), 'the same runs as the tree');
      const run = info.runs[0].key;
      // The ranges under the holes are computed in the background after the first ask; an update says when.
      const computed = new Promise<void>((resolve) => {
        const sub = client.onSplitChanged(() => (sub.dispose(), resolve()));
      });
      const first = await client.request('results', { key: info.key, baseline: run });
      assert.equal(first.rows[0].intervals, undefined, 'no ranges yet: the table is not held back for them');
      await computed;
      const results = await client.request('results', { key: info.key, baseline: run });
      assert.ok(results.rows[0].intervals?.some((r) => r !== null), 'the ranges once computed');
      // The tree's tooltip gives the same nDCG@10 range as the results table, once computed.
      const treeRange = (await client.request('tree', {}))[0].splits[0].runs[0].ndcgRange;
      const tableRange = results.rows[0].intervals![ndcgColumn(results.measures)]!;
      assert.deepEqual(treeRange, { lo: tableRange.lo, hi: tableRange.hi, exact: tableRange.exact, holes: tableRange.holes });
      const ndcg = results.measures.findIndex((m) => m.key === 'ndcg_cut_10');
      assert.equal(results.rows[0].means[ndcg], tree.runs[0].means.ndcg_cut_10, 'the same figures as the tree');
      assert.equal(results.judgements, tree.judgementCount);
      const { items, firstUnjudged } = await client.request('pool', { key: info.key, runs: [run], depth: 10 });
      const hole = items[firstUnjudged];
      const pair = await client.request('pair', { key: info.key, ...hole });
      assert.equal(pair.item?.grade, null);
      assert.ok(pair.item!.text.length > 0);
      const events: number[] = [];
      client.onSplitChanged((key, changed) => key === info.key && events.push(changed?.version ?? -1));
      await client.request('judge', { datasetDir: ws.dataset, split: 'test', ...hole, grade: 1 });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(events.length, 1, 'one update per judgement');
      // The file events of that append (the journal, its lock file) start an index pass, which reads nothing:
      // it sends no second update (every open view would ask for its model again).
      await client.request('index', args);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(events.slice(1), [], 'an index pass that found nothing new changes no view');
      const after = await client.request('results', { key: info.key, baseline: run });
      const treeAfter = (await client.request('tree', {}))[0].splits[0];
      assert.equal(after.judgements, treeAfter.judgementCount);
      assert.equal(after.rows[0].annotated![ndcg], treeAfter.runs[0].annotated.ndcg_cut_10);
      assert.equal(after.rows[0].means[ndcg], treeAfter.runs[0].means.ndcg_cut_10);
      assert.equal((await client.request('pair', { key: info.key, ...hole })).item?.grade, 1);
      await assert.rejects(client.request('diff', { key: info.key, a: run, b: '/no/such.trec' }), /no run/);
      // The Results panel's per-query Δ: on the judgements in effect, every query of the split (a run against itself ties on each).
      const itself = await client.request('queryDeltas', { key: info.key, a: run, b: run, measure: 'P_10' });
      assert.deepEqual([itself.queries.length, itself.ties, itself.qrels.judgements], [after.numQueries, after.numQueries, after.judgements]);
      await assert.rejects(client.request('queryDeltas', { key: info.key, a: run, b: '/no/such.trec', measure: 'P_10' }), /no run/);
      // New settings change every figure: the open split's views ask again.
      await client.request('index', { ...args, measures: ['ndcg_cut.10'] });
      await new Promise((r) => setTimeout(r, 100));
      // (The estimates the results request above started in the background may finish meanwhile, and say so with
      // the split's version: only the settings' update has none.)
      assert.deepEqual(events.slice(1).filter((v) => v === -1), [-1], 'an index pass with new settings updates the views, once');
    } finally {
      await client.close();
    }
  });

  it('the results say which qrels their figures used, and warn once a qrels line or a corpus byte changes under them', async () => {
    const own = scifactWorkspace([RUN]);
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      const ours = join(own.runsDir, 'bm25.trec');
      await runBm25({ dataset: own.dataset, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 100, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: ours });
      await client.request('index', { ...args, roots: [own.root] });
      const info = await client.request('openSplit', { datasetDir: own.dataset, split: 'test', extraRuns: [] });
      const provenance = async () => (await client.request('results', { key: info.key, baseline: ours })).provenance!;
      const qrelsPath = join(own.dataset, 'qrels', 'test.tsv');
      const original = readFileSync(qrelsPath, 'utf8');
      const first = await provenance();
      assert.deepEqual(first.warnings, []);
      assert.deepEqual({ ...first.qrels, path: undefined }, { path: undefined, sha256: await sha256File(qrelsPath), judgements: 339, queries: 300 });

      // One line of the qrels changed on disk (the index has not read it again): the figures are the old qrels'.
      const lines = original.split('\n');
      const at = lines.findIndex((l, i) => i > 0 && /\t1\r?$/.test(l));
      lines[at] = lines[at].replace(/\t1(\r?)$/, '\t0$1');
      writeFileSync(qrelsPath, lines.join('\n'));
      const changed = await provenance();
      assert.equal(changed.qrels!.sha256, first.qrels!.sha256);
      assert.deepEqual({ ...changed.qrels!.now, sha256: undefined }, { sha256: undefined, judgements: 339, queries: 300 });
      assert.equal(changed.qrels!.now!.sha256, await sha256File(qrelsPath));
      assert.deepEqual(changed.warnings.map((w) => w.run), [ours], 'our run was made on the qrels before the change; the imported run records nothing');
      assert.match(changed.warnings[0].message, /made when test.tsv held 339 judgements of 300 queries/);

      // Read again, the figures are the new qrels': no stale figure; the run still predates the change.
      await client.request('index', { ...args, roots: [own.root] });
      const reread = await provenance();
      assert.equal(reread.qrels!.now, undefined);
      assert.equal(reread.qrels!.sha256, changed.qrels!.now!.sha256);
      assert.equal(reread.warnings.length, 1);

      // Restored, and one byte of the corpus changed (same size): our run is flagged as made on another corpus.
      writeFileSync(qrelsPath, original);
      await client.request('index', { ...args, roots: [own.root] });
      assert.deepEqual((await provenance()).warnings, []);
      const corpusPath = join(own.dataset, 'corpus.jsonl');
      const corpus = readFileSync(corpusPath);
      const byte = corpus.indexOf('"text": "') + 9;
      corpus[byte] = corpus[byte] === 0x41 ? 0x42 : 0x41;
      writeFileSync(corpusPath, corpus);
      const w = (await provenance()).warnings;
      assert.equal(w.length, 1);
      assert.match(w[0].message, /corpus.jsonl \(sha256 [0-9a-f]{12}\), which has changed since/);
    } finally {
      await client.close();
      rmSync(own.root, { recursive: true, force: true });
    }
  });

  it('the Judge sidebar\'s pair comes with the pairs ahead of it, each with its note, and the query\'s relevant documents', async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      await client.request('index', args);
      const info = await client.request('openSplit', { datasetDir: ws.dataset, split: 'test', extraRuns: [] });
      const { items } = await client.request('pool', { key: info.key, runs: [info.runs[0].key], depth: 10 });
      const [first, ...ahead] = items.slice(0, 4);
      await client.request('judge', { datasetDir: ws.dataset, split: 'test', ...ahead[0], grade: 1, note: 'states the claim outright' });
      const pair = await client.request('pair', { key: info.key, ...first, ahead });
      assert.deepEqual(pair.ahead.map((p) => [p.queryId, p.docId]), ahead.map((p) => [p.queryId, p.docId]));
      assert.equal(pair.ahead[0].grade, 1);
      assert.equal(pair.ahead[0].note, 'states the claim outright', 'the journal\'s note of the judgement');
      assert.equal(pair.ahead[1].note, undefined);
      assert.ok(pair.ahead.every((p) => p.text.length > 0 && p.queryText.length > 0));
      // Per query shown, its relevant documents: the qrels' and the one just judged, which is marked as yours.
      const refs = pair.references.find((r) => r.queryId === ahead[0].queryId)!;
      assert.ok(refs.docs.some((d) => d.docId === ahead[0].docId && d.yours && d.grade === 1));
      assert.ok(refs.docs.some((d) => !d.yours && d.title.length > 0), 'and the qrels\' own, by title');
      assert.deepEqual(new Set(pair.references.map((r) => r.queryId)), new Set([first, ...ahead].map((p) => p.queryId)));
      // A later grade without a note has none (the note goes with the judgement it was written for).
      await client.request('judge', { datasetDir: ws.dataset, split: 'test', ...ahead[0], grade: 0 });
      assert.equal((await client.request('pair', { key: info.key, ...ahead[0] })).item?.note, undefined);
    } finally {
      await client.close();
    }
  });

  it('imports a run as it is: a bad one too, which the index then leaves out with every bad line, as one dropped into the folder', async () => {
    const client = await EngineClient.start(WORKER, { snapshotDelayMs: 60_000 });
    try {
      const bad = join(ws.root, 'bad.trec');
      writeFileSync(bad, '1 Q0 d1 1 1.0 t\n1 Q0 d1 2 0.5 t\n1 Q0 d2 3 0.4 t\n1 Q0 d2 4 0.3 t\n');
      const copy = await client.request('importRun', { source: bad, targetDir: join(ws.root, 'runs', 'scifact') });
      assert.equal(readFileSync(copy.path, 'utf8'), readFileSync(bad, 'utf8'));
      await client.request('index', args);
      const problems = (await client.request('problems', {})).filter((p) => p.file === copy.path);
      assert.deepEqual(problems.map((p) => p.line), [2, 4], 'every bad line, and nothing on a good line');
      rmSync(copy.path);
      const { path } = await client.request('importRun', { source: join(ws.runsDir, RUN), targetDir: join(ws.root, 'imported') });
      assert.equal(readFileSync(path, 'utf8'), readFileSync(join(ws.runsDir, RUN), 'utf8'));
    } finally {
      await client.close();
    }
  });
});
