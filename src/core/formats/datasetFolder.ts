import { existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { forEachLineSync } from './lines';
import { beirFile, forEachCorpusDoc, plainOrGz, readQueries, statKind, type BeirQuery, type CorpusDoc, type FastCorpusLines, type ReadOptions } from './beir';
import { InputError } from './errors';
import { readQrels } from './qrels';
import { readTrecTopics } from './trecTopics';
import { forEachTsvDoc, readTsvQueries } from './tsv';

/**
 * The files of one split of a dataset folder, in either layout (each data file may also be gzipped, `NAME.gz`):
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
  if (/\.jsonl(\.gz)?$/.test(corpus)) {
    return { layout: 'beir', corpus, queries: beirFile(dir, 'queries.jsonl'), qrels: join(dir, 'qrels', `${split}.tsv`) };
  }
  const find = (names: string[], what: string) => {
    const hit = findFile(dir, names);
    if (hit) return hit;
    throw new InputError({
      code: 'unreadable',
      message: `no ${what} for split '${split}' in this MS MARCO/TREC-style folder (looked for ${names.join(', ')})`,
      file: dir,
      hint: `Splits found here: ${trecSplits(dir).join(', ') || 'none'}. Name the files queries.<split>.tsv (or topics.<split>.txt) and qrels.<split>.tsv.`,
    });
  };
  return { layout: 'msmarco', corpus, queries: find(queryFiles(split), 'queries'), qrels: find(qrelsFiles(split), 'qrels') };
}

/** What opening one split of a dataset folder (any layout) takes: its files and their readers. */
export interface SplitInputs {
  layout: DatasetFiles['layout'];
  corpusPath: string;
  queriesPath: string;
  /** The split's original qrels; undefined when it has none (a split of the user's judgements only). */
  qrelsPath?: string;
  /** The queries file's queries, whatever its kind (BEIR JSONL, TSV, TREC topics). */
  readQueries(options?: ReadOptions): Map<string, BeirQuery>;
  /** The corpus's documents with their byte offsets (in the decompressed text of a .gz), JSONL or TSV. */
  forEachDoc(onDoc: (doc: CorpusDoc) => void, signal?: AbortSignal, options?: ReadOptions): Promise<void>;
}

/**
 * The inputs of `split` of the dataset folder `datasetDir`, resolved by the same rules as `irw run` (datasetFiles),
 * except that a missing qrels file is not an error here (qrelsPath undefined). Throws InputError when the folder
 * has no corpus or (MS MARCO/TREC layout) no queries file for the split.
 */
export function splitInputs(datasetDir: string, split: string): SplitInputs {
  const corpusPath = corpusFile(datasetDir);
  if (statKind(corpusPath) !== 'file') {
    throw new InputError({ code: 'unreadable', message: `no corpus (${CORPUS_FILES.join(', ')}, maybe .gz) in this dataset folder`, file: datasetDir });
  }
  let files: DatasetFiles;
  try {
    files = datasetFiles(datasetDir, split);
  } catch (e) {
    // Only the qrels may be missing: the queries are looked for again and their absence reported.
    const queries = findFile(datasetDir, queryFiles(split));
    if (!queries) throw e;
    files = { layout: 'msmarco', corpus: corpusPath, queries, qrels: '' };
  }
  return {
    layout: files.layout,
    corpusPath,
    queriesPath: files.queries,
    ...(files.qrels && statKind(files.qrels) === 'file' ? { qrelsPath: files.qrels } : {}),
    readQueries: (options) => readDatasetQueries(files.queries, options),
    forEachDoc: (onDoc, signal, options) => forEachDatasetDoc(corpusPath, onDoc, signal, options),
  };
}

/** The first of `names` (or its .gz) present in `dir`. */
function findFile(dir: string, names: string[]): string | undefined {
  return names.map((n) => plainOrGz(join(dir, n))).find((p) => statKind(p) === 'file');
}

/** The corpus file names a dataset folder may hold, in the order corpusFile prefers them; each may be gzipped (NAME.gz). */
export const CORPUS_FILES = ['corpus.jsonl', ...COLLECTIONS];

/**
 * Glob patterns, relative to a dataset folder and '/'-separated, of every file the resolver may read (corpus,
 * queries, topics, qrels of any split, each also .gz), so that watchers follow exactly these rules.
 */
export function datasetFilePatterns(): string[] {
  const names = [...CORPUS_FILES, 'queries.jsonl', ...queryFiles('*'), ...qrelsFiles('*')].map((n) => n.split(sep).join('/'));
  return [...new Set(names.flatMap((n) => [n, `${n}.gz`]))];
}

/** datasetFilePatterns() as expressions, compiled once ('*' stands for any characters but '/'). */
let datasetFileRes: RegExp[] | undefined;

/**
 * Whether `relative` (a '/'-separated path inside a dataset folder) is a file the resolver may read, by
 * datasetFilePatterns(): a watcher passes on nothing else (a judgement's lock and temporary files, its journal).
 */
export function isDatasetFile(relative: string): boolean {
  datasetFileRes ??= datasetFilePatterns().map((g) => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`));
  return datasetFileRes.some((re) => re.test(relative));
}

/** Whether a file name is one of CORPUS_FILES (or its .gz): what makes a folder a dataset candidate. */
export function isCorpusFileName(name: string): boolean {
  return CORPUS_FILES.some((c) => name === c || name === `${c}.gz`);
}

/** The corpus file of a dataset folder: corpus.jsonl(.gz), else an MS MARCO/TREC-style TSV collection. */
export function corpusFile(dir: string): string {
  const jsonl = beirFile(dir, 'corpus.jsonl');
  if (existsSync(jsonl)) return jsonl;
  return COLLECTIONS.map((c) => plainOrGz(join(dir, c))).find((p) => existsSync(p)) ?? jsonl;
}

/**
 * Splits of an MS MARCO/TREC-style folder: those with both a queries (or topics) file and a qrels file (each
 * maybe gzipped). The user's judgement files (qrels/<split>.annotations.tsv) are not qrels of a split.
 */
export function trecSplits(dir: string): string[] {
  const splits = new Set<string>();
  for (const n of listNames(dir)) {
    const m = /^qrels\.(.+?)(?:\.tsv|\.txt)?(?:\.gz)?$/.exec(n);
    if (m) splits.add(m[1]);
  }
  for (const n of listNames(join(dir, 'qrels'))) {
    const m = /^(.+)\.(?:txt|tsv)(?:\.gz)?$/.exec(n);
    if (m && !m[1].endsWith('.annotations')) splits.add(m[1]);
  }
  return [...splits].filter((s) => queryFiles(s).some((q) => statKind(plainOrGz(join(dir, q))) === 'file')).sort();
}

const named = (path: string, ext: string) => path.endsWith(ext) || path.endsWith(`${ext}.gz`);

/** Whether a corpus file is a TSV collection (else BEIR JSONL), by its name as corpusFile resolves it. */
export const isTsvCorpus = (path: string): boolean => named(path, '.tsv');

/** Documents of a corpus file, BEIR JSONL or TSV by its name (`fast`: see forEachCorpusDoc; JSONL only). */
export function forEachDatasetDoc(path: string, onDoc: (doc: CorpusDoc) => void, signal?: AbortSignal, options: ReadOptions = {}, fast?: FastCorpusLines): Promise<void> {
  return isTsvCorpus(path) ? forEachTsvDoc(path, onDoc, signal, options) : forEachCorpusDoc(path, onDoc, signal, options, fast);
}

/** Queries of a BEIR queries.jsonl, a TSV queries file or a TREC topic file, by its name. */
export function readDatasetQueries(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  if (named(path, '.jsonl')) return readQueries(path, options);
  if (named(path, '.tsv')) return readTsvQueries(path, options);
  return readTrecTopics(path, options);
}

/**
 * Queries from a file of any of the field's usual kinds, told apart by content (for `--queries FILE`, whatever
 * its name): BEIR JSONL ({"_id", "text"} per line), TSV (id TAB text per line, as MS MARCO's queries.*.tsv) or
 * TREC topics. In file order; bad lines are handled as in readQueries.
 */
export function readQueryFile(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  let head = '';
  forEachLineSync(path, (buf, start, end) => {
    if (head.length < 4096) head += `${buf.toString('utf8', start, end)}\n`;
  });
  const first = head.replace(/^\ufeff/, '').trimStart();
  if (first.startsWith('{')) return readQueries(path, options);
  return /<top>|<topic\b/i.test(head) ? readTrecTopics(path, options) : readTsvQueries(path, options);
}

export interface CheckedDataset extends DatasetFiles {
  /** Query ids judged in the split, in trec_eval order (or those of the queries file, in its order). */
  judged: readonly string[];
}

/**
 * Checks a dataset folder and split before any long work, refusing what would otherwise fail late or write an
 * empty run: a missing folder (named as a folder), a folder of datasets rather than one (listing them), an
 * unknown split (listing the splits there are), and a split with no judged query. With `queriesFile`, the
 * queries are that file's (any kind, see readQueryFile) and no qrels is needed.
 */
export function checkDataset(dir: string, split: string, queriesFile?: string): CheckedDataset {
  const kind = statKind(dir);
  if (kind !== 'dir') {
    throw new InputError({
      code: 'unreadable',
      message: kind === 'file' ? 'this is a file, not a dataset folder' : 'dataset folder does not exist',
      file: dir,
      hint: 'Give --dataset a dataset folder: BEIR (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) or MS MARCO/TREC-style (collection.tsv, queries.<split>.tsv, qrels.<split>.tsv).',
    });
  }
  const corpus = corpusFile(dir);
  if (statKind(corpus) !== 'file') {
    const inside = datasetsIn(dir);
    throw new InputError({
      code: 'unreadable',
      message: inside.length ? `this folder holds datasets (${inside.join(', ')}), not the files of one` : 'no corpus.jsonl (or corpus.jsonl.gz, collection.tsv) in this dataset folder',
      file: dir,
      hint: inside.length
        ? `Pass one of them, e.g. --dataset ${join(dir, inside[0])}.`
        : "A BEIR dataset folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv (as BEIR's zips unpack); `irw datasets get NAME` downloads one.",
    });
  }
  if (queriesFile) {
    const judged = [...readQueryFile(queriesFile).keys()];
    if (judged.length === 0) throw new InputError({ code: 'malformed', message: 'no query in this file: the run would be empty', file: queriesFile, hint: 'Give BEIR JSONL, TSV (id TAB text) or TREC topics.' });
    return { layout: corpus.includes('.jsonl') ? 'beir' : 'msmarco', corpus, queries: queriesFile, qrels: '', judged };
  }
  const files = datasetFiles(dir, split);
  if (files.layout === 'beir') {
    if (statKind(files.queries) !== 'file') {
      throw new InputError({ code: 'unreadable', message: 'file does not exist', file: files.queries, hint: 'A BEIR dataset folder holds queries.jsonl beside corpus.jsonl.' });
    }
    if (statKind(files.qrels) !== 'file') {
      const splits = listNames(join(dir, 'qrels'))
        .filter((n) => n.endsWith('.tsv') && !n.endsWith('.annotations.tsv'))
        .map((n) => n.slice(0, -4));
      throw new InputError({
        code: 'unreadable',
        message: `no split '${split}' in this dataset`,
        file: files.qrels,
        hint: splits.length ? `Splits there are: ${splits.join(', ')} (--split NAME).` : `The folder ${join(dir, 'qrels')} holds no <split>.tsv qrels file.`,
      });
    }
  }
  const judged = readQrels(files.qrels).queryIds();
  if (judged.length === 0) {
    throw new InputError({
      code: 'malformed',
      message: 'no judgement in this qrels file (empty, or only a header): the run would be empty',
      file: files.qrels,
      hint: 'Use a split with judged queries, or add judgements (query-id, corpus-id, score per line).',
    });
  }
  return { ...files, judged };
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** Sub-folders of `dir` that look like datasets (hold a corpus). */
function datasetsIn(dir: string): string[] {
  return listNames(dir).filter((n) => statKind(corpusFile(join(dir, n))) === 'file');
}
