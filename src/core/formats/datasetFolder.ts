import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { forEachCorpusDoc, readQueries, type BeirQuery, type CorpusDoc, type ReadOptions } from './beir';
import { InputError } from './errors';
import { readTrecTopics } from './trecTopics';
import { forEachTsvDoc, readTsvQueries } from './tsv';

/**
 * The files of one split of a dataset folder, in either layout:
 * - BEIR: corpus.jsonl, queries.jsonl, qrels/<split>.tsv;
 * - MS MARCO / TREC: a TSV collection (collection.tsv, docs.tsv or corpus.tsv), the split's queries
 *   (queries.<split>.tsv, or a TREC topic file topics.<split>.txt / .xml) and its TREC qrels
 *   (qrels.<split>.tsv / .txt, or qrels/<split>.txt), e.g. MS MARCO passage's queries.dev.small.tsv with
 *   qrels.dev.small.tsv is the split "dev.small".
 */
export interface DatasetFiles {
  layout: 'beir' | 'msmarco';
  corpus: string;
  queries: string;
  qrels: string;
}

const COLLECTIONS = ['collection.tsv', 'docs.tsv', 'corpus.tsv'];
const queryFiles = (split: string) => [`queries.${split}.tsv`, `topics.${split}.txt`, `topics.${split}.xml`, `topics.${split}`];
const qrelsFiles = (split: string) => [`qrels.${split}.tsv`, `qrels.${split}.txt`, `qrels.${split}`, join('qrels', `${split}.txt`), join('qrels', `${split}.tsv`)];

/** Resolves a dataset folder's files for `split`; throws InputError naming what was looked for when one is missing. */
export function datasetFiles(dir: string, split: string): DatasetFiles {
  const corpus = corpusFile(dir);
  if (corpus.endsWith('.jsonl')) {
    return { layout: 'beir', corpus, queries: join(dir, 'queries.jsonl'), qrels: join(dir, 'qrels', `${split}.tsv`) };
  }
  const find = (names: string[], what: string) => {
    const hit = names.find((n) => existsSync(join(dir, n)));
    if (hit) return join(dir, hit);
    throw new InputError({
      code: 'unreadable',
      message: `no ${what} for split '${split}' in this MS MARCO/TREC-style folder (looked for ${names.join(', ')})`,
      file: dir,
      hint: `Splits found here: ${trecSplits(dir).join(', ') || 'none'}. Name the files queries.<split>.tsv (or topics.<split>.txt) and qrels.<split>.tsv.`,
    });
  };
  return { layout: 'msmarco', corpus, queries: find(queryFiles(split), 'queries'), qrels: find(qrelsFiles(split), 'qrels') };
}

/** The corpus file of a dataset folder: corpus.jsonl, else an MS MARCO/TREC-style TSV collection. */
export function corpusFile(dir: string): string {
  const tsv = existsSync(join(dir, 'corpus.jsonl')) ? undefined : COLLECTIONS.find((c) => existsSync(join(dir, c)));
  return join(dir, tsv ?? 'corpus.jsonl');
}

/** Splits of an MS MARCO/TREC-style folder: those with both a queries (or topics) file and a qrels file. */
export function trecSplits(dir: string): string[] {
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const splits = new Set<string>();
  for (const n of names) {
    const m = /^qrels\.(.+?)(\.tsv|\.txt)?$/.exec(n);
    if (m) splits.add(m[1]);
  }
  if (existsSync(join(dir, 'qrels'))) for (const n of readdirSync(join(dir, 'qrels'))) if (/\.(txt|tsv)$/.test(n)) splits.add(n.replace(/\.(txt|tsv)$/, ''));
  return [...splits].filter((s) => queryFiles(s).some((q) => existsSync(join(dir, q)))).sort();
}

/** Documents of a corpus file, BEIR JSONL or TSV by its name. */
export function forEachDatasetDoc(path: string, onDoc: (doc: CorpusDoc) => void, signal?: AbortSignal, options: ReadOptions = {}): Promise<void> {
  return path.endsWith('.tsv') ? forEachTsvDoc(path, onDoc, signal, options) : forEachCorpusDoc(path, onDoc, signal, options);
}

/** Queries of a BEIR queries.jsonl, a TSV queries file or a TREC topic file, by its name. */
export function readDatasetQueries(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  if (path.endsWith('.jsonl')) return readQueries(path, options);
  if (path.endsWith('.tsv')) return readTsvQueries(path, options);
  return readTrecTopics(path);
}
