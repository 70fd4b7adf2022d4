// `npm run demo`: BM25 on SciFact's test split, then trec_eval's figures for the run. SciFact comes from
// $IRW_DEMO_DATASET, else ../shared/datasets/scifact (the project's machines; IRW_SHARED moves it), else
// datasets/scifact, which `irw datasets get scifact` fills first where it is empty (2.8 MB from BEIR's server);
// the first line says which was used.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DATASETS } from '../test/shared-data.cjs';

const REPO = resolve(import.meta.dirname, '..');
const candidates = [
  process.env.IRW_DEMO_DATASET && [resolve(process.env.IRW_DEMO_DATASET), '$IRW_DEMO_DATASET'],
  [join(DATASETS, 'scifact'), "the project's shared data"],
  [join(REPO, 'datasets', 'scifact'), "downloaded with 'irw datasets get scifact'"],
].filter(Boolean);
const cli = (...args) => {
  const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), ...args], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const present = ([dir]) => existsSync(join(dir, 'corpus.jsonl')) && existsSync(join(dir, 'qrels', 'test.tsv'));
if (!candidates.some(present)) {
  console.log(`demo: no SciFact in ${candidates.map(([d]) => relative(REPO, d) || '.').join(' or ')}: irw datasets get scifact`);
  cli('datasets', 'get', 'scifact');
}
const [dataset, source] = candidates.find(present);
console.log(`demo: SciFact from ${relative(REPO, dataset)} (${source})`);
cli('run', '--dataset', dataset, '--split', 'test', '--cache', '.cache/irw', '--out', 'runs/scifact.bm25.trec');
cli('eval', '-c', '-m', 'ndcg_cut.10', '-m', 'recall.100', '-m', 'map', '-m', 'recip_rank', '-m', 'P.10', '-m', 'judged.10', '-m', 'hole.10', join(dataset, 'qrels', 'test.tsv'), 'runs/scifact.bm25.trec');
