import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { statKind } from '../../formats/beir';
import { corpusFile, datasetFiles, readDatasetQueries, readQueryFile } from '../../formats/datasetFolder';
import { InputError } from '../../formats/errors';
import { createAnalyzer, type Analyzer } from '../analysis/analyzer';
import { docNumbers } from './explain';
import type { Bm25Index, FieldsMode } from './index';
import { readOwnWeights, readQueryWeights } from './queryWeights';
import { Bm25Ranker } from './ranker';
import type { Rm3Params } from './rm3';
import { obtainIndex, type Bm25RunRequest, type RunHooks } from './run';
import { bagOfWords, type QueryVector } from './search';

/**
 * A BM25 run's own settings, read back from its sidecar, and what re-running one of its queries takes: the
 * dataset's index (kept in memory across calls), a ranker with those settings and the run's query vectors.
 * Explanations and what-if queries start here, so they rank exactly as the run did.
 */
export type Bm25RunSettings = Omit<Bm25RunRequest, 'out' | 'tag' | 'tmpOut' | 'command' | 'threads'>;

/** The BM25 settings of a sidecar's top-level keys; throws InputError naming the sidecar and the bad key. */
export function bm25Settings(settings: Record<string, unknown>, sidecar: string): Bm25RunSettings {
  const bad = (key: string, want: string) =>
    new InputError({ code: 'malformed', message: `"${key}" should be ${want} (got ${JSON.stringify(settings[key])})`, file: sidecar, hint: 'The sidecar is written by irw run; re-make the run rather than edit it.' });
  const num = (key: string) => {
    if (typeof settings[key] !== 'number' || !Number.isFinite(settings[key])) throw bad(key, 'a number');
    return settings[key];
  };
  const str = (key: string) => {
    if (typeof settings[key] !== 'string') throw bad(key, 'a string');
    return settings[key];
  };
  const optional = (key: string) => (settings[key] === null || settings[key] === undefined ? null : str(key));
  const fields = str('fields');
  if (fields !== 'flat' && fields !== 'multifield') throw bad('fields', '"flat" or "multifield"');
  const rm3 = settings.rm3 as Record<string, unknown> | null | undefined;
  if (rm3 !== null && rm3 !== undefined && (typeof rm3 !== 'object' || ![rm3.fbTerms, rm3.fbDocs, rm3.originalQueryWeight].every((x) => typeof x === 'number'))) {
    throw bad('rm3', 'null or {fbTerms, fbDocs, originalQueryWeight}');
  }
  if (typeof settings.removeQuery !== 'boolean') throw bad('removeQuery', 'true or false');
  const queries = optional('queries');
  return {
    dataset: str('dataset'),
    split: str('split'),
    k1: num('k1'),
    b: num('b'),
    fields,
    topK: num('topK'),
    removeQuery: settings.removeQuery,
    rm3: (rm3 as Rm3Params | null | undefined) ?? null,
    queryWeights: optional('queryWeights'),
    ...(queries ? { queries } : {}),
    cacheDir: optional('cacheDir'),
  };
}

/** Indexes held in memory by corpus file (and its size and time) and fields, so a second explanation is instant. */
export class LoadedIndexes {
  private readonly entries = new Map<string, Promise<Bm25Index>>();
  private analyzerPromise: Promise<Analyzer> | null = null;

  constructor(private readonly capacity = 2) {}

  analyzer(): Promise<Analyzer> {
    return (this.analyzerPromise ??= createAnalyzer());
  }

  async get(corpusPath: string, fields: FieldsMode, cacheDir: string | null, hooks: RunHooks = {}): Promise<Bm25Index> {
    const st = statSync(corpusPath);
    const key = `${resolve(corpusPath)}\0${st.size}\0${st.mtimeMs}\0${fields}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = this.analyzer().then(async (analyzer) => (await obtainIndex(corpusPath, fields, cacheDir, analyzer, hooks)).index);
      this.entries.set(key, entry);
      entry.catch(() => this.entries.delete(key));
      while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    } else {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }
}

export interface Bm25RunContext {
  settings: Bm25RunSettings;
  /** The dataset folder the run is re-run on (the sidecar's, or the one asked for). */
  dataset: string;
  ranker: Bm25Ranker;
  analyzer: Analyzer;
  docNumbers: Map<string, number>;
  /** The query vector the run searched for `qid` (before RM3), or undefined when the run's queries lack it. */
  query(qid: string): QueryVector | undefined;
  /** The query's text, when the run's queries have text (not a weights file). */
  text(qid: string): string | undefined;
}

const NUMBERS = new WeakMap<Bm25Index, Map<string, number>>();

/** Document id -> number of an index, built once per index. */
export function docNumbersOf(index: Bm25Index): Map<string, number> {
  let numbers = NUMBERS.get(index);
  if (!numbers) NUMBERS.set(index, (numbers = docNumbers(index)));
  return numbers;
}

/** Opens a BM25 run's settings over `dataset` (default: the sidecar's dataset). */
export async function openBm25Run(settings: Bm25RunSettings, indexes: LoadedIndexes, dataset = settings.dataset, hooks: RunHooks = {}): Promise<Bm25RunContext> {
  const corpus = corpusFile(dataset);
  if (statKind(corpus) !== 'file') {
    throw new InputError({ code: 'unreadable', message: 'no corpus (corpus.jsonl, collection.tsv, ...) in this dataset folder', file: dataset, hint: 'Give the dataset folder the run was made on (--dataset DIR).' });
  }
  const analyzer = await indexes.analyzer();
  const index = await indexes.get(corpus, settings.fields, settings.cacheDir, hooks);
  const numbers = docNumbersOf(index);
  const texts = settings.queries ? readQueryFile(settings.queries) : readDatasetQueries(datasetFiles(dataset, settings.split).queries);
  const weights = settings.queryWeights ? readQueryWeights(settings.queryWeights) : settings.queries ? readOwnWeights(settings.queries) : new Map<string, QueryVector>();
  return {
    settings,
    dataset,
    ranker: new Bm25Ranker(index, settings, settings.topK, settings.removeQuery),
    analyzer,
    docNumbers: numbers,
    query(qid) {
      const own = weights.get(qid);
      if (own) return own;
      if (settings.queryWeights) return undefined;
      const t = texts.get(qid);
      return t ? bagOfWords(analyzer.analyze(t.text)) : undefined;
    },
    text: (qid) => (settings.queryWeights ? undefined : texts.get(qid)?.text),
  };
}
