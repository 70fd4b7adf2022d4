import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import { displayName } from '../../core/eval/displayName';
import { InputError, isInputError } from '../../core/formats/errors';
import type { Bm25RunRequest } from '../../core/retrieval/bm25/run';
import { RM3_DEFAULTS, type Rm3Params } from '../../core/retrieval/bm25/rm3';
import { FUSION_DEFAULTS, type FusionSpec } from '../../core/retrieval/fusion/run';
import { readModelFolder } from '../../core/retrieval/dense/modelFolder';
import type { NeuralJob } from '../../core/retrieval/neuralJob';
import { overfitWarning, renderTune } from '../../core/tune/report';
import { TUNE_DEFAULTS } from '../../core/tune/defaults';
import type { TuneReport } from '../../core/tune/tune';
import { RunnerError, startBm25Run, startNeuralRun, type RunHandle } from '../../runner/client';
import type { AnalysisWorkbench } from '../analysis/workbench';
import { datasetAt, findDatasets, type DatasetFolder } from '../datasets';
import { BACK, inputStep, pickStep, runSteps } from '../ui/multiStepInput';
import { openLocation } from '../ui/openLocation';

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
  /** RM3 pseudo-relevance feedback on BM25 (flat index), as irw run --rm3; true: Anserini's defaults (10 terms, 10 documents, 0.5). */
  rm3?: Partial<Rm3Params> | true;
  /** Hits per query (BM25, dense; hybrid: of each retriever), as irw run --top-k; default 1000. */
  topK?: number;
  /** Bi-encoder model folder (dense, hybrid); default: setting irWorkbench.models.dense. */
  model?: string;
  /** Cross-encoder model folder (rerank); default: setting irWorkbench.models.crossEncoder. */
  crossEncoder?: string;
  /** Run to re-rank (rerank). */
  firstStage?: string;
  /** Fusion of BM25 and dense (hybrid); default min-max + arithmetic mean. */
  fusion?: Partial<Pick<FusionSpec, 'method' | 'norm' | 'weights'>>;
  /** BM25: tune k1 and b by cross-validation (TUNE_GRID) instead of running one setting. */
  tune?: boolean;
}

/** The Run BEIR Eval tuning step's grid: the k1 and b ranges of the bench:tune tables. */
const TUNE_GRID = { k1: [0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5], b: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1], rm3: null };
const COMMAND = 'IR Workbench: Run BEIR Eval';

export interface RunBeirEvalFigures {
  runFile: string;
  runId: string;
  numQ: number;
  /** By trec_eval value name, on the original qrels. */
  mean: Record<string, number>;
  /** The same with the user's judgements merged in; null when there are none. */
  annotated: Record<string, number> | null;
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
  wb: AnalysisWorkbench,
  output: vscode.OutputChannel,
  args: RunBeirEvalArgs = {},
): Promise<RunBeirEvalFigures | undefined> {
  const given = args.dataset ? datasetAt(args.dataset) : undefined;
  if (args.dataset && !given) {
    void vscode.window.showErrorMessage(`IR Workbench: ${args.dataset} is not a dataset folder with a judged split (BEIR: corpus.jsonl, queries.jsonl, qrels/<split>.tsv; MS MARCO/TREC: collection.tsv, queries.<split>.tsv, qrels.<split>.tsv).`);
    return;
  }
  const datasets = given ? [given] : await findDatasets();
  if (datasets.length === 0) {
    void vscode.window.showWarningMessage(
      'IR Workbench: no dataset folder in this workspace. A dataset folder holds corpus.jsonl, queries.jsonl and qrels/<split>.tsv (BEIR), or collection.tsv, queries.<split>.tsv and qrels.<split>.tsv (MS MARCO/TREC).',
    );
    return;
  }
  const choice = await chooseRun(datasets, args);
  if (!choice) return;
  const { dataset, split, retriever } = choice;
  args = { ...args, bm25: choice.bm25 ?? args.bm25, rm3: choice.rm3 ?? args.rm3, topK: choice.topK ?? args.topK, fusion: choice.fusion ?? args.fusion, tune: choice.tune ?? args.tune };

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
    runPath = await startRetrieval(context, output, dataset, split, retriever, args);
  }
  if (!runPath) return;
  const figures = await showEvaluation(wb, output, dataset, split, runPath);
  // The results panel puts the run beside the dataset's other runs, with significance against a baseline.
  if (figures) void vscode.commands.executeCommand('irWorkbench.showResults', { dataset: dataset.path, split, focus: runPath });
  return figures;
}



type Step = 'dataset' | 'split' | 'retriever' | 'bm25' | 'k1' | 'b' | 'fbTerms' | 'fbDocs' | 'originalQueryWeight' | 'fusion' | 'topK';

interface Choice {
  dataset: DatasetFolder;
  split: string;
  retriever: Retriever;
  /** Picked in the flow (BM25 by hand): BM25's parameters, and RM3's (null: none). */
  bm25?: Bm25Params;
  rm3?: Rm3Params | null;
  /** Picked in the flow: hits per query. */
  topK?: number;
  /** Picked in the flow (hybrid): the fusion. */
  fusion?: FusionSpec;
  /** Picked in the flow (BM25): tune k1 and b. */
  tune?: boolean;
}

const RETRIEVERS: (vscode.QuickPickItem & { id: Retriever })[] = [
  { id: 'bm25', label: 'BM25', description: 'Lucene-style, k1 0.9, b 0.4, flat index (as Anserini on BEIR)' },
  { id: 'dense', label: 'Dense', description: 'bi-encoder ONNX model (irWorkbench.models.dense), exact top-k' },
  { id: 'hybrid', label: 'Hybrid', description: 'BM25 + dense, fused (normalization and combination as in the OpenSearch study)' },
  { id: 'rerank', label: 'Re-rank', description: "cross-encoder ONNX model (irWorkbench.models.crossEncoder) over a run's top 100" },
  { id: 'file', label: 'Evaluate an existing run file…', description: 'a TREC run from any engine (Pyserini, Anserini, OpenSearch, …)' },
];

/** BM25's parameters: a preset, or asked (`custom`: k1 and b, or RM3's three). */
const BM25_CHOICES: (vscode.QuickPickItem & { params?: Bm25Params; rm3?: Rm3Params; custom?: 'bm25' | 'rm3'; tune?: boolean })[] = [
  { label: 'k1 0.9, b 0.4, flat', description: "Anserini's BEIR defaults: title and text as one field", params: BM25_DEFAULTS },
  { label: 'k1 0.9, b 0.4, multifield', description: 'title and text as separate fields, scores summed', params: { ...BM25_DEFAULTS, fields: 'multifield' } },
  { label: 'k1 0.9, b 0.4, flat + RM3', description: "pseudo-relevance feedback, Anserini's defaults: 10 terms from the top 10 documents, original query weight 0.5", params: BM25_DEFAULTS, rm3: RM3_DEFAULTS },
  { label: 'Custom k1 and b…', description: 'flat index', custom: 'bm25' },
  { label: 'Custom RM3…', description: 'k1 0.9, b 0.4, flat; feedback terms, documents and original query weight', params: BM25_DEFAULTS, custom: 'rm3' },
  {
    label: 'Tune k1 and b (5-fold cross-validation)',
    description: 'k1 0.5–1.5, b 0.2–1.0 on nDCG@10',
    detail: 'Reports the held-out gain over k1 0.9, b 0.4 with its interval; the run uses the setting best on all queries, and its sidecar says which split it was tuned on',
    params: BM25_DEFAULTS,
    tune: true,
  },
];

const INPUTS: Record<'k1' | 'b' | 'fbTerms' | 'fbDocs' | 'originalQueryWeight' | 'topK', { prompt: string; initial: number; ok: (x: number) => boolean }> = {
  k1: { prompt: 'BM25 k1 (term-frequency saturation; Lucene and Anserini use 0.9 or 1.2)', initial: BM25_DEFAULTS.k1, ok: (x) => x >= 0 },
  b: { prompt: 'BM25 b (length normalization, 0 to 1)', initial: BM25_DEFAULTS.b, ok: (x) => x >= 0 && x <= 1 },
  fbTerms: { prompt: 'RM3 feedback terms (irw run --fb-terms)', initial: RM3_DEFAULTS.fbTerms, ok: (x) => Number.isInteger(x) && x >= 1 },
  fbDocs: { prompt: 'RM3 feedback documents (irw run --fb-docs)', initial: RM3_DEFAULTS.fbDocs, ok: (x) => Number.isInteger(x) && x >= 1 },
  originalQueryWeight: { prompt: 'RM3 weight of the original query, 0 to 1 (irw run --original-query-weight)', initial: RM3_DEFAULTS.originalQueryWeight, ok: (x) => x >= 0 && x <= 1 },
  topK: { prompt: 'Hits per query (irw run --top-k)', initial: 1000, ok: (x) => Number.isInteger(x) && x >= 1 },
};

const FUSIONS: (vscode.QuickPickItem & { spec: Partial<FusionSpec> })[] = [
  { label: 'min-max + arithmetic mean', description: 'the OpenSearch default', spec: { norm: 'min-max', method: 'arithmetic' } },
  { label: 'L2 + arithmetic mean', description: "the study's L2 normalization", spec: { norm: 'l2', method: 'arithmetic' } },
  { label: 'RRF (k = 60)', description: 'reciprocal rank fusion, ranks only', spec: { norm: 'none', method: 'rrf' } },
  { label: 'z-score + arithmetic mean', spec: { norm: 'z-score', method: 'arithmetic' } },
  { label: 'min-max + harmonic mean', spec: { norm: 'min-max', method: 'harmonic' } },
  { label: 'min-max + CombMNZ', spec: { norm: 'min-max', method: 'combmnz' } },
];

const number = (ok: (x: number) => boolean) => (t: string) => (t.trim() !== '' && Number.isFinite(Number(t)) && ok(Number(t)) ? undefined : 'Enter a number in range');

/**
 * Dataset, split, retriever and its parameters in one multi-step input ("Run BEIR Eval", k/n, Back). A step
 * is asked only when there is a choice to make and the caller's arguments did not make it. The count n is shown
 * once no answer to come can change it (until then only k): it never jumps from 3/3 to 4/4.
 */
async function chooseRun(datasets: DatasetFolder[], args: RunBeirEvalArgs): Promise<Choice | undefined> {
  const st: {
    dataset?: DatasetFolder;
    split?: string;
    retriever?: Retriever;
    bm25?: (typeof BM25_CHOICES)[number];
    k1?: number;
    b?: number;
    fbTerms?: number;
    fbDocs?: number;
    originalQueryWeight?: number;
    topK?: number;
    fusion?: (typeof FUSIONS)[number];
  } = { dataset: datasets.length === 1 ? datasets[0] : undefined, split: args.split, retriever: args.retriever };
  const plan = (): { steps: Step[]; final: boolean } => {
    const steps: Step[] = [];
    let final = true;
    if (datasets.length > 1) steps.push('dataset');
    // Until a dataset is picked, assume it has several splits.
    if (!args.split && (st.dataset?.splits.length ?? 2) > 1) {
      steps.push('split');
      if (!st.dataset) final = false;
    }
    if (!args.retriever) steps.push('retriever');
    if (!st.retriever) final = false;
    // Picked by hand: BM25's parameters too (callers passing arguments get Anserini's defaults or their own).
    if (st.retriever === 'bm25' && !args.retriever && !args.bm25 && !args.rm3) {
      steps.push('bm25');
      if (!st.bm25) final = false;
      if (st.bm25?.custom === 'bm25') steps.push('k1', 'b');
      if (st.bm25?.custom === 'rm3') steps.push('fbTerms', 'fbDocs', 'originalQueryWeight');
    }
    if (st.retriever === 'hybrid' && !args.fusion) steps.push('fusion');
    if ((st.retriever === 'bm25' || st.retriever === 'dense' || st.retriever === 'hybrid') && !args.retriever && args.topK === undefined) steps.push('topK');
    return { steps, final };
  };
  const done = await runSteps<Step>('Run BEIR Eval', plan, async (step, ctx) => {
    switch (step) {
      case 'dataset': {
        const items = datasets.map((d) => ({ label: d.name, description: d.splits.join(', '), detail: d.path, dataset: d }));
        const r = await pickStep(ctx, { items, placeholder: 'BEIR dataset folder', active: items.find((i) => i.dataset === st.dataset) });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        if (r.dataset !== st.dataset) st.split = args.split;
        st.dataset = r.dataset;
        return true;
      }
      case 'split': {
        const items = st.dataset!.splits.map((label) => ({ label }));
        const r = await pickStep(ctx, { items, placeholder: `Split of ${st.dataset!.name} (qrels/<split>.tsv)`, active: items.find((i) => i.label === st.split) });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        st.split = r.label;
        return true;
      }
      case 'retriever': {
        const r = await pickStep(ctx, { items: RETRIEVERS, placeholder: 'Retriever', active: RETRIEVERS.find((i) => i.id === st.retriever) });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        st.retriever = r.id;
        return true;
      }
      case 'bm25': {
        const r = await pickStep(ctx, { items: BM25_CHOICES, placeholder: 'BM25 parameters', active: st.bm25 });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        st.bm25 = r;
        return true;
      }
      case 'k1':
      case 'b':
      case 'fbTerms':
      case 'fbDocs':
      case 'originalQueryWeight':
      case 'topK': {
        const input = INPUTS[step];
        const r = await inputStep(ctx, { prompt: input.prompt, value: String(st[step] ?? input.initial), validate: number(input.ok) });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        st[step] = Number(r);
        return true;
      }
      case 'fusion': {
        const r = await pickStep(ctx, { items: FUSIONS, placeholder: 'Hybrid: fusion of BM25 and dense', active: st.fusion });
        if (r === BACK || r === undefined) return r === BACK ? BACK : false;
        st.fusion = r;
        return true;
      }
    }
  });
  if (!done || !st.dataset || !st.split || !st.retriever) return undefined;
  const bm25 = st.bm25 ? (st.bm25.params ?? { k1: st.k1 ?? BM25_DEFAULTS.k1, b: st.b ?? BM25_DEFAULTS.b, fields: 'flat' as const }) : undefined;
  const rm3 = st.bm25 ? (st.bm25.custom === 'rm3' ? { fbTerms: st.fbTerms!, fbDocs: st.fbDocs!, originalQueryWeight: st.originalQueryWeight! } : (st.bm25.rm3 ?? null)) : undefined;
  return { dataset: st.dataset, split: st.split, retriever: st.retriever, bm25, rm3, topK: st.topK, fusion: st.fusion && { ...FUSION_DEFAULTS, ...st.fusion.spec }, tune: st.bm25?.tune };
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

const MODEL_SETTING = { dense: 'irWorkbench.models.dense', crossEncoder: 'irWorkbench.models.crossEncoder' } as const;
const MODEL_FILES = 'a folder holding an ONNX export: model.onnx plus tokenizer.json or vocab.txt';

interface ModelChoice {
  folder: string;
  /** Where the folder came from, for the hint of an error about it. */
  from: 'argument' | 'setting' | 'picked';
  setting: keyof typeof MODEL_SETTING;
}

/** What to do about a bad model folder, in the editor's words (the core's hint speaks of the CLI's --model). */
function modelHint(m: ModelChoice): string {
  const key = MODEL_SETTING[m.setting];
  if (m.from === 'setting') return `The setting ${key} (Settings › IR Workbench › Models) names it: point it at ${MODEL_FILES}, or clear it to be asked.`;
  if (m.from === 'picked') return `Pick ${MODEL_FILES}. It is saved to the setting ${key} once the model has loaded.`;
  return `Pass ${MODEL_FILES}.`;
}

const BROWSE = 'Browse…';
const OPEN_SETTINGS = 'Open Settings';
const GET_MODEL = 'How to Get a Model';

/** The docs section on getting an ONNX model, opened at its heading (docs/cli.md ships in the .vsix). */
export async function openModelDocs(extensionPath: string): Promise<void> {
  const file = join(extensionPath, 'docs', 'cli.md');
  const doc = await vscode.workspace.openTextDocument(file);
  const line = Math.max(0, doc.getText().split('\n').findIndex((l) => l.startsWith('### Getting an ONNX model')));
  const at = new vscode.Position(line, 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at) });
}

/**
 * A model folder: the argument, else the setting, else asked for. The folder must hold a model (checked
 * here, before any process starts); one picked by hand is saved to the setting only after a run with it
 * succeeded (`rememberModel`), so a wrong folder is never saved and the next run asks again. With no folder
 * set, or a bad one, the message offers a way on: Browse… (pick a folder, checked again), Open Settings, and
 * the docs section on getting a model.
 */
async function modelFolder(extensionPath: string, given: string | undefined, setting: ModelChoice['setting'], what: string): Promise<ModelChoice | undefined> {
  const configured = settings()[setting === 'dense' ? 'denseModel' : 'crossEncoder'];
  let choice: ModelChoice | undefined = given ? { folder: given, from: 'argument', setting } : configured ? { folder: configured, from: 'setting', setting } : undefined;
  let message = choice ? undefined : `IR Workbench: ${what === 'Bi-encoder' ? 'dense retrieval' : 're-ranking'} needs a ${what.toLowerCase()} model, ${MODEL_FILES}. None is set in ${MODEL_SETTING[setting]}.`;
  let file: string | undefined;
  for (;;) {
    if (choice) {
      try {
        readModelFolder(choice.folder, setting === 'dense' ? 'bi-encoder' : 'cross-encoder');
        return choice;
      } catch (e) {
        if (!isInputError(e)) throw e;
        const err = withModelHint(e, choice);
        // One line in a notification: the message and the hint as two sentences.
        message = `IR Workbench: ${err.file ? `${err.file}: ` : ''}${err.message}. ${err.hint}`;
        file = err.file;
      }
    }
    const picked = choice
      ? await vscode.window.showErrorMessage(message!, BROWSE, OPEN_SETTINGS, GET_MODEL, ...(file ? ['Open File'] : []))
      : await vscode.window.showWarningMessage(message!, BROWSE, OPEN_SETTINGS, GET_MODEL);
    if (picked === 'Open File' && file) {
      void openLocation(file);
      return undefined;
    }
    if (picked === OPEN_SETTINGS) {
      void vscode.commands.executeCommand('workbench.action.openSettings', MODEL_SETTING[setting]);
      return undefined;
    }
    if (picked === GET_MODEL) {
      void openModelDocs(extensionPath);
      return undefined;
    }
    if (picked !== BROWSE) return undefined;
    const folder = (
      await vscode.window.showOpenDialog({
        title: `${what} model folder (model.onnx with tokenizer.json or vocab.txt)`,
        canSelectFolders: true,
        canSelectFiles: false,
        canSelectMany: false,
      })
    )?.[0]?.fsPath;
    if (!folder) return undefined;
    choice = { folder, from: 'picked', setting };
  }
}

function withModelHint(e: InputError, m: ModelChoice): InputError {
  return new InputError({ code: e.code, message: e.message, file: e.file, line: e.line, text: e.text, hint: modelHint(m) });
}

async function rememberModel(m: ModelChoice | undefined): Promise<void> {
  if (m?.from !== 'picked') return;
  await vscode.workspace.getConfiguration('irWorkbench').update(`models.${m.setting}`, m.folder, vscode.ConfigurationTarget.Workspace);
  void vscode.window.showInformationMessage(`IR Workbench: saved ${m.folder} as ${MODEL_SETTING[m.setting]} in the workspace settings.`);
}

/** The run file to write; its folder is made when the run starts (see startRetrieval). */
function outPath(dataset: DatasetFolder, split: string, name: string): string {
  const runsDir = join(dataset.path, settings().runsFolder);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  return join(runsDir, `${name}.${split}.${stamp}.trec`);
}

/** Builds the job for the chosen retriever (asking for what is missing), runs it, returns the run file. */
async function startRetrieval(
  context: vscode.ExtensionContext,
  output: vscode.OutputChannel,
  dataset: DatasetFolder,
  split: string,
  retriever: Exclude<Retriever, 'file'>,
  args: RunBeirEvalArgs,
): Promise<string | undefined> {
  const cacheDir = join(context.globalStorageUri.fsPath, 'cache');
  mkdirSync(cacheDir, { recursive: true });
  const runnerPath = join(context.extensionPath, 'dist', 'runner.js');
  const rm3 = args.rm3 === true ? RM3_DEFAULTS : args.rm3 ? { ...RM3_DEFAULTS, ...args.rm3 } : null;
  const bm25 = { ...BM25_DEFAULTS, ...args.bm25, rm3, queryWeights: null };
  const topK = args.topK ?? 1000;
  const base = { dataset: dataset.path, split };
  let title: string;
  let model: ModelChoice | undefined;
  let start: (onProgress: (message: string) => void) => RunHandle<{ out: string; index?: 'cache' | 'built'; report?: TuneReport }>;
  let out: string;
  const describe = progressText();
  if (retriever === 'bm25' && args.tune) {
    out = outPath(dataset, split, `bm25-${bm25.fields}-tuned`);
    title = `Tuning BM25 on ${dataset.name} (${split})`;
    const job: NeuralJob = {
      job: 'tune-bm25',
      request: { ...TUNE_DEFAULTS, relevanceLevel: settings().relevanceLevel, ...base, fields: bm25.fields, topK: 1000, removeQuery: true, cacheDir, grid: TUNE_GRID, out, command: COMMAND },
    };
    start = (report) => startNeuralRun(job, { runnerPath, onProgress: (p) => report(describe(p)) });
  } else if (retriever === 'bm25') {
    out = outPath(dataset, split, `bm25-${bm25.fields}${rm3 ? '-rm3' : ''}`);
    title = `BM25${rm3 ? ' + RM3' : ''} on ${dataset.name} (${split})`;
    start = (report) =>
      startBm25Run({ ...base, ...bm25, topK, removeQuery: true, cacheDir, out, command: COMMAND }, { runnerPath, onProgress: (p) => report(describe(p)) });
  } else {
    let job: NeuralJob;
    if (retriever === 'rerank') {
      model = await modelFolder(context.extensionPath, args.crossEncoder, 'crossEncoder', 'Cross-encoder');
      const firstStage = model && (args.firstStage ?? (await pickFile('First-stage run to re-rank', join(dataset.path, settings().runsFolder))));
      if (!model || !firstStage) return undefined;
      out = outPath(dataset, split, 'rerank');
      job = { job: 'rerank', request: { ...base, model: model.folder, firstStage, depth: 100, batchSize: 32, threads: null, out, command: COMMAND } };
    } else {
      model = await modelFolder(context.extensionPath, args.model, 'dense', 'Bi-encoder');
      if (!model) return undefined;
      const dense = { model: model.folder, similarity: null, batchSize: 32, threads: null };
      out = outPath(dataset, split, retriever);
      if (retriever === 'dense') {
        job = { job: 'dense', request: { ...base, ...dense, topK, removeQuery: true, cacheDir, out, command: COMMAND } };
      } else {
        const fusion = { ...FUSION_DEFAULTS, ...args.fusion };
        job = { job: 'hybrid', request: { ...base, bm25, dense, bm25Depth: topK, denseDepth: topK, fusion, removeQuery: true, cacheDir, out, command: COMMAND } };
      }
    }
    title = `${retriever === 'rerank' ? 'Re-ranking' : retriever === 'dense' ? 'Dense retrieval' : 'Hybrid retrieval'} on ${dataset.name} (${split})`;
    start = (report) => startNeuralRun(job, { runnerPath, onProgress: (p) => report(describe(p)) });
  }
  const runsDir = dirname(out);
  const madeRunsDir = !existsSync(runsDir);
  mkdirSync(runsDir, { recursive: true });
  const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const handle = start((message) => progress.report({ message }));
    token.onCancellationRequested(() => handle.cancel());
    try {
      return await handle.result;
    } catch (e) {
      if (e instanceof RunnerError && e.code === 'cancelled') {
        void vscode.window.showInformationMessage(`IR Workbench: ${title} cancelled; no run file was written.`);
        return undefined;
      }
      // An error about the model folder says what to do in the editor's words.
      reportError(model && isInputError(e) && e.file && resolve(e.file).startsWith(resolve(model.folder)) ? withModelHint(e, model) : e);
      return undefined;
    }
  });
  // A run that wrote nothing leaves no empty runs folder behind.
  if (!result && madeRunsDir && existsSync(runsDir) && readdirSync(runsDir).length === 0) rmdirSync(runsDir);
  if (!result) return undefined;
  if ('index' in result) output.appendLine(`${title}: ${result.index === 'cache' ? 'the cached index was loaded' : 'the index was built and cached'}.`);
  if (result.report) showTuning(output, result.report);
  await rememberModel(model);
  return result.out;
}

/** The tuning report in the output channel; overfitting or tuning on the test split said in a warning too. */
function showTuning(output: vscode.OutputChannel, r: TuneReport): void {
  output.appendLine(renderTune(r));
  const warnings = [
    r.cv.overfit ? overfitWarning(r) : '',
    r.onTestSplit ? `the run was tuned on the ${r.split} split: its figures there are not held out (the held-out gain is ${r.cv.heldOutGain >= 0 ? '+' : ''}${r.cv.heldOutGain.toFixed(4)})` : '',
  ].filter(Boolean);
  if (warnings.length) void vscode.window.showWarningMessage(`IR Workbench: ${warnings.join('; ')}.`, 'Show Output').then((c) => c && output.show(true));
}

/**
 * Progress messages for any runner job: phase, counts, and for hybrid which retriever is working. Says whether
 * a cached index (or cached embeddings) was loaded or had to be built: the phase after the cache lookup tells.
 */
function progressText(): (p: { phase: string; done: number; total?: number; retriever?: string }) => string {
  let looked: 'index' | 'embeddings' | null = null;
  return (p) => {
    const of = p.total ? ` of ${p.total.toLocaleString()}` : '';
    const who = p.retriever ? `${p.retriever}: ` : '';
    // The lookup is followed by building (a miss) or straight by the search (a hit).
    const hit = looked && (p.phase === 'search' || p.phase === 'encode-queries') ? `cached ${looked} loaded; ` : '';
    if (p.phase === 'load-index') looked = 'index';
    else if (p.phase === 'load-embeddings') looked = 'embeddings';
    else looked = null;
    const what: Record<string, string> = {
      hash: 'checking the corpus…',
      'load-index': 'looking for a cached index…',
      index: `no cached index for this corpus, indexing: ${p.done.toLocaleString()}${of} documents`,
      'save-index': 'saving the index to the cache…',
      search: `searching: ${p.done.toLocaleString()}${of} queries`,
      'load-embeddings': 'looking for cached embeddings…',
      'encode-corpus': `no cached embeddings for this corpus and model, encoding: ${p.done.toLocaleString()}${of} documents`,
      'save-embeddings': 'saving embeddings to the cache…',
      'encode-queries': `encoding queries: ${p.done.toLocaleString()}${of}`,
      read: 'reading the first-stage run…',
      rerank: `re-ranking: ${p.done.toLocaleString()}${of}`,
      fuse: 'fusing…',
      tune: `scoring the grid: ${p.done.toLocaleString()}${of} settings`,
    };
    return who + hit + (what[p.phase] ?? `${p.phase}: ${p.done.toLocaleString()}${of}`);
  };
}

/**
 * The run's figures as the engine computed them for the tree and the panels (one evaluation, one measure
 * list: the views' and irWorkbench.evaluation.measures), in the Output channel and a message.
 */
async function showEvaluation(wb: AnalysisWorkbench, output: vscode.OutputChannel, dataset: DatasetFolder, split: string, runPath: string): Promise<RunBeirEvalFigures | undefined> {
  const s = settings();
  let summary;
  try {
    const open = await wb.open(dataset.path, split, [runPath]);
    const left = open.skipped.find((x) => x.file === runPath);
    if (left || !open.runs.some((r) => r.key === runPath)) {
      // The engine's reason names the file and line (file:line: ...) where the run is malformed.
      const line = left ? Number(/:(\d+):/.exec(left.reason.slice(runPath.length))?.[1] ?? 0) || undefined : undefined;
      const why = left?.reason ?? "none of its queries is judged in the split's qrels";
      void vscode.window.showErrorMessage(`IR Workbench: ${runPath} is not evaluated on ${dataset.name} (${split}): ${why}`, 'Open File').then((c) => c && openLocation(runPath, line));
      return undefined;
    }
    summary = await wb.ask('runSummary', { key: open.key, run: runPath });
  } catch (e) {
    reportError(e);
    return undefined;
  }
  const annotated = summary.judgements > 0;
  // The measures in the order the setting lists them, then the views' own.
  const names = Object.keys(summary.original);
  const listed = s.measures.flatMap((spec) => names.filter((n) => n === spec.replace('.', '_') || n.startsWith(`${spec.split('.')[0]}_`) || n === spec));
  const order = [...new Set([...listed, ...names])];
  output.appendLine(`== ${runPath}`);
  output.appendLine(`   ${dataset.name} (${split}), ${summary.queries} queries${s.complete ? ', trec_eval -c' : ''}${annotated ? `; annotated: with your ${summary.judgements} judgements` : ''}`);
  for (const n of order) {
    const o = summary.original[n].toFixed(4);
    output.appendLine(`${n.padEnd(24)}\tall\t${o}${annotated ? `\tannotated ${summary.annotated[n].toFixed(4)}` : ''}`);
  }
  const headline = (listed.length ? listed : order)
    .slice(0, 4)
    .map((n) => `${displayName(n)} ${summary.original[n].toFixed(4)}${annotated ? ` (${summary.annotated[n].toFixed(4)} with your judgements)` : ''}`)
    .join(' · ');
  // The Output panel opens on request only: it is not forced open on every evaluation.
  // The person's names for the measures (the Output channel keeps trec_eval's), on the qrels named.
  void vscode.window.showInformationMessage(`IR Workbench: ${summary.tag} on ${dataset.name} (${split}), original qrels${annotated ? ` and with your ${summary.judgements} judgements` : ''}: ${headline}`, 'Show Output').then((c) => c && output.show(true));
  return { runFile: runPath, runId: summary.tag, numQ: summary.queries, mean: summary.original, annotated: annotated ? summary.annotated : null };
}

function reportError(e: unknown): void {
  if (isInputError(e)) {
    const err = e as InputError;
    void vscode.window.showErrorMessage(`IR Workbench: ${err.format()}`, ...(err.file ? ['Open File'] : [])).then((choice) => {
      if (choice === 'Open File' && err.file) return openLocation(err.file, err.line);
    });
    return;
  }
  void vscode.window.showErrorMessage(`IR Workbench: ${(e as Error).message}`);
}
