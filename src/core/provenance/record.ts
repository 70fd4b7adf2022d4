import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { corpusFile, datasetFiles } from '../formats/datasetFolder';
import { readQrels, type Qrels } from '../formats/qrels';
import { describeFile, type FileRecord } from './files';
import { product, type Product } from './product';

/**
 * What made a run, as its `<run>.json` sidecar records it beside the plain TREC file (which trec_eval reads
 * unchanged): the command, the product's version and commit, and every input file with its hash, so a run can
 * be reproduced, and a comparison can tell runs made on other data (check.ts). The settings themselves stay
 * the sidecar's top-level keys (the request), and `ir_metadata` (irMetadata.ts) restates all of it in the
 * PRIMAD fields of ir_metadata (Breuer et al., SIGIR 2022), which TIREx uses.
 */
export interface QrelsRecord extends FileRecord {
  /** Queries and judgements in the file when the run was made: what "the qrels version" of a figure means. */
  queries: number;
  judgements: number;
}

/** A model folder as a neural run used it: the ONNX file's and tokenizer files' hashes and every setting. */
export interface ModelRecord {
  dir: string;
  kind: 'bi-encoder' | 'cross-encoder';
  model: FileRecord;
  tokenizer: FileRecord[];
  /** Where each setting came from, e.g. { maxLength: "sentence_bert_config.json max_seq_length" }. */
  sources: Record<string, string>;
  settings: Record<string, unknown>;
}

export interface Provenance {
  schema: 1;
  command: string;
  product: Product;
  inputs: {
    dataset?: string;
    corpus?: FileRecord;
    queries?: FileRecord;
    qrels?: QrelsRecord;
    queryWeights?: FileRecord;
    model?: ModelRecord;
    /** Fusion's input runs, in order. */
    runs?: FileRecord[];
    /** The run a cross-encoder re-ranked. */
    firstStage?: FileRecord;
    /** Embeddings made elsewhere that a dense run searched (the .npy matrices). */
    docEmbeddings?: FileRecord;
    queryEmbeddings?: FileRecord;
  };
  /** A run copied in from elsewhere: the file it came from (its hash: the copy is checked against it) and when. */
  imported?: { from: FileRecord; at: string };
  /** A tuned run: how its setting was chosen (tune.ts). */
  tuning?: Record<string, unknown>;
}

/** The sidecar of a run file. */
export const sidecarPath = (runPath: string): string => `${runPath}.json`;

/** A run's sidecar as written: its settings (top-level keys) and, for runs written since it existed, provenance. */
export interface Sidecar {
  settings: Record<string, unknown>;
  provenance: Provenance | null;
}

/** Reads `<run>.json`; null when there is none or it is not a JSON object (a sidecar is optional). */
export function readSidecar(runPath: string): Sidecar | null {
  const path = sidecarPath(runPath);
  if (!existsSync(path)) return null;
  let obj: unknown;
  try {
    obj = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null;
  const { provenance, ir_metadata: _ir, ...settings } = obj as Record<string, unknown>;
  const p = provenance as Provenance | undefined;
  return { settings, provenance: p && p.schema === 1 && typeof p.inputs === 'object' ? p : null };
}

/** The command line of this process as a user would retype it (`irw run ...`), for the CLI's runs. */
export function cliCommand(argv: readonly string[] = process.argv.slice(2)): string {
  return ['irw', ...argv.map(shellQuote)].join(' ');
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** describeQrels' answers by path, with the file's size and mtime then. */
const described = new Map<string, { size: number; mtimeMs: number; record: Promise<QrelsRecord> }>();

/**
 * The qrels file of a split with its counts (`qrels`: the file as read already), read again only when its size
 * or mtime changed (sameContent's rule for the same file): the Results panel asks after every judgement, and
 * reading the file each time put its I/O behind the engine's background slices (0.1-0.7 s a model).
 */
export function describeQrels(path: string, signal?: AbortSignal, qrels?: Qrels): Promise<QrelsRecord> {
  let st;
  try {
    st = statSync(path);
  } catch {
    return describe(path, signal, qrels); // says what is wrong with the file, as reading it does
  }
  const kept = described.get(path);
  if (kept && kept.size === st.size && kept.mtimeMs === st.mtimeMs) return kept.record;
  const record = describe(path, signal, qrels);
  described.set(path, { size: st.size, mtimeMs: st.mtimeMs, record });
  record.catch(() => described.delete(path));
  return record;
}

async function describe(path: string, signal: AbortSignal | undefined, qrels: Qrels = readQrels(path)): Promise<QrelsRecord> {
  return { ...(await describeFile(path, signal)), queries: qrels.queryIds().length, judgements: qrels.size };
}

/**
 * The dataset inputs of a run over `dataset`: its corpus, the queries file used (the split's, or `queriesFile`)
 * and, when the queries are the split's, its qrels. `corpusSha256` when already computed.
 */
export async function datasetInputs(
  dataset: string,
  split: string,
  queriesFile: string | undefined,
  signal?: AbortSignal,
  corpusSha256?: string,
): Promise<Provenance['inputs']> {
  const dir = resolve(dataset);
  if (queriesFile) {
    return { dataset: dir, corpus: await describeFile(corpusFile(dir), signal, corpusSha256), queries: await describeFile(queriesFile, signal) };
  }
  const files = datasetFiles(dir, split);
  return {
    dataset: dir,
    corpus: await describeFile(files.corpus, signal, corpusSha256),
    queries: await describeFile(files.queries, signal),
    qrels: await describeQrels(files.qrels, signal),
  };
}

export function provenanceOf(command: string | undefined, inputs: Provenance['inputs'], extra: Pick<Provenance, 'imported' | 'tuning'> = {}): Provenance {
  return { schema: 1, command: command ?? 'unknown (not recorded by the caller)', product: product(), inputs, ...extra };
}

/**
 * The dataset folder a qrels file belongs to: DIR for DIR/qrels/<split>.tsv (BEIR), else the qrels file's folder
 * (MS MARCO/TREC-style qrels.<split>.tsv); null when that folder holds no corpus.
 */
export function datasetOfQrels(qrelsPath: string): string | null {
  const abs = resolve(qrelsPath);
  const dir = basename(dirname(abs)) === 'qrels' ? dirname(dirname(abs)) : dirname(abs);
  return existsSync(corpusFile(dir)) ? dir : null;
}

/** The split a qrels file is, by its name: test for qrels/test.tsv or qrels.test.tsv. */
export function splitOfQrels(qrelsPath: string): string {
  const name = basename(qrelsPath).replace(/\.gz$/, '').replace(/\.(tsv|txt)$/, '');
  return name.startsWith('qrels.') ? name.slice('qrels.'.length) : name;
}

/** The queries file the dataset folder has for `split`, or null. */
export function datasetQueriesFile(dir: string, split: string): string | null {
  try {
    return datasetFiles(dir, split).queries;
  } catch {
    const jsonl = join(dir, 'queries.jsonl');
    return existsSync(jsonl) ? jsonl : null;
  }
}
