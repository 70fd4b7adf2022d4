import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readQueries } from '../formats/beir';
import { isInputError } from '../formats/errors';
import { readQrels } from '../formats/qrels';
import { readRunAsync } from '../formats/run';
import { annotationPaths, readAnnotations } from '../store/annotations';
import { runStem } from '../store/discovery';
import { CorpusIndex } from './corpusIndex';
import { AnalysisSession } from './session';

export interface LoadOptions {
  datasetDir: string;
  split: string;
  complete?: boolean;
  relevanceLevel?: number;
  /** trec_eval measures evaluated besides the views'. */
  measures?: readonly string[];
  /** Reuses a corpus index while its file is unchanged (it is the slow part: one pass over corpus.jsonl). */
  corpusCache?: Map<string, CorpusIndex>;
}

/** Opens a split for analysis: its qrels, queries, corpus offsets and the user's judgements so far. */
export function loadSession(o: LoadOptions): AnalysisSession {
  const corpusPath = join(o.datasetDir, 'corpus.jsonl');
  let corpus = cachedCorpus(corpusPath, o.corpusCache);
  if (!corpus) {
    corpus = CorpusIndex.build(corpusPath);
    o.corpusCache?.set(corpusPath, corpus);
  }
  return sessionWith(o, corpus);
}

function cachedCorpus(path: string, cache: Map<string, CorpusIndex> | undefined): CorpusIndex | undefined {
  const c = cache?.get(path);
  return c && c.stamp === CorpusIndex.stampOf(path) ? c : undefined;
}

function sessionWith(o: LoadOptions, corpus: CorpusIndex): AnalysisSession {
  const annotations = annotationPaths(o.datasetDir, o.split).tsv;
  return new AnalysisSession({
    datasetDir: o.datasetDir,
    datasetName: basename(o.datasetDir),
    split: o.split,
    qrels: readQrels(join(o.datasetDir, 'qrels', `${o.split}.tsv`)),
    // A bad queries line is skipped as everywhere (the store lists it in Problems).
    queries: readQueries(join(o.datasetDir, 'queries.jsonl'), { onBadLine: () => undefined }),
    corpus,
    judgements: existsSync(annotations) ? readAnnotations(annotations).judgements : [],
    complete: o.complete,
    relevanceLevel: o.relevanceLevel,
    measures: o.measures,
  });
}

/**
 * Adds run files to the session; a file that is not a valid run, or that ranks none of the split's judged
 * queries, is left out with the reason (a runs folder often holds runs of other splits). Files are read in
 * chunks that yield to the event loop, so the editor's thread stays responsive on large runs.
 */
export async function addRunFiles(session: AnalysisSession, files: readonly string[]): Promise<{ file: string; reason: string }[]> {
  const skipped: { file: string; reason: string }[] = [];
  for (const file of files) {
    if (session.hasRun(file)) continue;
    try {
      const run = await readRunAsync(file);
      if (!session.original.queryIds().some((q) => run.queryIndex(q) >= 0)) {
        skipped.push({ file, reason: `ranks no query judged in qrels/${session.split}.tsv` });
        continue;
      }
      session.addRun(file, uniqueLabel(file, session.runRefs().map((r) => r.label)), run);
    } catch (e) {
      skipped.push({ file, reason: isInputError(e) ? e.format() : (e as Error).message });
    }
  }
  return skipped;
}

/** A run's label, with its folder added when another run of the split already has the same stem. */
export function uniqueLabel(file: string, taken: readonly string[]): string {
  const label = runStem(file);
  return taken.includes(label) ? `${basename(dirname(file))}/${label}` : label;
}
