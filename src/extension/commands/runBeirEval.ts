import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { evaluate, formatTrecEval, type EvalResult } from '../../core/eval';
import { isInputError, type InputError } from '../../core/formats/errors';
import { readQrels } from '../../core/formats/qrels';
import { readRun } from '../../core/formats/run';
import type { Bm25RunRequest } from '../../core/retrieval/bm25/run';
import { FUSION_DEFAULTS, type FusionSpec } from '../../core/retrieval/fusion/run';
import type { NeuralJob } from '../../core/retrieval/neuralJob';
import { RunnerError, startBm25Run, startNeuralRun, type RunHandle } from '../../runner/client';
import { datasetAt, findDatasets, type DatasetFolder } from '../datasets';

type Retriever = 'bm25' | 'dense' | 'hybrid' | 'rerank' | 'file';

type Bm25Params = Pick<Bm25RunRequest, 'k1' | 'b' | 'fields'>;
const BM25_DEFAULTS: Bm25Params = { k1: 0.9, b: 0.4, fields: 'flat' };

/**
 * Optional command arguments, for keybindings, tasks and tests: each one given skips its quick pick.
 * `irWorkbench.runBeirEval` resolves to the figures shown (or undefined if the user backed out).
 */
export interface RunBeirEvalArgs {
  dataset?: string;
  split?: string;
  retriever?: Retriever;
  /** With retriever 'file': the run to evaluate. */
  runFile?: string;
  /** BM25 parameters (BM25 and hybrid); default k1 0.9, b 0.4, flat. */
  bm25?: Partial<Bm25Params>;
  /** Bi-encoder model folder (dense, hybrid); default: setting irWorkbench.models.dense. */
  model?: string;
  /** Cross-encoder model folder (rerank); default: setting irWorkbench.models.crossEncoder. */
  crossEncoder?: string;
  /** Run to re-rank (rerank). */
  firstStage?: string;
  /** Fusion of BM25 and dense (hybrid); default min-max + arithmetic mean. */
  fusion?: Partial<Pick<FusionSpec, 'method' | 'norm' | 'weights'>>;
}

export interface RunBeirEvalFigures {
  runFile: string;
  runId: string;
  numQ: number;
  mean: Record<string, number>;
}

interface EvalSettings {
  measures: string[];
  complete: boolean;
  relevanceLevel: number;
  runsFolder: string;
  denseModel: string;
  crossEncoder: string;
}

function settings(): EvalSettings {
  const c = vscode.workspace.getConfiguration('irWorkbench');
  return {
    measures: c.get<string[]>('evaluation.measures', ['ndcg_cut.10', 'recall.100']),
    complete: c.get<boolean>('evaluation.completeQueries', true),
    relevanceLevel: c.get<number>('evaluation.relevanceLevel', 1),
    runsFolder: c.get<string>('runs.folder', 'runs'),
    denseModel: c.get<string>('models.dense', ''),
    crossEncoder: c.get<string>('models.crossEncoder', ''),
  };
}

/**
 * "Run BEIR Eval": pick a dataset folder and split, then either run BM25 in the child process (cancellable,
 * with progress) or pick an existing TREC run file; evaluate it against the split's qrels as trec_eval does
 * and show the figures.
 */
export async function runBeirEval(
  context: vscode.ExtensionContext,
  output: vscode.OutputChannel,
  args: RunBeirEvalArgs = {},
): Promise<RunBeirEvalFigures | undefined> {
  const given = args.dataset ? datasetAt(args.dataset) : undefined;
  if (args.dataset && !given) {
    void vscode.window.showErrorMessage(`IR Workbench: ${args.dataset} is not a BEIR dataset folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).`);
    return;
  }
  const datasets = given ? [given] : await findDatasets();
  if (datasets.length === 0) {
    void vscode.window.showWarningMessage(
      'IR Workbench: no BEIR dataset folder in this workspace. A dataset folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv.',
    );
    return;
  }
  const dataset = await pickDataset(datasets);
  if (!dataset) return;
  const split =
    args.split ??
    (dataset.splits.length === 1
      ? dataset.splits[0]
      : await vscode.window.showQuickPick(dataset.splits, { title: `Split of ${dataset.name}`, placeHolder: 'qrels/<split>.tsv' }));
  if (!split) return;
  const retriever = args.retriever ?? (await pickRetriever());
  if (!retriever) return;
  // Picked by hand: BM25's parameters too (callers passing arguments get Anserini's defaults or their own).
  if (retriever === 'bm25' && !args.retriever && !args.bm25) {
    const params = await pickBm25Params();
    if (!params) return;
    args = { ...args, bm25: params };
  }

  let runPath: string | undefined = args.runFile;
  if (runPath) {
    // given by the caller
  } else if (retriever === 'file') {
    runPath = await pickFile(`TREC run to evaluate on ${dataset.name} (${split})`, join(dataset.path, settings().runsFolder));
  } else {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(
        'IR Workbench: this workspace is not trusted, so no retrieval process is started and no model is loaded. Trust the workspace to run retrieval, or evaluate an existing run file.',
      );
      return;
    }
    runPath = await startRetrieval(context, dataset, split, retriever, args);
  }
  if (!runPath) return;
  const figures = showEvaluation(output, dataset, split, runPath);
  // The results panel puts the run beside the dataset's other runs, with significance against a baseline.
  if (figures) void vscode.commands.executeCommand('irWorkbench.showResults', { dataset: dataset.path, split, focus: runPath });
  return figures;
}



async function pickDataset(datasets: DatasetFolder[]): Promise<DatasetFolder | undefined> {
  if (datasets.length === 1) return datasets[0];
  const picked = await vscode.window.showQuickPick(
    datasets.map((d) => ({ label: d.name, description: d.splits.join(', '), detail: d.path, dataset: d })),
    { title: 'Run BEIR Eval: dataset', placeHolder: 'BEIR dataset folder' },
  );
  return picked?.dataset;
}

async function pickRetriever(): Promise<Retriever | undefined> {
  const items: (vscode.QuickPickItem & { id: Retriever })[] = [
    { id: 'bm25', label: 'BM25', description: 'Lucene-style, k1 0.9, b 0.4, flat index (as Anserini on BEIR)' },
    { id: 'dense', label: 'Dense', description: 'bi-encoder ONNX model (irWorkbench.models.dense), exact top-k' },
    { id: 'hybrid', label: 'Hybrid', description: 'BM25 + dense, fused (normalization and combination as in the OpenSearch study)' },
    { id: 'rerank', label: 'Re-rank', description: "cross-encoder ONNX model (irWorkbench.models.crossEncoder) over a run's top 100" },
    { id: 'file', label: 'Evaluate an existing run file…', description: 'a TREC run from any engine (Pyserini, Anserini, OpenSearch, …)' },
  ];
  return (await vscode.window.showQuickPick(items, { title: 'Run BEIR Eval: retriever' }))?.id;
}

async function pickBm25Params(): Promise<Bm25Params | undefined> {
  const items: (vscode.QuickPickItem & { params?: Bm25Params })[] = [
    { label: 'k1 0.9, b 0.4, flat', description: "Anserini's BEIR defaults: title and text as one field", params: BM25_DEFAULTS },
    { label: 'k1 0.9, b 0.4, multifield', description: 'title and text as separate fields, scores summed', params: { ...BM25_DEFAULTS, fields: 'multifield' } },
    { label: 'Custom k1 and b…', description: 'flat index' },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'BM25 parameters' });
  if (!picked) return undefined;
  if (picked.params) return picked.params;
  const k1 = await numberBox('BM25 k1 (term-frequency saturation; Lucene and Anserini use 0.9 or 1.2)', BM25_DEFAULTS.k1, (x) => x >= 0);
  const b = k1 === undefined ? undefined : await numberBox('BM25 b (length normalization, 0 to 1)', BM25_DEFAULTS.b, (x) => x >= 0 && x <= 1);
  return k1 === undefined || b === undefined ? undefined : { k1, b, fields: 'flat' };
}

async function numberBox(prompt: string, value: number, ok: (x: number) => boolean): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    prompt,
    value: String(value),
    validateInput: (t) => (t.trim() !== '' && Number.isFinite(Number(t)) && ok(Number(t)) ? undefined : 'Enter a number in range'),
  });
  return text === undefined ? undefined : Number(text);
}

async function pickFile(title: string, folder: string): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title,
    defaultUri: vscode.Uri.file(folder),
    canSelectMany: false,
    filters: { 'TREC runs': ['trec', 'run', 'txt', 'tsv'], 'All files': ['*'] },
  });
  return picked?.[0]?.fsPath;
}

/** A model folder: the argument, else the setting, else asked for (and offered to be saved in the setting). */
async function modelFolder(given: string | undefined, setting: 'dense' | 'crossEncoder', what: string): Promise<string | undefined> {
  const configured = given ?? settings()[setting === 'dense' ? 'denseModel' : 'crossEncoder'];
  if (configured) return configured;
  const picked = await vscode.window.showOpenDialog({
    title: `${what} model folder (model.onnx with tokenizer.json or vocab.txt)`,
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
  });
  const folder = picked?.[0]?.fsPath;
  if (folder) {
    await vscode.workspace.getConfiguration('irWorkbench').update(`models.${setting}`, folder, vscode.ConfigurationTarget.Workspace);
  }
  return folder;
}

/** Hybrid fusion: the study's best-known choices first; the argument skips the pick. */
async function pickFusion(given: RunBeirEvalArgs['fusion']): Promise<FusionSpec | undefined> {
  if (given) return { ...FUSION_DEFAULTS, ...given };
  const items: (vscode.QuickPickItem & { spec: Partial<FusionSpec> })[] = [
    { label: 'min-max + arithmetic mean', description: 'the OpenSearch default', spec: { norm: 'min-max', method: 'arithmetic' } },
    { label: 'L2 + arithmetic mean', description: "the study's L2 normalization", spec: { norm: 'l2', method: 'arithmetic' } },
    { label: 'RRF (k = 60)', description: 'reciprocal rank fusion, ranks only', spec: { norm: 'none', method: 'rrf' } },
    { label: 'z-score + arithmetic mean', spec: { norm: 'z-score', method: 'arithmetic' } },
    { label: 'min-max + harmonic mean', spec: { norm: 'min-max', method: 'harmonic' } },
    { label: 'min-max + CombMNZ', spec: { norm: 'min-max', method: 'combmnz' } },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Hybrid: fusion of BM25 and dense' });
  return picked ? { ...FUSION_DEFAULTS, ...picked.spec } : undefined;
}

function outPath(dataset: DatasetFolder, split: string, name: string): string {
  const runsDir = join(dataset.path, settings().runsFolder);
  mkdirSync(runsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  return join(runsDir, `${name}.${split}.${stamp}.trec`);
}

/** Builds the job for the chosen retriever (asking for what is missing), runs it, returns the run file. */
async function startRetrieval(
  context: vscode.ExtensionContext,
  dataset: DatasetFolder,
  split: string,
  retriever: Exclude<Retriever, 'file'>,
  args: RunBeirEvalArgs,
): Promise<string | undefined> {
  const cacheDir = join(context.globalStorageUri.fsPath, 'cache');
  mkdirSync(cacheDir, { recursive: true });
  const runnerPath = join(context.extensionPath, 'dist', 'runner.js');
  const bm25 = { ...BM25_DEFAULTS, ...args.bm25, rm3: null, queryWeights: null };
  const base = { dataset: dataset.path, split };
  let title: string;
  let start: (onProgress: (message: string) => void) => RunHandle<{ out: string }>;
  if (retriever === 'bm25') {
    const out = outPath(dataset, split, `bm25-${bm25.fields}`);
    title = `BM25 on ${dataset.name} (${split})`;
    start = (report) =>
      startBm25Run({ ...base, ...bm25, topK: 1000, removeQuery: true, cacheDir, out }, { runnerPath, onProgress: (p) => report(describe(p)) });
  } else {
    let job: NeuralJob;
    if (retriever === 'rerank') {
      const model = await modelFolder(args.crossEncoder, 'crossEncoder', 'Cross-encoder');
      const firstStage = model && (args.firstStage ?? (await pickFile('First-stage run to re-rank', join(dataset.path, settings().runsFolder))));
      if (!model || !firstStage) return undefined;
      job = { job: 'rerank', request: { ...base, model, firstStage, depth: 100, batchSize: 32, threads: null, out: outPath(dataset, split, 'rerank') } };
    } else {
      const model = await modelFolder(args.model, 'dense', 'Bi-encoder');
      if (!model) return undefined;
      const dense = { model, similarity: null, batchSize: 32, threads: null };
      if (retriever === 'dense') {
        job = { job: 'dense', request: { ...base, ...dense, topK: 1000, removeQuery: true, cacheDir, out: outPath(dataset, split, 'dense') } };
      } else {
        const fusion = await pickFusion(args.fusion);
        if (!fusion) return undefined;
        job = {
          job: 'hybrid',
          request: { ...base, bm25, dense, bm25Depth: 1000, denseDepth: 1000, fusion, removeQuery: true, cacheDir, out: outPath(dataset, split, 'hybrid') },
        };
      }
    }
    title = `${retriever === 'rerank' ? 'Re-ranking' : retriever === 'dense' ? 'Dense retrieval' : 'Hybrid retrieval'} on ${dataset.name} (${split})`;
    start = (report) => startNeuralRun(job, { runnerPath, onProgress: (p) => report(describe(p)) });
  }
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const handle = start((message) => progress.report({ message }));
    token.onCancellationRequested(() => handle.cancel());
    try {
      return (await handle.result).out;
    } catch (e) {
      if (e instanceof RunnerError && e.code === 'cancelled') {
        void vscode.window.showInformationMessage(`IR Workbench: ${title} cancelled; no run file was written.`);
        return undefined;
      }
      reportError(e);
      return undefined;
    }
  });
}

/** A progress message for any runner job: phase, counts, and for hybrid which retriever is working. */
function describe(p: { phase: string; done: number; total?: number; retriever?: string }): string {
  const of = p.total ? ` of ${p.total.toLocaleString()}` : '';
  const who = p.retriever ? `${p.retriever}: ` : '';
  const what: Record<string, string> = {
    hash: 'checking the corpus…',
    'load-index': 'loading the cached index…',
    index: `indexing: ${p.done.toLocaleString()}${of} documents`,
    'save-index': 'saving the index…',
    search: `searching: ${p.done.toLocaleString()}${of} queries`,
    'load-embeddings': 'loading cached embeddings…',
    'encode-corpus': `encoding: ${p.done.toLocaleString()}${of} documents`,
    'save-embeddings': 'saving embeddings…',
    'encode-queries': `encoding queries: ${p.done.toLocaleString()}${of}`,
    read: 'reading the first-stage run…',
    rerank: `re-ranking: ${p.done.toLocaleString()}${of}`,
    fuse: 'fusing…',
  };
  return who + (what[p.phase] ?? `${p.phase}: ${p.done.toLocaleString()}${of}`);
}

function showEvaluation(output: vscode.OutputChannel, dataset: DatasetFolder, split: string, runPath: string): RunBeirEvalFigures | undefined {
  const s = settings();
  let result: EvalResult;
  try {
    const qrels = readQrels(join(dataset.path, 'qrels', `${split}.tsv`));
    result = evaluate(qrels, readRun(runPath), { measures: s.measures, complete: s.complete, relevanceLevel: s.relevanceLevel });
  } catch (e) {
    reportError(e);
    return undefined;
  }
  if (result.numQ === 0) {
    void vscode.window.showErrorMessage(`IR Workbench: no query of ${runPath} is judged in ${dataset.name}/qrels/${split}.tsv: check the run's query ids.`);
    return undefined;
  }
  output.appendLine(`== ${runPath}`);
  output.appendLine(`   ${dataset.name} (${split}), ${result.numQ} queries${s.complete ? ', trec_eval -c' : ''}`);
  output.append(formatTrecEval(result, false));
  output.show(true);
  // The measures in the order the setting lists them (trec_eval prints them in its own table order).
  const headline = s.measures
    .flatMap((spec) => result.columns.filter((c) => c.family.name === spec.split('.')[0]).map((c) => c.name))
    .filter((name, i, all) => all.indexOf(name) === i)
    .slice(0, 4)
    .map((name) => `${name} ${result.mean.get(name)!.toFixed(4)}`)
    .join(' · ');
  void vscode.window.showInformationMessage(`IR Workbench: ${result.runId} on ${dataset.name} (${split}): ${headline}`);
  return { runFile: runPath, runId: result.runId, numQ: result.numQ, mean: Object.fromEntries(result.mean) };
}

function reportError(e: unknown): void {
  if (isInputError(e)) {
    const err = e as InputError;
    void vscode.window.showErrorMessage(`IR Workbench: ${err.format()}`, ...(err.file ? ['Open File'] : [])).then(async (choice) => {
      if (choice !== 'Open File' || !err.file) return;
      const doc = await vscode.window.showTextDocument(vscode.Uri.file(err.file));
      if (err.line) {
        const pos = new vscode.Position(err.line - 1, 0);
        doc.selection = new vscode.Selection(pos, pos);
        doc.revealRange(new vscode.Range(pos, pos));
      }
    });
    return;
  }
  void vscode.window.showErrorMessage(`IR Workbench: ${(e as Error).message}`);
}
