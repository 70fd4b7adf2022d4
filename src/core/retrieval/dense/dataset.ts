import { type CorpusDoc } from '../../formats/beir';
import { corpusFile, datasetFiles, forEachDatasetDoc, readDatasetQueries, readQueryFile } from '../../formats/datasetFolder';
import { InputError } from '../../formats/errors';
import { readQrels } from '../../formats/qrels';
import { Run } from '../../formats/run';
import { RunWriter, type RunConfig } from '../../formats/runWriter';
import { readOwnWeights } from '../bm25/queryWeights';

/** What neural retrievers read of a BEIR dataset folder. */

/** The text a transformer sees for a document: title and text joined by a space, as BEIR's models do. */
export function documentText(doc: Pick<CorpusDoc, 'title' | 'text'>): string {
  return (doc.title ? `${doc.title} ${doc.text}` : doc.text).trim();
}

/** The queries judged in qrels/<split>.tsv, in trec_eval order, with their text from queries.jsonl. */
export function judgedQueries(dataset: string, split: string, queriesFile?: string): { ids: string[]; texts: string[] } {
  if (queriesFile) {
    refuseWeights(queriesFile);
    const all = [...readQueryFile(queriesFile).values()];
    return { ids: all.map((q) => q.id), texts: all.map((q) => q.text) };
  }
  const { qrels: qrelsPath, queries: queriesPath } = datasetFiles(dataset, split);
  const ids = [...readQrels(qrelsPath).queryIds()];
  const all = readDatasetQueries(queriesPath);
  const texts = ids.map((id) => {
    const q = all.get(id);
    if (!q) {
      throw new InputError({
        code: 'unknown-id',
        message: `query ${JSON.stringify(id)} is judged in ${qrelsPath} but has no line in this file`,
        file: queriesPath,
        hint: 'Add the query, or use a qrels split whose queries are all present.',
      });
    }
    return q.text;
  });
  return { ids, texts };
}

/** A queries file whose lines carry BM25 term weights (saved what-if queries): a model reads text, so refused. */
function refuseWeights(path: string): void {
  const weighted = readOwnWeights(path);
  if (weighted.size === 0) return;
  throw new InputError({
    code: 'malformed',
    message: `${weighted.size} queries here give term weights ("weights"), which only BM25 uses: a neural model reads the text, so it would run the unweighted queries`,
    file: path,
    hint: 'Run this file with --retriever bm25, or save the what-if queries as text edits for a neural run.',
  });
}

/** Every document of corpus.jsonl (or only those in `only`), in file order. */
export async function readCorpusTexts(dataset: string, signal?: AbortSignal, only?: ReadonlySet<string>): Promise<{ ids: string[]; texts: string[] }> {
  const ids: string[] = [];
  const texts: string[] = [];
  await forEachDatasetDoc(
    corpusFile(dataset),
    (doc) => {
      if (only && !only.has(doc.id)) return;
      ids.push(doc.id);
      texts.push(documentText(doc));
    },
    signal,
  );
  return { ids, texts };
}

/** Writes a run (ranked in trec_eval order) and its `<out>.json` configuration atomically; nothing is left under `out` if writing fails. */
export function writeRun(run: Run, out: string, tmpOut?: string, config?: RunConfig, scoreFormat?: 'fixed6' | 'ranked'): number {
  const writer = new RunWriter(out, run.tag, tmpOut, config, scoreFormat);
  try {
    for (const qid of run.qids) {
      const r = run.ranking(qid);
      if (r) writer.writeRanking(qid, r.docs, r.scores);
    }
    writer.commit();
  } catch (e) {
    writer.abort();
    throw e;
  }
  return writer.lineCount;
}

/** A TREC tag part from a folder name: no whitespace. */
export function tagName(dir: string): string {
  const base = dir.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? 'model';
  return base.replace(/\s+/g, '_') || 'model';
}
