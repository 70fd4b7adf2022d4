import { resolve } from 'node:path';
import { datasetFiles, readQueryFile, splitInputs } from '../formats/datasetFolder';
import { writeEditedQueries, type EditedQuery } from '../formats/editedQueries';
import { InputError } from '../formats/errors';
import { readQrels, type Qrels } from '../formats/qrels';
import type { Run } from '../formats/run';
import { checkRun } from '../provenance/check';
import { describeQrels, readSidecar, sidecarPath } from '../provenance/record';
import { explainBm25, type TermContribution } from '../retrieval/bm25/explain';
import { Bm25Ranker } from '../retrieval/bm25/ranker';
import { bm25Settings, docNumbersOf, LoadedIndexes, openBm25Run, type Bm25RunContext } from '../retrieval/bm25/runContext';
import { bagOfWords } from '../retrieval/bm25/search';
import { editedQuery, whatIf, type QueryEdit, type WhatIfResult } from '../retrieval/bm25/whatIf';
import { explain, type Explanation } from '../retrieval/explain';
import { BM25_DEFAULT } from '../tune/bm25Grid';
import type { ResultsProvenance } from '../../protocol/webview';

/**
 * The engine's answers for explanations, what-if queries and provenance (worker.ts dispatches to these): the
 * index of a dataset is built once in this worker and kept (two at most), and the split's own state (its
 * effective qrels, its runs as read) comes from the split model through `SplitAccess`.
 */
export interface SplitAccess {
  /** The split's qrels with the user's judgements merged in: what the views' figures use. */
  qrels(): Qrels;
  /** A run of the split by key (its file path), as the split read it; undefined when the split lacks it. */
  run(key: string): Run | undefined;
  relevanceLevel: number;
  /** The qrels file's judgements as the split read them (the original figures' qrels), and its sha256 then when known. */
  qrelsAsRead(path: string): { qrels: Qrels; sha256: string | undefined };
}

/** The blind explanation the Judge sidebar shows: the query terms the document matches under BM25's defaults, no run. */
export interface PairExplanation {
  queryId: string;
  docId: string;
  k1: number;
  b: number;
  terms: TermContribution[];
  unknownTerms: string[];
  note: string;
}

/** The split key's parts (splitKey in splits.ts joins them with a tab). */
function splitOf(key: string): { datasetDir: string; split: string } {
  const at = key.lastIndexOf('\t');
  return { datasetDir: key.slice(0, at), split: key.slice(at + 1) };
}

const WHAT_IF_MEASURES = ['ndcg_cut.10', 'recall.100', 'recip_rank'];

export class ExplainRequests {
  private readonly indexes = new LoadedIndexes(2);
  /** What-if edits per (split, run, query), kept for saving them as a queries file. */
  private readonly edits = new Map<string, Map<string, QueryEdit>>();

  constructor(private readonly access: (datasetDir: string, split: string) => SplitAccess | undefined) {}

  private need(key: string): { datasetDir: string; split: string; access: SplitAccess } {
    const { datasetDir, split } = splitOf(key);
    const access = this.access(datasetDir, split);
    if (!access) throw new Error(`${datasetDir} (${split}) is not open: open its Results or Diff first`);
    return { datasetDir, split, access };
  }

  /** Why `run` ranks `docId` where it does for `queryId` (with provenance warnings against the split's qrels). */
  async explain(a: { key: string; run: string; queryId: string; docId: string }): Promise<Explanation> {
    const { datasetDir, split, access } = this.need(a.key);
    const qrels = splitInputs(datasetDir, split).qrelsPath;
    return explain(a.run, a.queryId, a.docId, { indexes: this.indexes, dataset: datasetDir, ...(qrels ? { qrels } : {}), ...(access.run(a.run) ? { run: access.run(a.run) } : {}) });
  }

  /**
   * The Judge sidebar's explanation of a pair: BM25 with Anserini's defaults over the dataset, so it says
   * which query terms the document holds and how much each weighs, and nothing of any run (judging stays blind).
   */
  async explainPair(a: { key: string; queryId: string; docId: string }): Promise<PairExplanation> {
    const { datasetDir, split } = splitOf(a.key);
    const inputs = splitInputs(datasetDir, split);
    const text = inputs.readQueries().get(a.queryId)?.text;
    if (text === undefined) throw new InputError({ code: 'unknown-id', message: `query ${JSON.stringify(a.queryId)} is not in this file`, file: inputs.queriesPath });
    const analyzer = await this.indexes.analyzer();
    const index = await this.indexes.get(inputs.corpusPath, 'flat', null);
    const ranker = new Bm25Ranker(index, BM25_DEFAULT, 1, false);
    const numbers = docNumbersOf(index);
    if (!numbers.has(a.docId)) throw new InputError({ code: 'unknown-id', message: `document ${JSON.stringify(a.docId)} is not in this corpus`, file: inputs.corpusPath });
    const e = explainBm25(ranker, numbers, a.queryId, bagOfWords(analyzer.analyze(text)), a.docId);
    return {
      queryId: a.queryId,
      docId: a.docId,
      k1: e.k1,
      b: e.b,
      terms: e.terms,
      unknownTerms: e.unknownTerms,
      note: `BM25 with k1 ${e.k1}, b ${e.b} on this dataset: which query terms the document holds and what each would weigh; no run's rank or score`,
    };
  }

  private async context(datasetDir: string, run: string): Promise<Bm25RunContext> {
    const sidecar = readSidecar(run);
    if (sidecar?.settings.retriever !== 'bm25') {
      throw new InputError({
        code: 'malformed',
        message: sidecar ? `a what-if query re-runs a BM25 run; this one is ${String(sidecar.settings.retriever ?? 'of unknown kind')}` : 'a what-if query re-runs a run with its own settings, and this run records none (no .json sidecar)',
        file: run,
        hint: 'Pick a BM25 run made by IR Workbench as the run to edit.',
      });
    }
    return openBm25Run(bm25Settings(sidecar.settings, sidecarPath(run)), this.indexes, datasetDir);
  }

  /** Re-runs one query of BM25 run `run` with `edit`, against the split's current qrels, beside the `compare` runs. */
  async whatIf(a: { key: string; run: string; queryId: string; edit: QueryEdit; compare: string[] }): Promise<WhatIfResult> {
    const { datasetDir, access } = this.need(a.key);
    const ctx = await this.context(datasetDir, a.run);
    const compare = a.compare.map((k) => {
      const run = access.run(k);
      if (!run) throw new Error(`no run ${k} in this split`);
      return { label: k, run };
    });
    const result = whatIf(ctx, a.queryId, a.edit, access.qrels(), WHAT_IF_MEASURES, compare, { relevanceLevel: access.relevanceLevel, show: 20 });
    const id = `${a.key}\t${a.run}`;
    if (!this.edits.has(id)) this.edits.set(id, new Map());
    this.edits.get(id)!.set(a.queryId, a.edit);
    return result;
  }

  /** The what-if edits made to `run` so far, as a queries file of the whole split (what `irw run --queries` runs). */
  async saveWhatIf(a: { key: string; run: string; out: string }): Promise<{ path: string; queries: number; edited: number }> {
    const { datasetDir, split } = this.need(a.key);
    const edits = this.edits.get(`${a.key}\t${a.run}`);
    if (!edits || edits.size === 0) throw new Error('no what-if edit of this run to save');
    const ctx = await this.context(datasetDir, a.run);
    // The queries the run answered: its queries file's, or the split's judged ones.
    const qids = ctx.settings.queries ? [...readQueryFile(ctx.settings.queries).keys()] : readQrels(datasetFiles(datasetDir, split).qrels).queryIds();
    const saved = new Map<string, EditedQuery>();
    for (const qid of qids) {
      const base = ctx.query(qid);
      const edit = edits.get(qid);
      if (!base) continue;
      // A text edit stays text; weighted terms are saved as the vector searched (as are a weights run's own queries).
      if (edit?.terms || (!edit && ctx.settings.queryWeights)) saved.set(qid, { weights: edit ? editedQuery(ctx.analyzer, base, edit).query : base });
      else if (edit) saved.set(qid, edit.text !== undefined ? { text: edit.text } : {});
    }
    const path = resolve(a.out);
    const n = writeEditedQueries(path, qids.map((id) => ({ id, text: ctx.text(id) ?? '' })), saved);
    return { path, queries: n, edited: edits.size };
  }

  /**
   * What the Results panel's figures were computed on: the qrels the split's figures used, and the file as it is
   * now when it has changed since (the figures follow once the workspace index reads it again); warnings for runs
   * made on other data (their sidecars' provenance).
   */
  async resultsProvenance(key: string, runs: readonly string[]): Promise<ResultsProvenance> {
    const { datasetDir, split, access } = this.need(key);
    const qrelsPath = splitInputs(datasetDir, split).qrelsPath;
    if (!qrelsPath) return { qrels: null, warnings: [] };
    const now = await describeQrels(qrelsPath);
    const read = access.qrelsAsRead(qrelsPath);
    const used = { judgements: read.qrels.size, queries: read.qrels.queryIds().length };
    // Without the hash as read (never recorded), the counts are all there is to tell a change by.
    const changed = read.sha256 ? read.sha256 !== now.sha256 : used.judgements !== now.judgements || used.queries !== now.queries;
    const warnings = (await Promise.all(runs.map((r) => checkRun(r, { qrels: qrelsPath, dataset: datasetDir })))).flat().map((w) => ({ run: w.run, message: w.message }));
    return {
      qrels: { path: now.path, sha256: read.sha256 ?? now.sha256, ...used, ...(changed ? { now: { sha256: now.sha256, judgements: now.judgements, queries: now.queries } } : {}) },
      warnings,
    };
  }
}
