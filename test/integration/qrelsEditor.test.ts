// An open qrels file after "Change grade", in a real extension host on the SciFact fixture: the hover shows
// the grade in effect and its origin (original, or yours and when), and the overridden line is marked.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { overrides } from '../../src/extension/analysis/qrelsEditor';
import { activateExtension, datasetUri, restoreStubs, stub, waitFor } from './helpers';

async function hoverText(uri: vscode.Uri, line: number): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 0));
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n').replace(/&nbsp;/g, ' ');
}

suite('Qrels editor', () => {
  suiteSetup(async () => {
    await activateExtension();
  });
  teardown(async () => {
    restoreStubs();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('the hover shows the original grade, then yours with when after Change grade', async () => {
    const scifact = datasetUri('scifact');
    const qrelsUri = vscode.Uri.joinPath(scifact, 'qrels', 'test.tsv');
    const doc = await vscode.workspace.openTextDocument(qrelsUri);
    await vscode.window.showTextDocument(doc);
    // A line the other suites do not judge: the last one.
    const line = doc.lineCount - (doc.lineAt(doc.lineCount - 1).text.trim() ? 1 : 2);
    const [queryId, docId, original] = doc.lineAt(line).text.trim().split('\t');
    const before = await waitFor('the hover once the store indexed the split', async () => {
      const t = await hoverText(qrelsUri, line);
      return /\*\*Grade\*\*/.test(t) && !/not in queries\.jsonl/.test(t) ? t : undefined;
    }, 30_000);
    assert.match(before!, new RegExp(`\\*\\*Grade\\*\\* ${original}: original \\[Change grade\\]`));
    assert.match(before!, new RegExp(`\\*\\*Document\\*\\* ${docId}: \\S`));

    const started = Date.now();
    const grade = await vscode.commands.executeCommand('irWorkbench.changeGrade', { datasetDir: scifact.fsPath, split: 'test', queryId, docId, grade: 2 });
    assert.equal(grade, 2);
    const after = await hoverText(qrelsUri, line);
    const m = new RegExp(`\\*\\*Grade\\*\\* 2: yours, judged (.+) \\(original ${original}\\)`).exec(after);
    assert.ok(m, after);
    // The time is the judgement's, in the UI language's format (not a raw ISO string).
    assert.doesNotMatch(m[1], /\d{4}-\d\d-\d\dT/);
    assert.equal(m[1], new Date(m[1]).toLocaleString(vscode.env.language), 'shown to the second in the locale format');
    assert.ok(Math.abs(new Date(m[1]).getTime() - started) < 60_000, `${m[1]} is the time of the judgement`);

    // The same line is marked as overridden: "yours: 2 (was 1)".
    const lines = Array.from({ length: doc.lineCount }, (_, i) => doc.lineAt(i).text);
    assert.deepEqual(overrides(lines, [{ queryId, docId, grade: 2, at: null }]), [{ line, text: `yours: 2 (was ${original})` }]);
    assert.deepEqual(overrides(lines, [{ queryId, docId, grade: -1, at: null }]), [{ line, text: `yours: unjudged (−1) (was ${original})` }]);
    assert.deepEqual(overrides(lines, [{ queryId, docId, grade: Number(original), at: null }]), [{ line, text: `yours: ${original}` }]);
    assert.deepEqual(overrides(lines, []), []);
  });

  test('the grade picker names each grade with its label and, after a judgement of yours, offers Revert to original', async () => {
    const scifact = datasetUri('scifact');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(scifact, 'qrels', 'test.tsv'));
    // Another line the other suites do not judge: the one before the last.
    const line = doc.lineCount - (doc.lineAt(doc.lineCount - 1).text.trim() ? 2 : 3);
    const [queryId, docId, original] = doc.lineAt(line).text.trim().split('\t');
    const args = { datasetDir: scifact.fsPath, split: 'test', queryId, docId };
    const shown: (vscode.QuickPickItem & { grade: number })[][] = [];
    let pick = (items: (vscode.QuickPickItem & { grade: number })[]) => items.find((i) => i.grade === 0);
    stub(vscode.window, 'showQuickPick', (items: (vscode.QuickPickItem & { grade: number })[]) => {
      shown.push(items);
      return Promise.resolve(pick(items));
    });
    assert.equal(await vscode.commands.executeCommand('irWorkbench.changeGrade', args), 0);
    // SciFact's scale is 0-1; the labels are the setting's default ("*").
    assert.deepEqual(shown[0].map((i) => [i.label, i.description]), [['0 not relevant', undefined], ['1 relevant', 'current (original)']]);
    pick = (items) => items.find((i) => i.label === '$(discard) Revert to original');
    assert.equal(await vscode.commands.executeCommand('irWorkbench.changeGrade', args), Number(original));
    assert.deepEqual(shown[1].map((i) => [i.label, i.description]), [
      ['0 not relevant', 'current (yours)'],
      ['1 relevant', undefined],
      ['$(discard) Revert to original', `original ${original} relevant`],
    ]);
    // Back on the original grade: nothing to revert.
    pick = () => undefined;
    await vscode.commands.executeCommand('irWorkbench.changeGrade', args);
    assert.ok(!shown[2].some((i) => /Revert/.test(i.label)), 'no revert once the grade is the original');
  });
});
