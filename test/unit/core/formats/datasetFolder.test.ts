import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CORPUS_FILES, corpusFile, datasetFilePatterns, datasetFiles, isCorpusFileName, isDatasetFile, splitInputs, trecSplits } from '../../../../src/core/formats/datasetFolder';
import { isInputError } from '../../../../src/core/formats/errors';
import { AnnotationWriter } from '../../../../src/core/judgements/annotations';
import { writeSyntheticBeir } from '../../../helpers/syntheticBeir';
import { writeGzBeir, writeMsmarcoStyle, writeTrecStyle as writeTrecFixture, writeTrecStyleCopy } from '../../../helpers/trecStyleDatasets';
import { DATASETS, REPO } from '../../support/paths';

const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];

function runAndEval(dataset: string, split: string, out: string): string {
  const r = spawnSync(process.execPath, [...CLI, 'run', '--dataset', dataset, '--split', split, '--top-k', '100', '--out', out], { cwd: REPO, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const qrels = datasetFiles(dataset, split).qrels;
  const e = spawnSync(process.execPath, [...CLI, 'eval', '-c', '-m', 'ndcg_cut.10', '-m', 'recall.100', qrels, out], { cwd: REPO, encoding: 'utf8' });
  assert.equal(e.status, 0, e.stderr);
  return e.stdout;
}

describe('MS MARCO/TREC-style dataset folders', () => {
  let tmp: string;
  let beir: string;
  let trec: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'irw-trecfolder-'));
    const real = join(DATASETS, 'scifact');
    beir = existsSync(join(real, 'corpus.jsonl')) ? real : join(tmp, 'beir');
    if (beir !== real) writeSyntheticBeir(beir, { docs: 300, queries: 20, vocabulary: 2000, seed: 5 });
    trec = join(tmp, 'trec');
    writeTrecStyleCopy(beir, trec);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds the files and the splits of each layout', () => {
    assert.deepEqual(datasetFiles(trec, 'test'), { layout: 'msmarco', corpus: join(trec, 'collection.tsv'), queries: join(trec, 'queries.test.tsv'), qrels: join(trec, 'qrels.test.tsv') });
    assert.equal(datasetFiles(trec, 'test-topics').queries, join(trec, 'topics.test-topics.txt'));
    assert.deepEqual(trecSplits(trec), ['test', 'test-topics']);
    assert.equal(datasetFiles(beir, 'test').layout, 'beir');
    assert.throws(() => datasetFiles(trec, 'dev'), (e) => isInputError(e) && /no queries for split 'dev'[^]*queries\.dev\.tsv/.test(e.message) && /Splits found here: test, test-topics/.test(e.hint ?? ''));
  });

  it('irw run on the TSV folder, with TSV queries or TREC topics, gives the BEIR folder\'s figures', () => {
    const fromBeir = runAndEval(beir, 'test', join(tmp, 'beir.trec'));
    assert.equal(runAndEval(trec, 'test', join(tmp, 'tsv.trec')), fromBeir);
    assert.equal(runAndEval(trec, 'test-topics', join(tmp, 'topics.trec')), fromBeir);
    if (beir.startsWith(DATASETS)) assert.match(fromBeir, /^ndcg_cut_10\s+all\s+0\.6789$/m);
  });
});

describe('dataset folders: gzipped files, splitInputs, and what activates the editor', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-splitinputs-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const msmarco = join(tmp, 'msmarco');
  const trec = join(tmp, 'trec');
  const gz = join(tmp, 'gz');
  writeMsmarcoStyle(msmarco);
  writeTrecFixture(trec);
  writeGzBeir(gz);

  it('finds gzipped qrels and queries, and never takes the user\'s qrels/<split>.annotations.tsv for a split', () => {
    const dir = join(tmp, 'gzipped');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(join(dir, 'collection.tsv.gz'), gzipSync('1\tone\n'));
    writeFileSync(join(dir, 'queries.dev.tsv.gz'), gzipSync('q\tone\n'));
    writeFileSync(join(dir, 'qrels.dev.tsv.gz'), gzipSync('q 0 1 1\n'));
    writeFileSync(join(dir, 'queries.x.tsv'), 'q\tone\n');
    writeFileSync(join(dir, 'qrels', 'x.annotations.tsv'), 'query-id\tcorpus-id\tscore\n');
    writeFileSync(join(dir, 'queries.x.annotations.tsv'), 'q\tone\n');
    assert.deepEqual(trecSplits(dir), ['dev']);
    assert.deepEqual(datasetFiles(dir, 'dev'), { layout: 'msmarco', corpus: join(dir, 'collection.tsv.gz'), queries: join(dir, 'queries.dev.tsv.gz'), qrels: join(dir, 'qrels.dev.tsv.gz') });
    assert.deepEqual(trecSplits(trec), ['dl19', 'dl20']);
  });

  it('splitInputs: the files of a split of any layout, their readers, and no qrels for a split of judgements only', async () => {
    const m = splitInputs(msmarco, 'dev.small');
    assert.deepEqual([m.layout, m.corpusPath, m.queriesPath, m.qrelsPath], ['msmarco', join(msmarco, 'collection.tsv'), join(msmarco, 'queries.dev.small.tsv'), join(msmarco, 'qrels.dev.small.tsv')]);
    assert.deepEqual([...m.readQueries().keys()], ['100', '101']);
    const ids: string[] = [];
    await m.forEachDoc((d) => ids.push(d.id));
    assert.deepEqual(ids, ['0', '1', '2', '3', '4', '5']);
    const t = splitInputs(trec, 'dl20');
    assert.deepEqual([t.corpusPath, t.queriesPath, t.qrelsPath], [join(trec, 'docs.tsv.gz'), join(trec, 'topics.dl20.xml'), join(trec, 'qrels', 'dl20.txt')]);
    assert.deepEqual([...t.readQueries().values()].map((q) => q.text), ['reefs & deltas']);
    const g = splitInputs(gz, 'test');
    assert.deepEqual([g.layout, g.corpusPath, g.queriesPath, g.qrelsPath], ['beir', join(gz, 'corpus.jsonl.gz'), join(gz, 'queries.jsonl.gz'), join(gz, 'qrels', 'test.tsv')]);
    // train has queries but no qrels: a split the user may judge from scratch.
    assert.equal(splitInputs(msmarco, 'train').qrelsPath, undefined);
    assert.equal(splitInputs(gz, 'dev').qrelsPath, undefined);
    assert.throws(() => splitInputs(msmarco, 'nope'), (e) => isInputError(e) && /no queries for split 'nope'/.test(e.message));
    assert.throws(() => splitInputs(tmp, 'dev'), (e) => isInputError(e) && /no corpus/.test(e.message));
  });

  it("the watchers' patterns cover every file the resolver picks for a split", () => {
    const patterns = datasetFilePatterns().map((p) => new RegExp(`^${p.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`));
    const splits: [string, string][] = [...trecSplits(msmarco).map((s): [string, string] => [msmarco, s]), ...trecSplits(trec).map((s): [string, string] => [trec, s]), [gz, 'test']];
    const picked = splits.flatMap(([dir, split]) => {
      const f = datasetFiles(dir, split);
      return [f.corpus, f.queries, f.qrels].map((p) => p.slice(dir.length + 1));
    });
    assert.ok(picked.length >= 12, String(picked.length));
    for (const f of picked) assert.ok(patterns.some((r) => r.test(f)), `${f} is not watched`);
  });

  it('every corpus file name the resolver accepts (and its .gz) activates the extension', () => {
    const events = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { activationEvents: string[] }).activationEvents;
    const names = CORPUS_FILES.flatMap((f) => [f, `${f}.gz`]);
    assert.deepEqual(events.filter((e) => e.startsWith('workspaceContains:')).map((e) => e.slice('workspaceContains:**/'.length)).sort(), [...names].sort());
    assert.ok(names.every(isCorpusFileName) && !isCorpusFileName('queries.jsonl'));
    for (const dir of [msmarco, trec, gz]) assert.ok(isCorpusFileName(corpusFile(dir).slice(dir.length + 1)));
  });
});

describe('isDatasetFile: what a watcher of a dataset folder passes on', () => {
  it('passes every file the resolver reads and none of what a judgement leaves beside the annotations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'irw-watch-'));
    try {
      writeSyntheticBeir(dir, { docs: 5, queries: 2 });
      for (const f of ['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv', 'qrels/test.annotations.tsv', 'qrels/dev.tsv.gz', 'topics.dl19.txt']) assert.ok(isDatasetFile(f), f);
      // The names a judgement's file events carry, as the extension's watcher of qrels/ receives them.
      const names = new Set<string>();
      const w = watch(join(dir, 'qrels'), (_e, name) => name && names.add(name.toString()));
      const { writer } = AnnotationWriter.open(dir, 'test');
      writer.judge({ queryId: 'q1', docId: 'd1', grade: 1, note: 'seen' });
      writer.judge({ queryId: 'q2', docId: 'd2', grade: 0 });
      writer.close();
      await new Promise((r) => setTimeout(r, 200));
      w.close();
      assert.ok([...names].some((n) => n.endsWith('.lock')), `the judgement took its lock: ${[...names]}`);
      // Only the annotations, which the store records as it appends (isCurrent): no pass of the index follows.
      assert.deepEqual([...names].filter((n) => isDatasetFile(`qrels/${n}`)), ['test.annotations.tsv']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
