import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { QrelsLineParser } from '../formats/qrels';

/**
 * One judgement line of a qrels file: BEIR (query-id, corpus-id, score) or TREC (qid, iter, docno, rel), read as
 * every qrels reader reads it (QrelsLineParser); undefined for a header, blank, comment or bad line.
 */
export function parseQrelsLine(text: string): { queryId: string; docId: string; grade: number } | undefined {
  const buf = Buffer.from(text);
  try {
    const j = new QrelsLineParser('').parse(buf, 0, buf.length, 1);
    return j ? { queryId: j.qid, docId: j.docid, grade: j.grade } : undefined;
  } catch {
    return undefined;
  }
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
