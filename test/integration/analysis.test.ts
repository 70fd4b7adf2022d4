// The analysis panels open from their commands in a real extension host, on the SciFact fixture.
import * as assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { IrWorkbenchApi } from '../../src/extension/extension';
import { activateExtension, datasetUri, restoreStubs, stub, waitFor } from './helpers';

interface ResultsModelLike {
  dataset: string;
  numQueries: number;
  baseline: string;
  rows: { key: string; label: string; means: number[]; annotated: number[] | null; vsBaseline: unknown[] | null }[];
  judgements: number;
  untrusted: boolean;
}

async function writeRun(name: string, lines: string[]): Promise<string> {
  const uri = vscode.Uri.joinPath(datasetUri('scifact'), 'runs', name);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(`${lines.join('\n')}\n`));
  return uri.fsPath;
}

/** A perfect run and one that puts the relevant documents second, after an unjudged one. */
async function fixtureRuns(): Promise<{ perfect: string; worse: string }> {
  const qrels = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(datasetUri('scifact'), 'qrels', 'test.tsv')));
  const rows = qrels.split(/\r?\n/).slice(1).filter(Boolean).map((l) => l.split('\t'));
  const perfect = await writeRun('bm25-perfect.trec', rows.map(([q, d], i) => `${q} Q0 ${d} 1 ${1000 - i} perfect`));
  const worse = await writeRun(
    'second.trec',
    rows.flatMap(([q, d], i) => [`${q} Q0 unjudged-${i} 1 ${2000 - 2 * i} second`, `${q} Q0 ${d} 2 ${1999 - 2 * i} second`]),
  );
  return { perfect, worse };
}

/** The open webview tab whose label matches. */
function webviewTab(label: RegExp): vscode.Tab | undefined {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && label.test(t.label));
}

suite('Analysis panels', () => {
  let runs: { perfect: string; worse: string };
  suiteSetup(async () => {
    await activateExtension();
    runs = await fixtureRuns();
  });
  teardown(async () => {
    restoreStubs();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Show Results also reads the runs Import TREC Run puts in <workspace>/runs/<dataset>/', async () => {
    const scifact = datasetUri('scifact');
    const imported = vscode.Uri.joinPath(scifact, '..', 'runs', 'scifact', 'imported.trec');
    const perfect = await vscode.workspace.fs.readFile(vscode.Uri.file(runs.perfect));
    await vscode.workspace.fs.writeFile(imported, new TextEncoder().encode(new TextDecoder().decode(perfect).replace(/perfect$/gm, 'imported')));
    try {
      const model = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: scifact.fsPath, split: 'test' });
      const row = model.rows.find((r) => r.key === imported.fsPath);
      assert.ok(row, `imported run missing from ${model.rows.map((r) => r.key).join(', ')}`);
      assert.equal(row.means[0], 1);
    } finally {
      await vscode.workspace.fs.delete(imported);
    }
  });

  test('Show Results opens the results panel with every run of the split and significance against the baseline', async () => {
    const scifact = datasetUri('scifact').fsPath;
    const model = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: scifact, split: 'test' });
    assert.ok(model, 'no model returned');
    assert.equal(model.numQueries, 300);
    assert.equal(model.baseline, runs.perfect, 'a run named bm25 is the default baseline');
    const perfect = model.rows.find((r) => r.key === runs.perfect)!;
    const worse = model.rows.find((r) => r.key === runs.worse)!;
    assert.equal(perfect.means[0], 1);
    assert.ok(worse.means[0] < 1 && worse.means[0] > 0.5);
    assert.ok(Array.isArray(worse.vsBaseline));
    assert.equal(model.untrusted, false);
    await waitFor('the results panel tab', () => webviewTab(/^Results: scifact \(test\)$/));
  });

  test('Show Results from a split of the Datasets view; a rewritten run file is read again', async () => {
    const dir = datasetUri('scifact').fsPath;
    const node = { kind: 'split', dataset: { dir }, split: { split: 'test' } };
    const before = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', node);
    assert.ok(before.rows.some((r) => r.key === runs.perfect));
    const qrels = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(datasetUri('scifact'), 'qrels', 'test.tsv')));
    const firstQuery = qrels.split(/\r?\n/)[1].split('\t');
    const onlyOne = await writeRun('bm25-perfect.trec', [`${firstQuery[0]} Q0 ${firstQuery[1]} 1 1 perfect`]);
    try {
      const after = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', node);
      assert.ok(after.rows.find((r) => r.key === onlyOne)!.means[0] < 0.01, 'the rewritten run now ranks one query');
    } finally {
      runs = await fixtureRuns();
    }
  });

  test("the tree's Set as Baseline reaches the open Results panel at once", async () => {
    const dir = datasetUri('scifact').fsPath;
    const api = (await activateExtension()).exports as IrWorkbenchApi;
    const model = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: dir, split: 'test' });
    const other = model.rows.map((r) => r.key).find((k) => k !== model.baseline)!;
    const row = { kind: 'run', dataset: { dir, name: 'scifact' }, split: { split: 'test' }, run: { path: other } };
    try {
      await vscode.commands.executeCommand('irWorkbench.run.setBaseline', row);
      assert.equal(api.baselineOf(dir, 'test'), other);
    } finally {
      await vscode.commands.executeCommand('irWorkbench.run.setBaseline', { ...row, run: { path: model.baseline } });
    }
  });

  test('Run BEIR Eval opens the results panel when it has figures', async () => {
    const scifact = datasetUri('scifact').fsPath;
    const figures = await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: scifact, split: 'test', retriever: 'file', runFile: runs.worse });
    assert.ok(figures, 'Run BEIR Eval returned no figures');
    await waitFor('the results panel tab', () => webviewTab(/^Results: scifact \(test\)$/));
  });

  test('Show Run Diff opens a diff panel of two runs with per-query deltas', async () => {
    const scifact = datasetUri('scifact').fsPath;
    const model = await vscode.commands.executeCommand<{ queries: string[]; deltas: number[]; meanA: number; meanB: number; holes: number[] }>(
      'irWorkbench.showRunDiff',
      { dataset: scifact, split: 'test', a: runs.perfect, b: runs.worse },
    );
    assert.ok(model, 'no diff model returned');
    assert.equal(model.queries.length, 300);
    assert.equal(model.meanA, 1);
    assert.ok(model.deltas.every((d) => d < 0), 'the second run loses every query to the perfect one');
    assert.ok(model.holes.every((h) => h === 1), 'every query has an unjudged document in the second run');
    await waitFor('the diff panel tab', () => webviewTab(/^Diff: second vs bm25-perfect$/));
  });

  test('with a Results panel of a split active, Show Holes, Judge Holes and Show Run Diff take its split; the Diff asks only for b', async () => {
    const scifact = datasetUri('scifact').fsPath;
    await vscode.commands.executeCommand('irWorkbench.showResults', { dataset: scifact, split: 'test' });
    await waitFor('the results panel active', () => webviewTab(/^Results: scifact \(test\)$/)?.isActive);
    const asked: string[] = [];
    stub(vscode.window, 'showQuickPick', (items: { key?: string; label: string }[], o: { title?: string }) => {
      asked.push(o?.title ?? '');
      return Promise.resolve(items.find((i) => i.key === runs.worse));
    });
    const holes = await vscode.commands.executeCommand<{ dataset: string; split: string }>('irWorkbench.showHoles');
    assert.deepEqual([holes?.dataset, holes?.split, asked], ['scifact', 'test', []], 'no dataset or split asked');
    // The Holes panel is now the active one, of the same split.
    const diff = await vscode.commands.executeCommand<{ a: { key: string }; b: { key: string } }>('irWorkbench.showRunDiff');
    assert.deepEqual(asked, ['Run diff: run b (compared with bm25-perfect)'], 'one pick: b against the baseline');
    assert.deepEqual([diff?.a.key, diff?.b.key], [runs.perfect, runs.worse]);
  });

  test('Show Holes opens the holes panel with both Hole@10 definitions and the depth-10 pool', async () => {
    const scifact = datasetUri('scifact').fsPath;
    const model = await vscode.commands.executeCommand<{ rows: { key: string; holeBeir: number; holeQuery: number }[]; poolSize: number; remaining: number }>(
      'irWorkbench.showHoles',
      { dataset: scifact, split: 'test' },
    );
    assert.ok(model, 'no holes model returned');
    const second = model.rows.find((r) => r.key === runs.worse)!;
    // Its unjudged documents are judged for no query either: both definitions agree, at least 1 of 10 per query.
    assert.ok(second.holeBeir >= 0.1 && second.holeBeir <= 0.5, String(second.holeBeir));
    assert.equal(second.holeQuery, second.holeBeir);
    assert.equal(model.rows.find((r) => r.key === runs.perfect)!.holeBeir, 0);
    assert.ok(model.poolSize >= 300 && model.remaining === model.poolSize);
    await waitFor('the holes panel tab', () => webviewTab(/^Holes: scifact \(test\)$/));
  });

  test('judging in the sidebar appends the grade durably and every model shows the annotated scores', async () => {
    const scifact = datasetUri('scifact');
    type State = { item: { queryId: string; docId: string; grade: number | null } | null; index: number; total: number; judged: number; scores: { label: string; original: number; annotated: number }[] };
    const start = await vscode.commands.executeCommand<State>('irWorkbench.judgeHoles', { dataset: scifact.fsPath, split: 'test' });
    assert.ok(start?.item, 'the queue has a first pair');
    const { queryId, docId } = start.item;
    assert.match(docId, /^unjudged-/);
    const after = await vscode.commands.executeCommand<State>('irWorkbench.judgeCurrent', { grade: 1 });
    assert.equal(after.index, start.index + 1);
    assert.equal(after.judged, start.judged + 1);
    // On disk before the command returned: the store's annotation file has the line.
    const file = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(scifact, 'qrels', 'test.annotations.tsv')));
    assert.ok(file.split('\n').includes(`${queryId}\t${docId}\t1`), file);
    const second = after.scores.find((r) => r.label === 'second')!;
    assert.ok(second.annotated > second.original, 'judging a hole relevant raises the run that retrieved it');
    const results = await vscode.commands.executeCommand<ResultsModelLike>(
      'irWorkbench.showResults',
      { dataset: scifact.fsPath, split: 'test' },
    );
    assert.equal(results.judgements, 1);
    assert.equal(results.rows.find((r) => r.key === runs.worse)!.annotated![0], second.annotated);
  });

  test('an open qrels file shows query text and document title per line, and Change Grade records a judgement', async () => {
    const scifact = datasetUri('scifact');
    const qrelsUri = vscode.Uri.joinPath(scifact, 'qrels', 'test.tsv');
    const doc = await vscode.workspace.openTextDocument(qrelsUri);
    await vscode.window.showTextDocument(doc);
    const [queryId, docId] = doc.lineAt(1).text.split('\t');
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', qrelsUri, new vscode.Position(1, 0));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n').replace(/&nbsp;/g, ' ');
    assert.match(text, new RegExp(`\\*\\*Query\\*\\* ${queryId}: \\S`));
    assert.match(text, new RegExp(`\\*\\*Document\\*\\* ${docId}: \\S`));
    assert.match(text, /Change grade\]\(command:irWorkbench\.changeGrade\?/);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', qrelsUri, 10);
    assert.ok(lenses.length >= 10, `${lenses.length} lenses (the first 10 resolved)`);
    const first = lenses.find((l) => l.range.start.line === 1)!;
    assert.equal(first.command?.command, 'irWorkbench.changeGrade');
    assert.match(first.command!.title, / · change grade$/);
    const grade = await vscode.commands.executeCommand('irWorkbench.changeGrade', { datasetDir: scifact.fsPath, split: 'test', queryId, docId, grade: 0 });
    assert.equal(grade, 0);
    const annotations = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(scifact, 'qrels', 'test.annotations.tsv')));
    assert.ok(annotations.split('\n').includes(`${queryId}\t${docId}\t0`));
    const original = new TextDecoder().decode(await vscode.workspace.fs.readFile(qrelsUri));
    assert.equal(original, doc.getText(), 'the original qrels file is never written');
  });

  test('a judgement appended to the annotations file from outside reaches the open views', async () => {
    const scifact = datasetUri('scifact');
    const dir = scifact.fsPath;
    const before = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: dir, split: 'test' });
    const qrels = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(scifact, 'qrels', 'test.tsv')));
    const queryId = qrels.split(/\r?\n/)[1].split('\t')[0];
    appendFileSync(join(dir, 'qrels', 'test.annotations.tsv'), `${queryId}\texternally-judged\t2\n`);
    await waitFor('the external judgement in the results model', async () => {
      const m = await vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: dir, split: 'test' });
      return m.judgements === before.judgements + 1;
    });
  });
});
