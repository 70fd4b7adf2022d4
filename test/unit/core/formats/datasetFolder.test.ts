import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachCorpusDocSync, readQueries } from '../../../../src/core/formats/beir';
import { datasetFiles, trecSplits } from '../../../../src/core/formats/datasetFolder';
import { isInputError } from '../../../../src/core/formats/errors';
import { writeSyntheticBeir } from '../../../helpers/syntheticBeir';
import { DATASETS, REPO } from '../../support/paths';

const CLI = ['--import', 'tsx', join(REPO, 'src/cli/main.ts')];

/**
 * An MS MARCO/TREC-style copy of a BEIR dataset: collection.tsv (id, title, text), queries.test.tsv, the same
 * queries as a TREC topic file, and TREC qrels. `irw run` on it must give the BEIR folder's figures exactly.
 */
function writeTrecStyle(beir: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ');
  const docs: string[] = [];
  forEachCorpusDocSync(join(beir, 'corpus.jsonl'), (d) => docs.push(`${d.id}\t${flat(d.title)}\t${flat(d.text)}\n`));
  writeFileSync(join(dir, 'collection.tsv'), docs.join(''));
  const qrels = readFileSync(join(beir, 'qrels', 'test.tsv'), 'utf8').split(/\r?\n/).slice(1).filter(Boolean).map((l) => l.split('\t'));
  writeFileSync(join(dir, 'qrels.test.tsv'), qrels.map(([q, d, g]) => `${q}\t0\t${d}\t${g}\n`).join(''));
  writeFileSync(join(dir, 'qrels.test-topics.txt'), qrels.map(([q, d, g]) => `${q} 0 ${d} ${g}\n`).join(''));
  const queries = readQueries(join(beir, 'queries.jsonl'));
  const judged = [...new Set(qrels.map(([q]) => q))];
  writeFileSync(join(dir, 'queries.test.tsv'), judged.map((q) => `${q}\t${flat(queries.get(q)!.text)}\n`).join(''));
  writeFileSync(join(dir, 'topics.test-topics.txt'), judged.map((q) => `<top>\n<num> Number: ${q}\n<title> ${flat(queries.get(q)!.text)}\n<desc> Description:\n</top>\n\n`).join(''));
}

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
    writeTrecStyle(beir, trec);
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
