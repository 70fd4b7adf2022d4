import assert from 'node:assert/strict';
import { appendFileSync, cpSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from 'sql.js';
import { evaluate } from '../../../../src/core/eval';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { AnnotationWriter, annotationPaths } from '../../../../src/core/judgements/annotations';
import { openDatabase } from '../../../../src/core/index/database';
import { exportJudgements } from '../../../../src/core/judgements/exportJudgements';
import { indexWorkspace } from '../../../../src/core/engine/indexer';
import type { IndexSummary } from '../../../../src/core/index/nodes';
import { evaluationOf } from '../../../../src/core/engine/settings';
import { datasetTree, readDocument, storedProblems } from '../../../../src/core/index/queries';
import { RunParserThreads } from '../../../../src/core/index/runParser';
import { SplitModels } from '../../../../src/core/engine/splits';
import { goldenValues, needsShared, SCIFACT, SCIFACT_RUNS, SHARED, scifactWorkspace } from '../../../helpers/storeFixtures';

const MEASURES = ['ndcg_cut.10', 'recall.100', 'map', 'P.10', 'recip_rank', 'hole.10'];

/** A run's per-query values of one measure on a split, as the engine holds them (the views and the tree read these). */
function runQueryMetrics(models: SplitModels, datasetDir: string, run: string, split: string, measure: string): Map<string, number> {
  const s = models.state(datasetDir, split)!.scores(run, 'original');
  const col = s.columns[s.names.indexOf(measure)];
  return new Map(s.queries.map((q, i) => [q, col[i]]));
}
const RUNS = [
  'bm25okapi.knarfthekant.trec',
  'minilm-faiss.knarfthekant.trec',
  'neural-rerank.kirloxious.tsv',
  'vsm-tfidf.titles_fulltext.omar-khattab.trec',
];

describe('store: indexing the shared datasets and runs', { skip: needsShared('datasets/scifact', 'datasets/nfcorpus', 'runs', 'golden') }, () => {
  let db: Database;
  let summary: IndexSummary;
  let models: SplitModels;
  before(async () => {
    db = (await openDatabase(undefined)).db;
    models = new SplitModels(db, () => evaluationOf({ measures: MEASURES }));
    summary = await indexWorkspace(db, [SHARED], { runsFolder: 'runs', measures: MEASURES, models });
  });

  it('finds both BEIR datasets with their counts and splits, and all four runs', () => {
    assert.equal(summary.datasets, 2);
    assert.equal(summary.runs, 4);
    assert.deepEqual(storedProblems(db), []);
    const tree = datasetTree(db);
    assert.deepEqual(
      tree.map((d) => [d.name, d.docCount, d.queryCount, d.splits.map((s) => [s.split, s.qrelsQueries, s.qrelsCount])]),
      [
        ['nfcorpus', 3633, 3237, [['test', 323, 12334], ['dev', 324, 11385], ['train', 2590, 110575]]],
        ['scifact', 5183, 1109, [['test', 300, 339], ['train', 809, 919]]],
      ],
    );
  });

  it("shows each run under scifact's test split with trec_eval -c's nDCG@10, per query and in the mean", () => {
    const test = datasetTree(db).find((d) => d.name === 'scifact')!.splits.find((s) => s.split === 'test')!;
    assert.deepEqual(test.runs.map((r) => r.path).sort(), RUNS.map((r) => join(SCIFACT_RUNS, r)).sort());
    for (const r of test.runs) {
      const golden = goldenValues(readFileSync(join(SHARED, 'golden', 'scifact', r.path.split('/').pop()!.replace(/\.(trec|tsv)$/, '.c.q.txt')), 'utf8'));
      assert.ok(Math.abs(r.means.ndcg_cut_10 - golden.get('ndcg_cut_10\tall')!) < 5e-5, `${r.path}: ${r.means.ndcg_cut_10}`);
      assert.ok(Math.abs(r.means.recall_100 - golden.get('recall_100\tall')!) < 5e-5);
      const perQuery = runQueryMetrics(models, SCIFACT, r.path, 'test', 'ndcg_cut_10');
      assert.equal(perQuery.size, 300);
      // trec_eval 9 prints no line for a query missing from the run; -c scores it 0.
      for (const [qid, v] of perQuery) assert.ok(Math.abs(v - (golden.get(`ndcg_cut_10\t${qid}`) ?? 0)) < 5e-5, `${r.path} q${qid}`);
      // Hole@10 is the evaluator's own measure, over the queries the run answers (without -c: a query it does
      // not answer has no top 10 to count holes in): the store keeps exactly what evaluate() computes.
      const direct = evaluate(readQrels(join(SCIFACT, 'qrels', 'test.tsv')), readRun(r.path), { measures: ['hole.10'], complete: false });
      assert.equal(r.means.hole_10, direct.mean.get('hole_10'));
    }
  });

  it('lists a run under a split only when it retrieves for some of its queries', () => {
    const train = datasetTree(db).find((d) => d.name === 'scifact')!.splits.find((s) => s.split === 'train')!;
    // Only the neural re-ranker and the TF-IDF run hold train queries (see runs/scifact/README.md).
    assert.deepEqual(train.runs.map((r) => r.path.split('/').pop()).sort(), ['neural-rerank.kirloxious.tsv', 'vsm-tfidf.titles_fulltext.omar-khattab.trec']);
  });

  it('reads a document by its byte offset without keeping its text in the database', async () => {
    const lines = readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8').split('\n');
    for (const i of [0, 9, 5182]) {
      const expected = JSON.parse(lines[i]) as { _id: string; title: string; text: string };
      assert.deepEqual(await readDocument(db, SCIFACT, expected._id), { id: expected._id, title: expected.title, text: expected.text });
    }
    assert.equal(await readDocument(db, SCIFACT, 'no-such-doc'), null);
  });

  it('re-indexes nothing when nothing changed', async () => {
    const again = await indexWorkspace(db, [SHARED], { runsFolder: 'runs', measures: MEASURES });
    assert.deepEqual(again.reindexed, []);
    assert.deepEqual(again.removed, []);
  });
});

describe('store: watching a workspace change', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace(RUNS.slice(0, 2));
  after(() => rmSync(ws.root, { recursive: true, force: true }));
  let models: SplitModels;
  const index = async (db: Database) => indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES, models });
  const bm25 = join(ws.runsDir, RUNS[0]);

  it('re-reads only what changed, ignores a touch, and drops what was deleted', async () => {
    const { db } = await openDatabase(undefined);
    models = new SplitModels(db, () => evaluationOf({ measures: MEASURES }));
    const first = await index(db);
    assert.equal(first.runs, 2);
    // Same content, new mtime: hashed, found identical, not re-read.
    utimesSync(bm25, new Date(), new Date(Date.now() + 5000));
    assert.deepEqual((await index(db)).reindexed, []);
    // Changed run: only it is re-read and re-evaluated (dropping a query it ranked well lowers nDCG).
    const before = datasetTree(db)[0].splits[0].runs.find((r) => r.path === bm25)!.means.ndcg_cut_10;
    const [good] = [...runQueryMetrics(models, ws.dataset, bm25, 'test', 'ndcg_cut_10')].find(([, v]) => v > 0)!;
    const kept = readFileSync(bm25, 'utf8').split('\n').filter((l) => !l.startsWith(`${good} `));
    writeFileSync(bm25, kept.join('\n'));
    assert.deepEqual((await index(db)).reindexed, [bm25]);
    const after = datasetTree(db)[0].splits[0].runs.find((r) => r.path === bm25)!.means.ndcg_cut_10;
    assert.ok(after < before, `${after} < ${before}`);
    assert.equal(models.state(ws.dataset, 'test')!.summary(bm25).original.ndcg_cut_10, after, 'the open split has the new figures');
    // Deleted run, then deleted dataset: the open split drops it as the tree does.
    rmSync(bm25);
    const gone = await index(db);
    assert.deepEqual(gone.removed, [bm25]);
    assert.equal(datasetTree(db)[0].splits[0].runs.length, 1);
    assert.deepEqual(models.state(ws.dataset, 'test')!.runRefs().map((r) => r.key), datasetTree(db)[0].splits[0].runs.map((r) => r.path));
    rmSync(ws.dataset, { recursive: true });
    const emptied = await index(db);
    assert.deepEqual(emptied.removed, [ws.dataset]);
    assert.deepEqual(datasetTree(db), []);
    // The dataset comes back (a checkout): the unchanged run is tied to it again and evaluated.
    cpSync(SCIFACT, ws.dataset, { recursive: true, filter: (p) => !p.includes('train') });
    const back = await index(db);
    assert.equal(back.runs, 1);
    assert.equal(datasetTree(db)[0].splits[0].runs.length, 1);
    assert.ok(datasetTree(db)[0].splits[0].runs[0].means.ndcg_cut_10 > 0.6);
  });

  it('re-evaluates when the evaluation settings change (trec_eval -l 2 makes every SciFact grade non-relevant)', async () => {
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    assert.ok(datasetTree(db)[0].splits[0].runs[0].means.ndcg_cut_10 > 0);
    const again = await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES, relevanceLevel: 2 });
    assert.deepEqual(again.reindexed, []);
    assert.equal(datasetTree(db)[0].splits[0].runs[0].means.map, 0);
  });
});

describe('store: new run files read by the run parser threads', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace(RUNS.slice(0, 2));
  after(() => rmSync(ws.root, { recursive: true, force: true }));

  it('the split built while they parse keeps a touched but identical run, with the figures it had', async () => {
    const { db } = await openDatabase(undefined);
    const [bm25, dense] = RUNS.slice(0, 2).map((r) => join(ws.runsDir, r));
    const runParsers = new RunParserThreads(join(__dirname, '../../../../src/core/index/runParser.ts'));
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES, runParsers });
    const means = datasetTree(db)[0].splits[0].runs.map((r) => [r.path, r.means.ndcg_cut_10]);
    // A new engine on this index (its splits not built yet): one run touched, the other changed; both are
    // parsed in the workers while the split is built without them.
    const fresh = new SplitModels(db, () => evaluationOf({ measures: MEASURES }));
    utimesSync(bm25, new Date(), new Date(Date.now() + 10_000));
    appendFileSync(dense, '\n');
    const again = await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES, runParsers, models: fresh });
    assert.deepEqual(again.reindexed, [dense], 'the touched run is found identical by the hash the worker took');
    const session = fresh.state(ws.dataset, 'test')!;
    assert.deepEqual(session.runRefs().map((r) => r.key).sort(), [bm25, dense].sort(), 'the open split lists both runs, as the tree does');
    assert.deepEqual(datasetTree(db)[0].splits[0].runs.map((r) => [r.path, r.means.ndcg_cut_10]), means);
    for (const [path, mean] of means) assert.equal(session.summary(path as string).original.ndcg_cut_10, mean);

    // Again on a fresh engine: the touched run stays, a run turned bad leaves the split (the tree lists it as left out).
    const again2 = new SplitModels(db, () => evaluationOf({ measures: MEASURES }));
    utimesSync(bm25, new Date(), new Date(Date.now() + 20_000));
    appendFileSync(dense, '1 Q0 doc 1 not-a-score tag\n');
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES, runParsers, models: again2 });
    assert.deepEqual(again2.state(ws.dataset, 'test')!.runRefs().map((r) => r.key), [bm25]);
    assert.deepEqual(datasetTree(db)[0].splits[0].runs.map((r) => r.path), [bm25]);
  });
});

describe('store: problems in bad files', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace([RUNS[0]]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));

  it('reports file, line and what to do; leaves out a bad run or qrels file and keeps going', async () => {
    const badRun = join(ws.runsDir, 'broken.trec');
    writeFileSync(badRun, '1 Q0 31715818 1 12.5 mine\n1 Q0 14717500 2 twelve mine\n');
    appendFileSync(join(ws.dataset, 'qrels', 'test.tsv'), '1\t31715818\tyes\r\n');
    const { db } = await openDatabase(undefined);
    const summary = await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    const problems = storedProblems(db);
    assert.equal(summary.problems, problems.length);
    const run = problems.find((p) => p.file === badRun)!;
    assert.equal(run.line, 2);
    assert.equal(run.severity, 'error');
    assert.match(run.message, /not a number.*left out until the file is fixed/s);
    const qrels = problems.find((p) => p.file.endsWith('test.tsv'))!;
    assert.equal(qrels.line, 341);
    assert.match(qrels.message, /not an integer.*not evaluated until the file is fixed/s);
    // The good run is indexed, but a split without valid qrels shows no figures.
    assert.equal(datasetTree(db)[0].splits[0].runs.length, 0);
    assert.equal(summary.runs, 1);
  });

  it('skips bad corpus and queries lines, indexes the rest, and reports each with its line', async (t) => {
    const corpus = join(ws.dataset, 'corpus.jsonl');
    const lines = readFileSync(corpus, 'utf8').split('\n');
    const docs = lines.filter((l) => l.trim()).length;
    // A broken line, and a second copy of the first document (the first occurrence wins).
    writeFileSync(corpus, [lines[0], lines[1], '{"_id": "broken", "text": ', lines[0], ...lines.slice(2)].join('\n'));
    const queries = join(ws.dataset, 'queries.jsonl');
    const q = readFileSync(queries, 'utf8').split('\n');
    const queryCount = q.filter((l) => l.trim()).length;
    writeFileSync(queries, [q[0], '{"text": "no id"}', ...q.slice(1)].join('\n'));
    t.after(() => {
      writeFileSync(corpus, lines.join('\n'));
      writeFileSync(queries, q.join('\n'));
    });
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    const corpusProblems = storedProblems(db).filter((x) => x.file === corpus);
    assert.deepEqual(corpusProblems.map((p) => p.line), [3, 4]);
    assert.match(corpusProblems[0].message, /not valid JSON.*skipped \(2 bad lines in the file; \d+ documents indexed\)/s);
    assert.match(corpusProblems[1].message, /duplicate id/);
    assert.equal(datasetTree(db)[0].docCount, docs);
    const queryProblems = storedProblems(db).filter((x) => x.file === queries);
    assert.deepEqual(queryProblems.map((p) => p.line), [2]);
    assert.equal(datasetTree(db)[0].queryCount, queryCount);
  });

  it('says in Problems that a byte-order mark was ignored, and indexes every document and query', async (t) => {
    const corpus = join(ws.dataset, 'corpus.jsonl');
    const queries = join(ws.dataset, 'queries.jsonl');
    const [c, q] = [readFileSync(corpus), readFileSync(queries)];
    writeFileSync(corpus, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), c]));
    writeFileSync(queries, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), q]));
    t.after(() => {
      writeFileSync(corpus, c);
      writeFileSync(queries, q);
    });
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    for (const file of [corpus, queries]) {
      const problems = storedProblems(db).filter((x) => x.file === file);
      assert.deepEqual(
        problems.map((p) => [p.line, p.severity, p.message]),
        [[1, 'info', 'starts with a UTF-8 byte-order mark, which was ignored']],
      );
    }
    assert.equal(datasetTree(db)[0].docCount, c.toString('utf8').split('\n').filter((l) => l.trim()).length);
    assert.equal(datasetTree(db)[0].queryCount, 1109);
  });

  it('says when a dataset has no queries.jsonl, once, until it appears', async () => {
    const queries = join(ws.dataset, 'queries.jsonl');
    const saved = readFileSync(queries);
    rmSync(queries);
    const { db } = await openDatabase(undefined);
    const index = () => indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    await index();
    await index();
    assert.equal(storedProblems(db).filter((p) => p.file === queries).length, 1);
    writeFileSync(queries, saved);
    await index();
    assert.deepEqual(storedProblems(db).filter((p) => p.file === queries), []);
    assert.equal(datasetTree(db)[0].queryCount, 1109);
  });

  it('ties a run outside any dataset folder to the dataset holding its query ids, or says it cannot', async () => {
    const loose = join(ws.root, 'runs', 'loose.trec');
    writeFileSync(loose, readFileSync(join(SCIFACT_RUNS, RUNS[0])));
    const stray = join(ws.root, 'runs', 'stray.trec');
    writeFileSync(stray, 'nope-1 Q0 d1 1 1.0 t\n');
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    const runs = db.exec('SELECT path, dataset_id FROM runs ORDER BY path')[0].values;
    assert.deepEqual(runs.find((r) => r[0] === loose)?.[1], datasetTree(db)[0].id);
    assert.equal(runs.find((r) => r[0] === stray)?.[1], null);
    assert.match(storedProblems(db).find((x) => x.file === stray)!.message, /no dataset in the workspace has this run's query ids/);
  });
});

describe('store: every bad line of a run or qrels file in one pass', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace([RUNS[0]]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));
  const index = async () => {
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    return db;
  };

  it('lists each bad run line (columns, score, duplicate) with a last problem giving the count; the tree shows the run left out and why', async (t) => {
    // A second split whose queries the run does not answer: the left-out run is not listed there (as a good run would not be).
    const train = join(ws.dataset, 'qrels', 'train.tsv');
    cpSync(join(SCIFACT, 'qrels', 'train.tsv'), train);
    t.after(() => rmSync(train));
    const bad = join(ws.runsDir, 'three-bad.trec');
    const good = readFileSync(join(SCIFACT_RUNS, RUNS[0]), 'utf8').split('\n').slice(0, 3);
    writeFileSync(bad, [good[0], '1 Q0 123 2', good[1], '1 Q0 456 4 NaNx tag', good[0], good[2]].join('\n') + '\n');
    const db = await index();
    const problems = storedProblems(db).filter((p) => p.file === bad);
    // One problem per bad line, none on a good one (a count of its own would sit on line 1): the first gives the count.
    assert.deepEqual(problems.map((p) => p.line), [2, 4, 5]);
    assert.match(problems.find((p) => p.line === 2)!.message, /expected 6 columns, found 4.*left out until the file is fixed\. 3 bad lines in this file\.$/s);
    assert.match(problems.find((p) => p.line === 4)!.message, /not a number/);
    assert.match(problems.find((p) => p.line === 5)!.message, /listed twice .*lines 1 and 5/);
    const [split, trainSplit] = datasetTree(db)[0].splits;
    assert.deepEqual([split.split, trainSplit.split], ['test', 'train']);
    assert.deepEqual(trainSplit.leftOut, []);
    assert.deepEqual(split.runs.map((r) => r.path), [join(ws.runsDir, RUNS[0])]);
    assert.equal(split.leftOut.length, 1);
    assert.equal(split.leftOut[0].path, bad);
    assert.equal(split.leftOut[0].line, 2);
    assert.match(split.leftOut[0].reason, /^line 2: expected 6 columns.*3 bad lines in this file/s);

    // Fixed: indexed and scored again, no longer left out, its problems gone.
    writeFileSync(bad, good.join('\n') + '\n');
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    const fixed = datasetTree(db)[0].splits[0];
    assert.deepEqual(fixed.leftOut, []);
    assert.ok(fixed.runs.some((r) => r.path === bad));
    assert.deepEqual(storedProblems(db).filter((p) => p.file === bad), []);
    rmSync(bad);
  });

  it('caps the list at 100 lines; the first problem gives the total', async () => {
    const bad = join(ws.runsDir, 'many-bad.trec');
    // A good first line (a file that does not start like a run is not taken for one), then 250 bad ones.
    writeFileSync(bad, ['1 Q0 d 1 1.5 tag', ...Array.from({ length: 250 }, (_, i) => `1 Q0 d${i} ${i + 2} score${i} tag`)].join('\n') + '\n');
    const db = await index();
    const problems = storedProblems(db).filter((p) => p.file === bad);
    assert.equal(problems.length, 100);
    assert.deepEqual(problems.map((p) => p.line), Array.from({ length: 100 }, (_, i) => i + 2));
    assert.match(problems[0].message, / 250 bad lines in this file; the first 100 are listed\.$/);
    // An unchanged bad file keeps its problems on the next pass (without being read again).
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    assert.equal(storedProblems(db).filter((p) => p.file === bad).length, 100);
    assert.equal(datasetTree(db)[0].splits[0].leftOut.length, 1);
    rmSync(bad);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    assert.deepEqual(datasetTree(db)[0].splits[0].leftOut, []);
    assert.deepEqual(storedProblems(db).filter((p) => p.file === bad), []);
  });

  it('caps the skipped corpus lines listed at 100 too, with the total', async (t) => {
    const corpus = join(ws.dataset, 'corpus.jsonl');
    const saved = readFileSync(corpus);
    t.after(() => writeFileSync(corpus, saved));
    appendFileSync(corpus, Array.from({ length: 130 }, (_, i) => `{"_id": "broken-${i}", "text": `).join('\n') + '\n');
    const db = await index();
    const problems = storedProblems(db).filter((p) => p.file === corpus);
    assert.equal(problems.length, 101);
    assert.match(problems.find((p) => p.line === 0)!.message, /^130 bad lines in the file; 5183 documents indexed; the first 100 are listed\./);
    assert.match(problems.find((p) => p.line > 0)!.message, /skipped \(130 bad lines in the file; 5183 documents indexed\)/);
  });

  it('lists each bad qrels line (columns, grade, a pair judged twice)', async (t) => {
    const qrels = join(ws.dataset, 'qrels', 'test.tsv');
    const saved = readFileSync(qrels);
    t.after(() => writeFileSync(qrels, saved));
    appendFileSync(qrels, '1\t31715818\n3\t999\tyes\n1\t31715818\t2\n');
    const db = await index();
    const problems = storedProblems(db).filter((p) => p.file === qrels);
    assert.deepEqual(problems.map((p) => p.line), [341, 342, 343]);
    assert.match(problems.find((p) => p.line === 341)!.message, /expected 3 columns like the first line, found 2.*not evaluated until the file is fixed/s);
    assert.match(problems.find((p) => p.line === 342)!.message, /not an integer/);
    assert.match(problems.find((p) => p.line === 343)!.message, /judged twice .*first on line 2/);
    assert.match(problems[0].message, /This split is not evaluated.* 3 bad lines in this file\.$/s);
  });
});

describe('store: judgements', { skip: needsShared('datasets/scifact', 'runs') }, () => {
  const ws = scifactWorkspace([RUNS[0]]);
  after(() => rmSync(ws.root, { recursive: true, force: true }));

  it('supersede the original grade, move the metrics, and export as TREC or BEIR qrels', async () => {
    const { db } = await openDatabase(undefined);
    const index = () => indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    await index();
    const bm25 = () => datasetTree(db)[0].splits[0].runs[0];
    const before = bm25().means;
    // Query 1's top-ranked document is unjudged in the original qrels; the user judges it relevant, and
    // overrides an original judgement of query 3 (grade 1 -> 0).
    const top = readRun(join(ws.runsDir, RUNS[0])).ranking('1')!.docs[0];
    const original = readQrels(join(ws.dataset, 'qrels', 'test.tsv'));
    assert.equal(original.grade('1', top), undefined);
    const [q3doc] = original.get('3')!.keys();
    const { writer } = AnnotationWriter.open(ws.dataset, 'test');
    writer.judge({ queryId: '1', docId: top, grade: 2, by: 'tester', note: 'on topic' });
    writer.judge({ queryId: '3', docId: q3doc, grade: 0 });
    writer.close();
    const summary = await index();
    assert.deepEqual(summary.reindexed, [annotationPaths(ws.dataset, 'test').tsv]);
    const split = datasetTree(db)[0].splits[0];
    assert.equal(split.judgementCount, 2);
    assert.equal(split.qrelsCount, 339, 'the original qrels are untouched');
    // Both figures, labelled: the original qrels' stay, the annotated ones move.
    assert.deepEqual(bm25().means, before);
    assert.ok(bm25().annotated.hole_10 < before.hole_10);
    assert.notEqual(bm25().annotated.ndcg_cut_10, before.ndcg_cut_10);
    const stored = db.exec("SELECT grade, judged_by, note FROM judgements WHERE query_id = '1'")[0].values[0];
    assert.deepEqual(stored, [2, 'tester', 'on topic']);

    const out = join(ws.root, 'export');
    const datasetId = datasetTree(db)[0].id;
    const merged = exportJudgements(db, { datasetId, split: 'test', format: 'trec', merge: true, out: join(out, 'merged.qrels') });
    assert.equal(merged, 340);
    const m = readQrels(join(out, 'merged.qrels'));
    assert.equal(m.format, 'trec');
    assert.equal(m.grade('1', top), 2);
    assert.equal(m.grade('3', q3doc), 0);
    assert.equal(m.size, 340);
    const alone = exportJudgements(db, { datasetId, split: 'test', format: 'beir', merge: false, out: join(out, 'alone.tsv') });
    assert.equal(alone, 2);
    const text = readFileSync(join(out, 'alone.tsv'), 'utf8');
    assert.equal(text, `query-id\tcorpus-id\tscore\n1\t${top}\t2\n3\t${q3doc}\t0\n`);
  });

  it('are rebuilt from the files alone when the database is lost', async () => {
    const { db } = await openDatabase(undefined);
    await indexWorkspace(db, [ws.root], { runsFolder: 'runs', measures: MEASURES });
    const rows = db.exec('SELECT query_id, grade, judged_by, note FROM judgements ORDER BY query_id')[0].values;
    assert.deepEqual(rows.map((r) => [r[0], r[1], r[2]]), [['1', 2, 'tester'], ['3', 0, null]]);
  });
});
