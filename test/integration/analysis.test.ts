// The analysis panels open from their commands in a real extension host, on the SciFact fixture.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension, datasetUri, waitFor } from './helpers';

interface ResultsModelLike {
  dataset: string;
  numQueries: number;
  baseline: string;
  rows: { key: string; label: string; means: number[]; vsBaseline: unknown[] | null }[];
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
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
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
});
