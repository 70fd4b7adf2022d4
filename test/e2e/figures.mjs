// Expected figures for the scenarios, computed outside the workbench: trec_eval's (irw eval, the CLI of the
// installed package) on a split's qrels with the user's judgements applied as the extension defines them
// (qrels/<split>.annotations.tsv, BEIR qrels, the last line for a pair wins over earlier lines and the original).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function beirRows(path) {
  return readFileSync(path, 'utf8').split(/\r?\n/).slice(1).filter((l) => l.trim()).map((l) => l.split('\t'));
}

/** `irw eval -c -m <measure>...` of `run` on `qrels`: Map measure name (e.g. ndcg_cut_10) -> printed figure. */
export function irwEval(extensionDir, qrels, run, measures) {
  const ev = spawnSync(process.execPath, [join(extensionDir, 'dist', 'cli.js'), 'eval', '-c',
    ...measures.flatMap((m) => ['-m', m]), qrels, run], { encoding: 'utf8' });
  if (ev.status !== 0) throw new Error(`irw eval ${qrels} ${run} failed (${ev.status}): ${ev.stderr}`);
  return new Map(ev.stdout.trim().split('\n').map((l) => l.split(/\s+/)).map(([m, , v]) => [m, v]));
}

/** irwEval on the dataset's qrels/<split>.tsv merged with the user's judgements of that split. */
export function irwEvalJudged(extensionDir, datasetDir, split, run, measures) {
  const grades = new Map();
  for (const [q, d, g] of beirRows(join(datasetDir, 'qrels', `${split}.tsv`))) grades.set(`${q}\t${d}`, g);
  const annotations = join(datasetDir, 'qrels', `${split}.annotations.tsv`);
  if (existsSync(annotations)) for (const [q, d, g] of beirRows(annotations)) grades.set(`${q}\t${d}`, g);
  const tmp = mkdtempSync(join(tmpdir(), 'irw-e2e-qrels-'));
  try {
    const merged = join(tmp, `${split}.tsv`);
    writeFileSync(merged, `query-id\tcorpus-id\tscore\n${[...grades].map(([k, g]) => `${k}\t${g}`).join('\n')}\n`);
    return irwEval(extensionDir, merged, run, measures);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
