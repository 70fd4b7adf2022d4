import { resolve } from 'node:path';
import { InputError } from '../formats/errors';
import { readRun, type Run } from '../formats/run';
import { checkRun } from '../provenance/check';
import { readSidecar, sidecarPath, type ModelRecord, type Sidecar } from '../provenance/record';
import { explainBm25, type Bm25Explanation } from './bm25/explain';
import { bm25Settings, openBm25Run, type LoadedIndexes } from './bm25/runContext';
import { explainFusion, type FusionExplanation } from './fusion/explain';
import type { FusionSpec } from './fusion/run';

/**
 * "Why is this document ranked here": the explanation of one (query, document) of a run, by what made the run
 * (its sidecar): a BM25 run's score broken down term by term (bm25/explain.ts), a fused run's per input
 * (fusion/explain.ts), and for a neural run the score with the model and every setting that produced it. A run
 * with no recorded settings (imported) gets its rank and score only, saying why. Where the recomputed score is
 * not the run file's, or the run's data changed since (provenance/check.ts), warnings say so.
 */
export interface ModelExplanation {
  retriever: 'dense' | 'rerank' | 'hybrid';
  queryId: string;
  docId: string;
  /** The model folder with its hashes and settings, when the run recorded them (runs made since it did). */
  model: ModelRecord | null;
  /** The run's settings as its sidecar records them. */
  settings: Record<string, unknown>;
  note: string;
}

export interface NoExplanation {
  retriever: string | null;
  queryId: string;
  docId: string;
  note: string;
}

export type ExplanationBody = Bm25Explanation | FusionExplanation | ModelExplanation | NoExplanation;

export type Explanation = ExplanationBody & {
  run: {
    path: string;
    tag: string;
    /** Where the run file puts the document (trec_eval order), and its score there; null when absent. */
    rank: number | null;
    score: number | null;
  };
  /** The recomputation agrees with the run file (null when nothing was recomputed). */
  reproduced: boolean | null;
  warnings: string[];
};

export interface ExplainOptions {
  indexes: LoadedIndexes;
  /** The dataset folder to explain on (default: the one the sidecar names). */
  dataset?: string;
  /** The qrels the run is evaluated on, for provenance warnings. */
  qrels?: string;
  /** The run, when the caller has it read already. */
  run?: Run;
}

export async function explain(runPath: string, queryId: string, docId: string, opts: ExplainOptions): Promise<Explanation> {
  const path = resolve(runPath);
  const run = opts.run ?? readRun(path);
  const ranking = run.ranking(queryId);
  const at = ranking ? ranking.docs.indexOf(docId) : -1;
  const place = { path, tag: run.tag, rank: at < 0 ? null : at + 1, score: at < 0 ? null : ranking!.scores[at] };
  const sidecar = readSidecar(path);
  const warnings: string[] = [];
  const dataset = opts.dataset ?? (typeof sidecar?.settings.dataset === 'string' ? sidecar.settings.dataset : null);
  if (dataset && opts.qrels !== undefined) {
    for (const w of await checkRun(path, { qrels: opts.qrels, dataset }, sidecar)) warnings.push(w.message);
  }
  const body = await explainBody(path, sidecar, queryId, docId, dataset, opts);
  const printed = 'printed' in body ? body.printed : undefined;
  let reproduced: boolean | null = null;
  if (printed !== undefined) {
    reproduced = printed === null ? place.score === null : place.score !== null && Number(printed) === place.score;
    if (!reproduced) {
      warnings.push(
        `the run file has ${place.score === null ? 'no line for this document' : `score ${place.score} at rank ${place.rank}`}, but its settings give ` +
          `${printed === null ? 'no rank' : `${printed} at rank ${'rank' in body ? body.rank : '?'}`} on the current data: the corpus, the queries or the settings changed since the run was made`,
      );
    }
  }
  return { ...body, run: place, reproduced, warnings } as Explanation;
}

async function explainBody(path: string, sidecar: Sidecar | null, queryId: string, docId: string, dataset: string | null, opts: ExplainOptions): Promise<ExplanationBody> {
  const retriever = typeof sidecar?.settings.retriever === 'string' ? sidecar.settings.retriever : null;
  const none = (note: string): NoExplanation => ({ retriever, queryId, docId, note });
  if (!sidecar) return none(`no ${sidecarPath(path)} records how this run was made (an imported run): only its rank and score are known`);
  const settings = sidecar.settings;
  switch (retriever) {
    case 'bm25': {
      const s = bm25Settings(settings, sidecarPath(path));
      const ctx = await openBm25Run(s, opts.indexes, dataset ?? s.dataset);
      const query = ctx.query(queryId);
      if (!query) {
        throw new InputError({
          code: 'unknown-id',
          message: `query ${JSON.stringify(queryId)} is not among the run's queries (${s.queryWeights ?? s.queries ?? `${ctx.dataset} split ${s.split}`})`,
          file: path,
          hint: 'Name a query the run answers.',
        });
      }
      if (!ctx.docNumbers.has(docId)) {
        throw new InputError({ code: 'unknown-id', message: `document ${JSON.stringify(docId)} is not in the corpus of ${ctx.dataset}`, file: path, hint: 'Name a document of the dataset.' });
      }
      return explainBm25(ctx.ranker, ctx.docNumbers, queryId, query, docId);
    }
    case 'fuse': {
      const runs = settings.runs as string[];
      const spec = settings.fusion as FusionSpec;
      return explainFusion(runs.map((r) => readRun(r)), runs, spec, queryId, docId);
    }
    case 'dense':
    case 'rerank':
    case 'hybrid':
      return {
        retriever,
        queryId,
        docId,
        model: sidecar.provenance?.inputs.model ?? null,
        settings,
        note:
          retriever === 'hybrid'
            ? 'a hybrid run fuses BM25 with dense scores it does not keep: to break a score down, make the BM25 and dense runs and fuse them with irw fuse'
            : `the ${retriever === 'dense' ? 'similarity of the query and document embeddings' : "cross-encoder's relevance logit"}: a model's score has no per-term breakdown`,
      };
    default: {
      const imported = sidecar.provenance?.imported;
      return none(
        imported
          ? `imported from ${imported.from.path} (sha256 ${imported.from.sha256.slice(0, 12)}) on ${imported.at}: how it was made is not recorded, so only its rank and score are known`
          : `the sidecar names no retriever this product knows (${JSON.stringify(retriever)})`,
      );
    }
  }
}
