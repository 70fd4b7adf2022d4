// The Datasets view in a real extension host, on the SciFact fixture: every bad line of a run in Problems,
// a left-out run marked in the tree, Re-index feedback, and the run rows' context menu (dialogs, quick pick
// and commands stubbed where they would block; the helper modules and this suite share `vscode`).
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { baselineKey } from '../../src/extension/baseline';
import { copyPath, deleteRun, diffWith, revealRun, setBaseline, type RunRow } from '../../src/extension/commands/runActions';
import { DatasetsTreeProvider } from '../../src/extension/views/datasetsTree';
import type { DatasetNode, RunNode, SplitNode } from '../../src/core/index/nodes';
import { activateExtension, datasetUri, manifest, restoreStubs, stub, waitFor } from './helpers';

const written: vscode.Uri[] = [];
async function writeRun(name: string, lines: string[]): Promise<vscode.Uri> {
  const uri = vscode.Uri.joinPath(datasetUri('scifact'), 'runs', name);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(`${lines.join('\n')}\n`));
  written.push(uri);
  return uri;
}

function runNode(path: string): RunNode {
  return { id: 1, path, tag: 't', createdAt: new Date(0).toISOString(), queryCount: 1, resultCount: 2, means: { ndcg_cut_10: 0.5 }, annotated: { ndcg_cut_10: 0.5 }, coverage: { answered: 1, total: 1 } };
}

function row(run: string, others: string[], leftOut: SplitNode['leftOut'] = []): RunRow {
  const split: SplitNode = {
    split: 'test',
    qrelsPath: null,
    annotationsPath: '',
    qrelsQueries: 1,
    qrelsCount: 1,
    judgementCount: 0,
    runs: [run, ...others].map(runNode),
    leftOut,
  };
  const dataset: DatasetNode = { id: 1, dir: datasetUri('scifact').fsPath, name: 'scifact', docCount: 1, queryCount: 1, splits: [split] };
  return { kind: 'run', dataset, split, run: split.runs[0] };
}

suite('Datasets view', () => {
  suiteSetup(async () => {
    await activateExtension();
  });
  teardown(async () => {
    restoreStubs();
    for (const uri of written.splice(0)) await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Problems lists every bad line of a run in one pass, with the count; Re-index says what it found', async () => {
    const bad = await writeRun('three-bad.trec', [
      '1 Q0 31715818 1 2.5 mine',
      '1 Q0 13734012 2',
      '3 Q0 14717500 1 high mine',
      '1 Q0 31715818 3 1.0 mine',
    ]);
    const messages: string[] = [];
    const record = (message: string) => {
      messages.push(message);
      return Promise.resolve(undefined);
    };
    stub(vscode.window, 'showInformationMessage', record);
    stub(vscode.window, 'showWarningMessage', record);
    await vscode.commands.executeCommand('irWorkbench.reindexWorkspace');
    const diagnostics = (await waitFor('the run file problems', () => {
      const d = vscode.languages.getDiagnostics(bad);
      return d.length === 3 ? d : undefined;
    }))!;
    // One per bad line, none on the good first line; the first gives the count.
    assert.deepEqual(diagnostics.map((d) => d.range.start.line).sort(), [1, 2, 3]);
    const at = (line: number) => diagnostics.filter((d) => d.range.start.line === line).map((d) => d.message);
    assert.ok(at(1).some((m) => /expected 6 columns, found 4/.test(m)));
    assert.ok(at(2).some((m) => /not a number/.test(m)));
    assert.ok(at(3).some((m) => /listed twice .*lines 1 and 4/.test(m)));
    assert.ok(at(1).some((m) => /The run is left out until the file is fixed\. 3 bad lines in this file\.$/.test(m)));
    const said = (await waitFor('the re-index message', () => messages.find((m) => /^IR Workbench: indexed /.test(m))))!;
    assert.match(said, /1 dataset, \d+ runs? \(1 run left out: bad file\)/);
    assert.match(said, /\d+ problems?/);
  });

  test('the tree shows a left-out run where it would be, with why, opening at its first bad line', () => {
    const tree = new DatasetsTreeProvider();
    const path = datasetUri('scifact').fsPath + '/runs/three-bad.trec';
    const r = row('/x/good.trec', [], [{ path, reason: 'line 2: expected 6 columns, found 4\n\n3 bad lines in this file.', line: 2 }]);
    tree.setData([r.dataset]);
    const [splitEl] = tree.getChildren(tree.getChildren()[0]);
    const children = tree.getChildren(splitEl);
    assert.deepEqual(children.map((c) => c.kind), ['run', 'leftOut']);
    const item = tree.getTreeItem(children[1]);
    assert.equal(item.description, 'left out: bad file');
    assert.equal(item.contextValue, 'irw.leftOutRun');
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.match((item.tooltip as vscode.MarkdownString).value.replace(/&nbsp;/g, ' '), /is left out.*expected 6 columns.*3 bad lines/s);
    const [uri, options] = item.command!.arguments as [vscode.Uri, { selection: vscode.Range }];
    assert.equal(uri.fsPath, path);
    assert.equal(options.selection.start.line, 1);
  });

  test('an update re-renders only the rows that changed, each the same object; a new run refreshes its split', () => {
    const tree = new DatasetsTreeProvider();
    const events: (string | string[])[] = [];
    tree.onDidChangeTreeData((e) => events.push(e === undefined ? 'root' : (Array.isArray(e) ? e : [e]).map((x) => x.kind)));
    const data = (means: number, runs: string[]) => {
      const r = row(runs[0], runs.slice(1));
      r.split.runs[0].means = { ndcg_cut_10: means };
      return [r.dataset];
    };
    tree.setData(data(0.5, ['/w/a.trec', '/w/b.trec']));
    const runsOf = () => tree.getChildren(tree.getChildren(tree.getChildren()[0])[0]);
    const [a, b] = runsOf();
    // The same figures again (the engine's split events repeat them): nothing to tell VS Code.
    tree.setData(data(0.5, ['/w/a.trec', '/w/b.trec']));
    // One run's figure moves: that row alone, the same object, showing the new figure.
    tree.setData(data(0.25, ['/w/a.trec', '/w/b.trec']));
    assert.equal(runsOf()[0], a);
    assert.equal(runsOf()[1], b);
    assert.match(String(tree.getTreeItem(a).description), /nDCG@10 0\.250/);
    // A run added: its split, with its rows, not the whole tree.
    tree.setData(data(0.25, ['/w/a.trec', '/w/b.trec', '/w/c.trec']));
    assert.deepEqual(events, ['root', ['run'], ['split']]);
    assert.equal(runsOf().length, 3);
  });

  test('a judgement re-renders leaf rows only (a refreshed parent row runs the view\'s progress bar while VS Code fetches its children)', () => {
    const tree = new DatasetsTreeProvider();
    const fired: vscode.TreeItem[][] = [];
    tree.onDidChangeTreeData((e) => e && fired.push((Array.isArray(e) ? e : [e]).map((x) => tree.getTreeItem(x))));
    const judged = (n: number, ndcg: number) => {
      const r = row('/w/a.trec', ['/w/b.trec']);
      r.split.judgementCount = n;
      r.split.runs[0].annotated = { ndcg_cut_10: ndcg };
      return [r.dataset];
    };
    tree.setData(judged(1, 0.5));
    const split = tree.getChildren(tree.getChildren()[0])[0];
    const yours = tree.getChildren(split)[0];
    assert.equal(yours.kind, 'judgements');
    assert.equal(tree.getTreeItem(yours).description, '1');
    fired.length = 0;
    for (const [n, ndcg] of [[2, 0.5], [3, 0.6], [4, 0.6]]) tree.setData(judged(n, ndcg));
    assert.equal(fired.length, 3);
    for (const items of fired) for (const item of items) assert.equal(item.collapsibleState, vscode.TreeItemCollapsibleState.None, `${String(item.label)} is a leaf`);
    assert.equal(tree.getTreeItem(yours).description, '4');
    assert.doesNotMatch(String(tree.getTreeItem(split).description), /yours/);
  });

  test('a run\'s tooltip is given on hover with the figures of then; figures only in it re-render its row only once it was shown', () => {
    const tree = new DatasetsTreeProvider();
    const fired: string[][] = [];
    tree.onDidChangeTreeData((e) => e && fired.push((Array.isArray(e) ? e : [e]).map((x) => x.kind)));
    // The engine's figures after a judgement, then with the range under the holes it computed in the background.
    const figures = (range?: { lo: number; hi: number }) => {
      const r = row('/w/a.trec', ['/w/b.trec']);
      r.split.judgementCount = 1;
      r.split.runs[0].annotated = { ndcg_cut_10: 0.5 };
      if (range) r.split.runs[0].ndcgRange = { ...range, exact: true, holes: 12 };
      return [r.dataset];
    };
    tree.setData(figures());
    const run = tree.getChildren(tree.getChildren(tree.getChildren()[0])[0]).find((e) => e.kind === 'run')!;
    const tip = () => (tree.resolveTreeItem(tree.getTreeItem(run), run).tooltip as vscode.MarkdownString).value;
    assert.equal(tree.getTreeItem(run).tooltip, undefined, 'given on hover, not sent with every rendering of the row');
    // A range computed while nobody looks at the tooltip: no row is drawn again.
    tree.setData(figures({ lo: 0.4, hi: 0.6 }));
    assert.deepEqual(fired, []);
    assert.match(tip(), /holes left in its top 10, with your judgements: \[0\.4000, 0\.6000\]/);
    // Once shown, VS Code keeps that tooltip for the row: a change of its figures re-renders the row, once.
    tree.setData(figures({ lo: 0.45, hi: 0.6 }));
    tree.setData(figures({ lo: 0.46, hi: 0.6 }));
    assert.deepEqual(fired, [['run']]);
    assert.match(tip(), /\[0\.4600, 0\.6000\]/);
  });

  test('run rows: the context menu is contributed for run rows and hidden from the palette', async () => {
    const pkg = manifest(await activateExtension()).contributes as unknown as {
      menus: Record<string, { command: string; when?: string }[]>;
    };
    const ids = ['irWorkbench.run.diffWith', 'irWorkbench.run.setBaseline', 'irWorkbench.run.reveal', 'irWorkbench.run.copyPath', 'irWorkbench.run.delete'];
    const registered = await vscode.commands.getCommands(true);
    for (const id of ids) {
      assert.ok(registered.includes(id), `${id} registered`);
      assert.equal(pkg.menus.commandPalette.find((m) => m.command === id)?.when, 'false', `${id} hidden from the palette`);
      assert.match(pkg.menus['view/item/context'].find((m) => m.command === id)?.when ?? '', /viewItem (==|=~) \/?\^?irw\\?\.\(?run/);
    }
  });

  test('Diff with… offers the other runs of the split and opens the diff with this run as a', async () => {
    const a = datasetUri('scifact').fsPath + '/runs/a.trec';
    const b = datasetUri('scifact').fsPath + '/runs/sub/b.trec';
    let offered: string[] = [];
    stub(vscode.window, 'showQuickPick', (items: { label: string; path: string }[]) => {
      offered = items.map((i) => i.path);
      return Promise.resolve(items[0]);
    });
    const calls: [string, unknown][] = [];
    const execute = vscode.commands.executeCommand;
    stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
      if (id === 'irWorkbench.showRunDiff') return Promise.resolve(void calls.push([id, rest[0]]));
      return execute(id, ...rest);
    });
    await diffWith(row(a, [b]));
    assert.deepEqual(offered, [b]);
    assert.deepEqual(calls, [['irWorkbench.showRunDiff', { dataset: datasetUri('scifact').fsPath, split: 'test', a, b }]]);
  });

  test('Set as baseline stores the run per split under irWorkbench.baseline:<dataset>\\t<split>', async () => {
    const values = new Map<string, unknown>();
    const memento = { keys: () => [...values.keys()], get: (k: string) => values.get(k), update: (k: string, v: unknown) => Promise.resolve(void values.set(k, v)) };
    stub(vscode.window, 'showInformationMessage', () => Promise.resolve(undefined));
    const r = row('/w/runs/a.trec', ['/w/runs/b.trec']);
    const tree = new DatasetsTreeProvider((dir, split) => memento.get(baselineKey(dir, split)) as string | undefined);
    tree.setData([r.dataset]);
    let refreshed = 0;
    tree.onDidChangeTreeData(() => refreshed++);
    // The baseline is marked by its icon (a word would push the figures out of a narrow sidebar).
    const runs = () => tree.getChildren(tree.getChildren(tree.getChildren()[0])[0]).map((e) => (tree.getTreeItem(e).iconPath as vscode.ThemeIcon).id);
    assert.ok(runs().every((d) => d !== 'star-full'));
    // The workbench keeps baselines (analysis.test.ts checks an open panel follows); here, the tree's mark.
    await setBaseline({ setBaseline: (dir, split, run) => memento.update(baselineKey(dir, split), run).then(() => tree.refresh()) }, r);
    assert.deepEqual([...values], [[`irWorkbench.baseline:${datasetUri('scifact').fsPath}\ttest`, '/w/runs/a.trec']]);
    assert.equal(baselineKey('/d', 's'), 'irWorkbench.baseline:/d\ts');
    // The tree marks it at once.
    assert.equal(refreshed, 1);
    assert.deepEqual(runs().map((d) => d === 'star-full'), [true, false]);
  });

  test('Reveal in Explorer and Copy path', async () => {
    const uri = await writeRun('reveal.trec', ['1 Q0 31715818 1 2.5 mine']);
    const revealed: vscode.Uri[] = [];
    const execute = vscode.commands.executeCommand;
    stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
      if (id === 'revealInExplorer') revealed.push(rest[0] as vscode.Uri);
      return execute(id, ...rest);
    });
    await revealRun(row(uri.fsPath, []));
    assert.equal(revealed[0]?.fsPath, uri.fsPath);
    await copyPath(row(uri.fsPath, []));
    assert.equal(await vscode.env.clipboard.readText(), uri.fsPath);
  });

  test('Delete asks first (modal, naming the file); cancelled keeps it, confirmed removes it and its sidecar', async () => {
    const uri = await writeRun('doomed.trec', ['1 Q0 31715818 1 2.5 mine']);
    const sidecar = vscode.Uri.file(`${uri.fsPath}.json`);
    await vscode.workspace.fs.writeFile(sidecar, new TextEncoder().encode('{}'));
    written.push(sidecar);
    const asked: { message: string; modal?: boolean; detail?: string; items: string[] }[] = [];
    const accept = { yes: false };
    stub(vscode.window, 'showWarningMessage', (message: string, options: vscode.MessageOptions, ...items: string[]) => {
      asked.push({ message, modal: options.modal, detail: options.detail, items });
      return Promise.resolve(accept.yes ? items[0] : undefined);
    });
    assert.equal(await deleteRun(row(uri.fsPath, [])), false);
    assert.ok(existsSync(uri.fsPath), 'cancelled: the file stays');
    assert.deepEqual([asked[0].message, asked[0].modal], ['Delete the run doomed.trec?', true]);
    // A browser window (this suite runs in code-server) has no trash: the question promises none, and says so.
    assert.equal(vscode.env.uiKind, vscode.UIKind.Web);
    assert.deepEqual(asked[0].items, ['Delete Permanently']);
    assert.match(asked[0].detail!, /no trash: the file is deleted for good/);
    assert.doesNotMatch(asked[0].detail!, /vscode-remote:|trash;/);
    accept.yes = true;
    assert.equal(await deleteRun(row(uri.fsPath, [])), true);
    assert.equal(asked.length, 2, 'one question, no second one after a failed trash');
    assert.ok(!existsSync(uri.fsPath), 'the run is gone');
    assert.ok(!existsSync(sidecar.fsPath), 'its sidecar is gone');
  });
});
