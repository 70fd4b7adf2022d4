import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** One judgement line of a qrels file: BEIR (query-id, corpus-id, score) or TREC (qid, iter, docno, rel). */
export function parseQrelsLine(text: string): { queryId: string; docId: string; grade: number } | undefined {
  const f = text.trim().split(/\s+/);
  const grade = Number(f[f.length - 1]);
  if (!/^-?\d+$/.test(f[f.length - 1] ?? '') || !Number.isInteger(grade)) return undefined; // header, blank or bad
  if (f.length === 3) return { queryId: f[0], docId: f[1], grade };
  if (f.length === 4) return { queryId: f[0], docId: f[2], grade };
  return undefined;
}

/**
 * The dataset and split of a qrels file: <dataset>/qrels/<split>.tsv or the user's
 * <dataset>/qrels/<split>.annotations.tsv, where <dataset> holds corpus.jsonl. Undefined otherwise.
 */
export function qrelsFileSplit(path: string): { datasetDir: string; split: string } | undefined {
  const qrelsDir = dirname(path);
  if (basename(qrelsDir) !== 'qrels') return undefined;
  const m = /^(.+?)(\.annotations)?\.tsv$/.exec(basename(path));
  if (!m) return undefined;
  const datasetDir = dirname(qrelsDir);
  return existsSync(join(datasetDir, 'corpus.jsonl')) ? { datasetDir, split: m[1] } : undefined;
}
