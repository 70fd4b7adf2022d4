// "Run BEIR Eval" end to end in the extension host: arguments skip the quick picks, the command returns the
// figures it shows.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension, datasetUri, restoreStubs, stub } from './helpers';

interface Figures {
  runFile: string;
  runId: string;
  numQ: number;
  mean: Record<string, number>;
}

async function runBeirEval(args: object): Promise<Figures> {
  const figures = await vscode.commands.executeCommand<Figures | undefined>('irWorkbench.runBeirEval', args);
  assert.ok(figures, 'Run BEIR Eval returned no figures');
  return figures;
}

suite('Run BEIR Eval', () => {
  suiteSetup(async () => {
    await activateExtension();
  });

  test('evaluates an existing run file against the split (a perfect run scores 1)', async () => {
    const scifact = datasetUri('scifact');
    const qrels = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(scifact, 'qrels', 'test.tsv')));
    const lines = qrels.split(/\r?\n/).slice(1).filter(Boolean).map((l) => l.split('\t'));
    const run = lines.map(([q, d], i) => `${q} Q0 ${d} 1 ${1000 - i} perfect`).join('\n');
    const runFile = vscode.Uri.joinPath(scifact, 'runs', 'perfect.trec');
    await vscode.workspace.fs.writeFile(runFile, new TextEncoder().encode(run));
    const infos: string[] = [];
    stub(vscode.window, 'showInformationMessage', (m: string) => {
      infos.push(m);
      return Promise.resolve(undefined);
    });
    const figures = await runBeirEval({ dataset: scifact.fsPath, split: 'test', retriever: 'file', runFile: runFile.fsPath }).finally(restoreStubs);
    assert.equal(figures.runId, 'perfect');
    // The notification names the measures as the panels do, and the qrels its figures are on.
    assert.equal(infos.length, 1, infos.join(' | '));
    assert.match(infos[0], /original qrels( and with your \d+ judgements?)?: nDCG@10 1\.0000( \(1\.0000 with your judgements\))? · R@100 1\.0000/);
    assert.doesNotMatch(infos[0], /ndcg_cut|recall_/);
    assert.equal(figures.numQ, 300);
    assert.equal(figures.mean.ndcg_cut_10, 1);
    assert.equal(figures.mean.recall_100, 1);
  });

  test('runs BM25 in the child process and gets Anserini\'s SciFact figure', async function () {
    this.timeout(120_000);
    const scifact = datasetUri('scifact');
    const figures = await runBeirEval({ dataset: scifact.fsPath, split: 'test', retriever: 'bm25' });
    assert.equal(figures.numQ, 300);
    // Anserini's BEIR regression, flat index: nDCG@10 0.6789, R@100 0.9253.
    assert.ok(Math.abs(figures.mean.ndcg_cut_10 - 0.6789) < 0.005, `nDCG@10 ${figures.mean.ndcg_cut_10}`);
    assert.ok(Math.abs(figures.mean.recall_100 - 0.9253) < 0.01, `R@100 ${figures.mean.recall_100}`);
    const stat = await vscode.workspace.fs.stat(vscode.Uri.file(figures.runFile));
    assert.ok(stat.size > 0);
  });

  test('the tuning step: BM25 tuned by cross-validation in the child process, the run and its sidecar saying so', async function () {
    this.timeout(600_000);
    const scifact = datasetUri('scifact');
    const figures = await runBeirEval({ dataset: scifact.fsPath, split: 'test', retriever: 'bm25', tune: true });
    assert.equal(figures.numQ, 300);
    assert.match(figures.runFile, /bm25-flat-tuned\.test\./);
    const sidecar = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(`${figures.runFile}.json`)))) as {
      provenance: { command: string; tuning: { settings: number; onTestSplit: boolean; chosen: string } };
      k1: number;
      b: number;
    };
    assert.equal(sidecar.provenance.command, 'IR Workbench: Run BEIR Eval');
    assert.equal(sidecar.provenance.tuning.settings, 99);
    assert.equal(sidecar.provenance.tuning.onTestSplit, true);
    assert.equal(sidecar.provenance.tuning.chosen, `k1=${sidecar.k1} b=${sidecar.b}`);
  });
});
