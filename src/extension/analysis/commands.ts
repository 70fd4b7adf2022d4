import { basename } from 'node:path';
import * as vscode from 'vscode';
import { isInputError } from '../../core/formats/errors';
import { datasetAt, findDatasets } from '../datasets';
import type { EngineHandle } from '../engine/register';
import type { DatasetsElement } from '../views/datasetsTree';
import { ANNOTATE_VIEW_ID, AnnotateView } from './annotateView';
import { showDiff } from './diffPanel';
import { showHoles } from './holesPanel';
import { registerQrelsEditor } from './qrelsEditor';
import { showResults } from './resultsPanel';
import { AnalysisWorkbench, type OpenSplit } from './workbench';
import { PANEL_STATE, RESTORE_STATE, type PanelChoices, type PanelIdentity } from '../../protocol/webview';

/** Arguments of the analysis commands (for keybindings, tasks and tests); each one given skips a pick. */
export interface AnalysisArgs {
  dataset?: string;
  split?: string;
  /** Results: a run file to include (e.g. the one just evaluated). */
  focus?: string;
  /** Diff: the two runs (file paths). */
  a?: string;
  b?: string;
  /** The split came from the context (the active panel, the tree's selection), not from the caller. */
  fromContext?: boolean;
}

/**
 * The split the person is looking at, for a command given none: the IR Workbench panel in the active editor
 * (a Results, Diff or Holes panel of that split), else the split or run selected in the Datasets view (a run
 * row is the b of a Diff against the baseline).
 */
export function inContext(wb: AnalysisWorkbench, args: AnalysisArgs): AnalysisArgs {
  if (args.dataset) return args;
  const active = wb.activeSplit();
  if (active) return { ...args, dataset: active.datasetDir, split: active.split, fromContext: true };
  const row = wb.treeSelection();
  if (!row || row.kind === 'dataset') return row ? { ...args, dataset: row.dataset.dir } : args;
  const run = row.kind === 'run' && args.b === undefined ? { b: row.run.path } : {};
  return { ...args, dataset: row.dataset.dir, split: row.split.split, ...run, fromContext: true };
}

/**
 * Registers the analysis and judging UI: Show Results, Show Run Diff, Show Holes, the Judge Holes sidebar and
 * its commands, the qrels hover/CodeLens with Change Grade, and the watcher of annotation files.
 */
export function registerAnalysis(context: vscode.ExtensionContext, store: EngineHandle | undefined): AnalysisWorkbench {
  const wb = new AnalysisWorkbench(context, store);
  const annotate = new AnnotateView(wb);
  context.subscriptions.push(
    wb,
    vscode.window.registerWebviewViewProvider(ANNOTATE_VIEW_ID, annotate, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.commands.registerCommand('irWorkbench.showResults', async (given?: ArgsOrNode) => {
      const args = argsOf(given);
      const split = await pickSplit(wb, args, args.focus ? [args.focus] : []);
      if (!split) return undefined;
      return showResults(
        wb,
        split,
        (a, b) => void vscode.commands.executeCommand('irWorkbench.showRunDiff', { dataset: split.datasetDir, split: split.split, a, b }),
        () => void vscode.commands.executeCommand('irWorkbench.showHoles', { dataset: split.datasetDir, split: split.split }),
      );
    }),
    vscode.commands.registerCommand('irWorkbench.showHoles', async (given?: ArgsOrNode) => {
      const args = inContext(wb, argsOf(given));
      const split = await pickSplit(wb, args);
      if (!split) return undefined;
      return showHoles(wb, split, async (runs, depth, order) => void (await annotate.start(split, runs, depth, order)));
    }),
    // Judge the depth-10 pool of every run of the split in the sidebar (Show Holes chooses runs and depth).
    vscode.commands.registerCommand('irWorkbench.judgeHoles', async (given?: ArgsOrNode) => {
      const args = inContext(wb, argsOf(given));
      const split = await pickSplit(wb, args);
      if (!split) return undefined;
      return annotate.start(split, split.runs.map((r) => r.key), 10);
    }),
    // The sidebar's digit keys as a command (keybindings, tasks, tests): grade the current pair.
    vscode.commands.registerCommand('irWorkbench.judgeCurrent', async (args: { grade: number }) => {
      await annotate.judgeCurrent(args.grade);
      return annotate.state();
    }),
    vscode.commands.registerCommand('irWorkbench.showRunDiff', async (given?: ArgsOrNode) => {
      const args = inContext(wb, argsOf(given));
      const split = await pickSplit(wb, args, [args.a, args.b].filter((f): f is string => f !== undefined));
      if (!split) return undefined;
      const runs = split.runs;
      const pick = async (title: string, not?: string) =>
        (await vscode.window.showQuickPick(runs.filter((r) => r.key !== not).map((r) => ({ label: r.label, detail: r.key, key: r.key })), { title }))?.key;
      // From a split in context (a panel of it, the tree), a is its baseline: one pick, or none for a run row.
      const a = args.a ?? (args.fromContext && runs.some((r) => r.key === split.baseline) ? split.baseline : await pick('Run diff: run a (the reference)'));
      if (!a) return undefined;
      const other = args.b !== undefined && args.b !== a ? args.b : undefined;
      const b = other ?? (await pick(`Run diff: run b (compared with ${runs.find((r) => r.key === a)?.label ?? a})`, a));
      if (!b) return undefined;
      try {
        return await showDiff(wb, split, a, b);
      } catch (e) {
        void vscode.window.showErrorMessage(`IR Workbench: ${(e as Error).message}`);
        return undefined;
      }
    }),
  );
  // A window reload brings the panels back with what they showed (their pages keep it in the view state).
  const restore = (view: 'results' | 'diff' | 'holes', open: (split: OpenSplit, panel: vscode.WebviewPanel, state: RestoredState) => Promise<unknown>) =>
    vscode.window.registerWebviewPanelSerializer(`irWorkbench.${view}`, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, saved: unknown) {
        const state = restoredState(saved);
        const split = state && (await pickSplit(wb, { dataset: state.panel.datasetDir, split: state.panel.split }));
        if (!state || !split) {
          panel.dispose();
          return;
        }
        try {
          await open(split, panel, state);
        } catch (e) {
          panel.dispose();
          void vscode.window.showErrorMessage(`IR Workbench: ${(e as Error).message}`);
        }
      },
    });
  context.subscriptions.push(
    restore('results', async (split, panel, state) => {
      if (state.choices.compare && state.choices.correction) split.testing = { compare: state.choices.compare, correction: state.choices.correction };
      await showResults(
        wb,
        split,
        (a, b) => void vscode.commands.executeCommand('irWorkbench.showRunDiff', { dataset: split.datasetDir, split: split.split, a, b }),
        () => void vscode.commands.executeCommand('irWorkbench.showHoles', { dataset: split.datasetDir, split: split.split }),
        panel,
      );
    }),
    restore('diff', async (split, panel, state) => {
      if (!state.panel.a || !state.panel.b) throw new Error('a diff panel without its two runs');
      await showDiff(wb, split, state.panel.a, state.panel.b, panel);
    }),
    restore('holes', (split, panel, state) => showHoles(wb, split, async (runs, depth, order) => void (await annotate.start(split, runs, depth, order)), { panel, choices: state.choices })),
  );
  // Judgements made elsewhere (another window, an edit of the file) reach the open views through the engine:
  // the store's watcher re-indexes the annotations file and the engine says which splits changed.
  registerQrelsEditor(context, wb);
  return wb;
}

interface RestoredState {
  panel: PanelIdentity;
  choices: PanelChoices;
}

/** A page's saved view state, as far as it names a split (anything else: nothing to restore). */
function restoredState(saved: unknown): RestoredState | undefined {
  const s = saved as Record<string, unknown> | undefined;
  const panel = s?.[PANEL_STATE] as PanelIdentity | undefined;
  if (!panel || typeof panel.datasetDir !== 'string' || typeof panel.split !== 'string') return undefined;
  const choices = (s?.[RESTORE_STATE] ?? {}) as PanelChoices;
  return { panel, choices: typeof choices === 'object' ? choices : {} };
}

/** Arguments as given: AnalysisArgs, or a node of the Datasets view (its context menu). */
type ArgsOrNode = AnalysisArgs | DatasetsElement | undefined;

function argsOf(x: ArgsOrNode): AnalysisArgs {
  if (!x) return {};
  if (!('kind' in x)) return x;
  if (x.kind === 'dataset') return { dataset: x.dataset.dir };
  if (x.kind === 'split' || x.kind === 'judgements') return { dataset: x.dataset.dir, split: x.split.split };
  return { dataset: x.dataset.dir, split: x.split.split, focus: x.run.path };
}

/** The dataset split named by `args`, else picked; opened with its runs. Errors are shown, not thrown. */
export async function pickSplit(wb: AnalysisWorkbench, args: AnalysisArgs, extraRuns: string[] = []): Promise<OpenSplit | undefined> {
  let dir = args.dataset;
  if (!dir) {
    const datasets = await findDatasets();
    if (datasets.length === 0) {
      void vscode.window.showWarningMessage('IR Workbench: no BEIR dataset folder in this workspace (corpus.jsonl, queries.jsonl, qrels/<split>.tsv).');
      return undefined;
    }
    dir =
      datasets.length === 1
        ? datasets[0].path
        : (await vscode.window.showQuickPick(datasets.map((d) => ({ label: d.name, detail: d.path, path: d.path })), { title: 'Dataset' }))?.path;
  }
  if (!dir) return undefined;
  const splits = datasetAt(dir)?.splits ?? [];
  const split = args.split ?? (splits.length === 1 ? splits[0] : await vscode.window.showQuickPick(splits, { title: `Split of ${basename(dir)}` }));
  if (!split) return undefined;
  try {
    const s = await wb.open(dir, split, extraRuns);
    if (s.runs.length === 0) {
      void vscode.window.showWarningMessage(`IR Workbench: no run of ${basename(dir)} (${split}) to show: put TREC runs in its runs folder or run Run BEIR Eval.`);
      return undefined;
    }
    return s;
  } catch (e) {
    void vscode.window.showErrorMessage(`IR Workbench: ${isInputError(e) ? e.format() : (e as Error).message}`);
    return undefined;
  }
}
