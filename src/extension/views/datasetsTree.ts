import { basename } from 'node:path';
import { runLabels } from '../../core/index/discovery';
import * as vscode from 'vscode';
import type { DatasetNode, LeftOutRun, RunNode, SplitNode } from '../../core/index/nodes';
import { displayName } from '../../core/eval/displayName';
import { RESULT_MEASURES } from '../../core/split/scores';

/** A node of the Datasets view: dataset -> split -> your judgements (a count), runs. */
export type DatasetsElement =
  | { kind: 'dataset'; dataset: DatasetNode }
  | { kind: 'split'; dataset: DatasetNode; split: SplitNode }
  | { kind: 'judgements'; dataset: DatasetNode; split: SplitNode }
  | { kind: 'run'; dataset: DatasetNode; split: SplitNode; run: RunNode }
  | { kind: 'leftOut'; dataset: DatasetNode; split: SplitNode; run: LeftOutRun };

const fmt = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(4));

/** The Results table's measures first, in its order, then the others by name. */
function measureOrder(names: string[]): string[] {
  const first = RESULT_MEASURES.map((m) => m.key).filter((k) => names.includes(k));
  return [...first, ...names.filter((n) => !first.includes(n)).sort()];
}
const count = (n: number) => n.toLocaleString('en-US');

/** A run row's label: its file's name, cut where it differs from its siblings'. */
function runLabel(e: DatasetsElement & { kind: 'run' }): string {
  return runLabels(e.split.runs.map((o) => o.path)).get(e.run.path) ?? e.run.path;
}

/**
 * A run row's figures, short enough for the default sidebar width (the tooltip has four decimals): the original
 * qrels' figure (as the Results panel), then "→ yours" where the user's judgements move it.
 */
function runDescription(e: DatasetsElement & { kind: 'run' }): string {
  const r = e.run;
  const yours = e.split.judgementCount;
  const both = (name: string, digits: number) => {
    const o = r.means[name];
    const a = r.annotated[name];
    const f = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(digits));
    return yours > 0 && a !== undefined && f(a) !== f(o) ? `${f(o)}→${f(a)}` : f(o);
  };
  const { answered, total } = r.coverage;
  // Hole@10 is over the queries the run answers: a run answering part of the split says so beside it.
  return `nDCG@10 ${both('ndcg_cut_10', 3)} · Hole@10 ${both('hole_10', 2)}${answered < total ? ` · ${count(answered)}/${count(total)} queries` : ''}`;
}

/**
 * The Datasets tree. It only renders what the store worker answered (setData); it never reads files or
 * computes, so the extension host stays responsive whatever the corpus size.
 */
export class DatasetsTreeProvider implements vscode.TreeDataProvider<DatasetsElement> {
  private datasets: DatasetNode[] = [];
  /**
   * Every row by its id, the same object across updates, with what it last showed, what its tooltip would say,
   * and whether VS Code has asked for that tooltip since the row was last rendered.
   */
  private readonly rows = new Map<string, { element: DatasetsElement; shown: string; tip: string; tipShown: boolean }>();
  private topIds = '';
  private readonly changed = new vscode.EventEmitter<DatasetsElement | DatasetsElement[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** `baselineOf(datasetDir, split)`: the run path chosen with Set as Baseline, marked in the tree. */
  constructor(private readonly baselineOf: (datasetDir: string, split: string) => string | undefined = () => undefined) {}

  setData(datasets: DatasetNode[]): void {
    this.datasets = datasets;
    this.update();
  }

  /** Re-renders the rows whose display changed (e.g. after the baseline changed). */
  refresh(): void {
    this.update();
  }

  get data(): readonly DatasetNode[] {
    return this.datasets;
  }

  getChildren(element?: DatasetsElement): DatasetsElement[] {
    return childrenOf(this.datasets, element).map((c) => this.rows.get(idOf(c))?.element ?? c);
  }

  /**
   * Tells VS Code only which rows changed, keeping each row the same object: a whole-tree refresh (which the
   * engine's frequent split events would cause) drops every row's handle until VS Code asks for the rows again,
   * and an inline action clicked in that window reaches its command with no row. A row whose children changed
   * is refreshed with its subtree; the root only when the datasets themselves changed.
   */
  private update(): void {
    const before = new Set(this.rows.keys());
    const fire: DatasetsElement[] = [];
    const visit = (fresh: DatasetsElement, parentFired: boolean): void => {
      const id = idOf(fresh);
      before.delete(id);
      const kids = childrenOf(this.datasets, fresh);
      const shown = JSON.stringify([this.shownOf(fresh), kids.map(idOf)]);
      const tip = JSON.stringify(this.tipOf(fresh));
      const row = this.rows.get(id);
      let fired = parentFired;
      if (!row) {
        this.rows.set(id, { element: fresh, shown, tip, tipShown: false });
      } else {
        Object.assign(row.element, fresh);
        // A tooltip's figures only (a range computed after a judgement) re-render the row only if its tooltip
        // was shown: VS Code asks for it once per rendering, and a hover later gets the figures then.
        if ((row.shown !== shown || (row.tip !== tip && row.tipShown)) && !parentFired) {
          fire.push(row.element);
          fired = true;
        }
        if (fired) row.tipShown = false;
        row.shown = shown;
        row.tip = tip;
      }
      for (const k of kids) visit(k, fired);
    };
    const top = childrenOf(this.datasets, undefined);
    const topIds = JSON.stringify(top.map(idOf));
    const root = topIds !== this.topIds;
    this.topIds = topIds;
    for (const d of top) visit(d, root);
    for (const gone of before) this.rows.delete(gone);
    if (root) this.changed.fire(undefined);
    else if (fire.length > 0) this.changed.fire(fire);
  }

  /** What a row shows apart from its children and a run's tooltip: a change of it re-renders the row. */
  private shownOf(e: DatasetsElement): unknown {
    if (e.kind === 'dataset') return { ...e.dataset, splits: undefined };
    // The count of your judgements is on a row of its own: a judgement re-renders that row, and a run's row only
    // where its figures move; leaves all. Refreshing the split row makes VS Code fetch its children again, and its
    // view's progress bar runs meanwhile: about 50 frames a judgement that Chromium composites in software.
    if (e.kind === 'split') return { ...e.split, runs: undefined, leftOut: undefined, judgementCount: undefined };
    if (e.kind === 'judgements') return [e.split.judgementCount, e.split.annotationsPath];
    if (e.kind === 'run') return [runLabel(e), runDescription(e), this.isBaseline(e)];
    return [e.run, e.split.runs.map((r) => r.path)];
  }

  /** What a run's tooltip says (given on hover, resolveTreeItem): its every figure, and the count of judgements. */
  private tipOf(e: DatasetsElement): unknown {
    return e.kind === 'run' ? [e.run, e.split.judgementCount, this.isBaseline(e)] : null;
  }

  private isBaseline(e: DatasetsElement & { kind: 'run' }): boolean {
    return this.baselineOf(e.dataset.dir, e.split.split) === e.run.path;
  }

  getTreeItem(e: DatasetsElement): vscode.TreeItem {
    if (e.kind === 'dataset') {
      const item = new vscode.TreeItem(e.dataset.name, vscode.TreeItemCollapsibleState.Expanded);
      item.description = `${count(e.dataset.docCount)} docs · ${count(e.dataset.queryCount)} queries`;
      item.tooltip = e.dataset.dir;
      item.iconPath = new vscode.ThemeIcon('database');
      item.contextValue = 'irw.dataset';
      item.resourceUri = vscode.Uri.file(e.dataset.dir);
      item.id = idOf(e);
      return item;
    }
    if (e.kind === 'split') {
      const s = e.split;
      const item = new vscode.TreeItem(s.split, childrenOf([], e).length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      item.description = `${count(s.qrelsQueries)} queries · ${count(s.qrelsCount)} qrels`;
      item.tooltip = [s.qrelsPath ?? '(no original qrels)', `your judgements: ${s.annotationsPath}`].join('\n');
      item.iconPath = new vscode.ThemeIcon('checklist');
      item.contextValue = 'irw.split';
      item.id = idOf(e);
      return item;
    }
    if (e.kind === 'leftOut') return leftOutItem(e);
    if (e.kind === 'judgements') return judgementsItem(e);
    return this.runItem(e);
  }

  /** A run's tooltip, when VS Code is about to show it: from the figures the row has now. */
  resolveTreeItem(item: vscode.TreeItem, e: DatasetsElement): vscode.TreeItem {
    if (e.kind !== 'run') return item;
    const row = this.rows.get(idOf(e));
    if (row) row.tipShown = true;
    item.tooltip = this.runTooltip(e);
    return item;
  }

  private runItem(e: DatasetsElement & { kind: 'run' }): vscode.TreeItem {
    const r = e.run;
    const item = new vscode.TreeItem(runLabel(e), vscode.TreeItemCollapsibleState.None);
    item.description = runDescription(e);
    // The baseline by its icon: a word in the description would push the figures out of a narrow sidebar.
    item.iconPath = new vscode.ThemeIcon(this.isBaseline(e) ? 'star-full' : 'graph');
    item.contextValue = 'irw.run';
    item.resourceUri = vscode.Uri.file(r.path);
    item.command = { command: 'vscode.open', title: 'Open Run', arguments: [vscode.Uri.file(r.path)] };
    item.id = idOf(e);
    return item;
  }

  private runTooltip(e: DatasetsElement & { kind: 'run' }): vscode.MarkdownString {
    const r = e.run;
    const yours = e.split.judgementCount;
    const { answered, total } = r.coverage;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${basename(r.path)}** (tag \`${r.tag}\`) on \`${e.split.split}\`${this.isBaseline(e) ? ', the baseline of this split' : ''}\n\n`);
    md.appendMarkdown(
      answered < total
        ? `Answers ${count(answered)} of the split's ${count(total)} queries: the ${count(total - answered)} it misses count as 0 in its means (trec_eval -c); Judged@10 and Hole@10 are over the ${count(answered)} it answers.\n\n`
        : `Answers all ${count(total)} queries of the split.\n\n`,
    );
    md.appendMarkdown(`The file: ${count(r.queryCount)} queries, ${count(r.resultCount)} results, modified ${new Date(r.createdAt).toLocaleString(vscode.env.language)}\n\n`);
    if (r.ndcgRange) {
      const g = r.ndcgRange;
      md.appendMarkdown(
        `nDCG@10 over every grading of the ${count(g.holes)} holes left in its top 10, with your judgements: [${fmt(g.lo)}, ${fmt(g.hi)}]${g.exact ? '' : ' (a sound bound, not the tightest)'}\n\n`,
      );
    }
    const names = measureOrder(Object.keys(r.means));
    if (yours > 0) {
      md.appendMarkdown(`Original: on the split's qrels as they are. With your judgements: your ${count(yours)} judgements merged in.\n\n`);
      md.appendMarkdown('| measure | original | with your judgements |\n|---|---:|---:|\n');
      for (const name of names) md.appendMarkdown(`| ${displayName(name)} | ${fmt(r.means[name])} | ${fmt(r.annotated[name] ?? r.means[name])} |\n`);
    } else {
      md.appendMarkdown("On the split's qrels as they are (no judgements of yours yet).\n\n");
      md.appendMarkdown('| measure | mean |\n|---|---:|\n');
      for (const name of names) md.appendMarkdown(`| ${displayName(name)} | ${fmt(r.means[name])} |\n`);
    }
    return md;
  }
}

function childrenOf(datasets: DatasetNode[], element: DatasetsElement | undefined): DatasetsElement[] {
  if (!element) return datasets.map((dataset) => ({ kind: 'dataset', dataset }));
  if (element.kind === 'dataset') return element.dataset.splits.map((split) => ({ kind: 'split', dataset: element.dataset, split }));
  if (element.kind === 'split') {
    const { dataset, split } = element;
    return [
      ...(split.judgementCount > 0 ? [{ kind: 'judgements', dataset, split } as const] : []),
      ...split.runs.map((run): DatasetsElement => ({ kind: 'run', dataset, split, run })),
      ...split.leftOut.map((run): DatasetsElement => ({ kind: 'leftOut', dataset, split, run })),
    ];
  }
  return [];
}

/** Your judgements of a split in effect (an undo back to unjudged is none), opening the file they are in. */
function judgementsItem(e: DatasetsElement & { kind: 'judgements' }): vscode.TreeItem {
  const item = new vscode.TreeItem('your judgements', vscode.TreeItemCollapsibleState.None);
  item.description = count(e.split.judgementCount);
  item.tooltip = `${count(e.split.judgementCount)} judgements of yours in effect on ${e.split.split}, merged into its qrels wherever figures say "with your judgements".\n${e.split.annotationsPath}`;
  item.iconPath = new vscode.ThemeIcon('person');
  item.contextValue = 'irw.judgements';
  item.resourceUri = vscode.Uri.file(e.split.annotationsPath);
  item.command = { command: 'vscode.open', title: 'Open Your Judgements', arguments: [vscode.Uri.file(e.split.annotationsPath)] };
  item.id = idOf(e);
  return item;
}

/** A run file left out because it is bad: shown where it would be, with why and a way to the first bad line. */
function leftOutItem(e: DatasetsElement & { kind: 'leftOut' }): vscode.TreeItem {
  const r = e.run;
  const item = new vscode.TreeItem(runLabels([...e.split.runs.map((o) => o.path), r.path]).get(r.path) ?? r.path, vscode.TreeItemCollapsibleState.None);
  item.description = 'left out: bad file';
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${basename(r.path)}** is left out: it is not scored until the file is fixed (see the Problems panel).\n\n`);
  md.appendText(r.reason);
  item.tooltip = md;
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
  item.contextValue = 'irw.leftOutRun';
  item.resourceUri = vscode.Uri.file(r.path);
  const at = Math.max(0, r.line - 1);
  item.command = { command: 'vscode.open', title: 'Open Run', arguments: [vscode.Uri.file(r.path), { selection: new vscode.Range(at, 0, at, 0) }] };
  item.id = idOf(e);
  return item;
}

/**
 * A stable id per row: without one VS Code keys rows by position and label, so a refresh that inserts a row
 * above (an import) leaves an inline action pointing at no element.
 */
function idOf(e: DatasetsElement): string {
  if (e.kind === 'dataset') return `dataset\t${e.dataset.dir}`;
  if (e.kind === 'split' || e.kind === 'judgements') return `${e.kind}\t${e.dataset.dir}\t${e.split.split}`;
  return `${e.kind}\t${e.dataset.dir}\t${e.split.split}\t${e.run.path}`;
}
