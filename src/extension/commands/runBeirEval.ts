import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { evaluate, formatTrecEval, type EvalResult } from '../../core/eval';
import { isInputError, type InputError } from '../../core/formats/errors';
import { readQrels } from '../../core/formats/qrels';
import { readRun } from '../../core/formats/run';
import type { RunProgress } from '../../core/retrieval/bm25/run';
import { RunnerError, startBm25Run } from '../../runner/client';
import { datasetAt, findDatasets, type DatasetFolder } from '../datasets';

type Retriever = 'bm25' | 'file';

/**
 * Optional command arguments, for keybindings, tasks and tests: each one given skips its quick pick.
 * `irWorkbench.runBeirEval` resolves to the figures shown (or undefined if the user backed out).
 */
export interface RunBeirEvalArgs {
  dataset?: string;
  split?: string;
  retriever?: Retriever;
  runFile?: string;
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
}

function settings(): EvalSettings {
  const c = vscode.workspace.getConfiguration('irWorkbench');
  return {
    measures: c.get<string[]>('evaluation.measures', ['ndcg_cut.10', 'recall.100']),
    complete: c.get<boolean>('evaluation.completeQueries', true),
    relevanceLevel: c.get<number>('evaluation.relevanceLevel', 1),
    runsFolder: c.get<string>('runs.folder', 'runs'),
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

  let runPath: string | undefined = args.runFile;
  if (runPath) {
    // given by the caller
  } else if (retriever === 'file') {
    const picked = await vscode.window.showOpenDialog({
      title: `TREC run to evaluate on ${dataset.name} (${split})`,
      defaultUri: vscode.Uri.file(join(dataset.path, settings().runsFolder)),
      canSelectMany: false,
      filters: { 'TREC runs': ['trec', 'run', 'txt', 'tsv'], 'All files': ['*'] },
    });
    runPath = picked?.[0]?.fsPath;
  } else {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(
        'IR Workbench: this workspace is not trusted, so no retrieval process is started. Trust the workspace to run BM25, or evaluate an existing run file.',
      );
      return;
    }
    runPath = await runBm25(context, dataset, split);
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
    { id: 'file', label: 'Evaluate an existing run file…', description: 'a TREC run from any engine (Pyserini, Anserini, OpenSearch, …)' },
  ];
  return (await vscode.window.showQuickPick(items, { title: 'Run BEIR Eval: retriever' }))?.id;
}

async function runBm25(context: vscode.ExtensionContext, dataset: DatasetFolder, split: string): Promise<string | undefined> {
  const runsDir = join(dataset.path, settings().runsFolder);
  mkdirSync(runsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const out = join(runsDir, `bm25-flat.${split}.${stamp}.trec`);
  const cacheDir = join(context.globalStorageUri.fsPath, 'bm25-index');
  mkdirSync(cacheDir, { recursive: true });
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `BM25 on ${dataset.name} (${split})`, cancellable: true },
    async (progress, token) => {
      const handle = startBm25Run(
        { dataset: dataset.path, split, k1: 0.9, b: 0.4, fields: 'flat', topK: 1000, removeQuery: true, rm3: null, queryWeights: null, cacheDir, out },
        { runnerPath: join(context.extensionPath, 'dist', 'runner.js'), onProgress: (p) => progress.report({ message: describe(p) }) },
      );
      token.onCancellationRequested(() => handle.cancel());
      try {
        const result = await handle.result;
        return result.out;
      } catch (e) {
        if (e instanceof RunnerError && e.code === 'cancelled') {
          void vscode.window.showInformationMessage('IR Workbench: BM25 run cancelled; no run file was written.');
          return undefined;
        }
        reportError(e);
        return undefined;
      }
    },
  );
}

function describe(p: RunProgress): string {
  const of = p.total ? ` of ${p.total.toLocaleString()}` : '';
  switch (p.phase) {
    case 'hash':
      return 'checking the corpus…';
    case 'load-index':
      return 'loading the cached index…';
    case 'index':
      return `indexing: ${p.done.toLocaleString()}${of} documents`;
    case 'save-index':
      return 'saving the index…';
    case 'search':
      return `searching: ${p.done.toLocaleString()}${of} queries`;
  }
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
  const headline = [...result.mean].slice(0, 4).map(([k, v]) => `${k} ${v.toFixed(4)}`).join(' · ');
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
