// "Run BEIR Eval" as a person meets it, in the extension host with the dialogs and quick inputs stubbed (the
// extension and this suite share the `vscode` API object): one multi-step input with Back; a model folder
// that holds no model is not saved to the settings and the error names the setting; the error's Open File
// reveals a folder in the Explorer and opens a file at its line.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, datasetUri, onRestore, restoreStubs, stub, waitFor } from './helpers';


interface ErrorShown {
  message: string;
  items: string[];
}

/** Error messages the extension shows, answered with `answer`. */
function captureErrors(answer?: string): ErrorShown[] {
  const shown: ErrorShown[] = [];
  stub(vscode.window, 'showErrorMessage', (message: string, ...items: string[]) => {
    shown.push({ message, items });
    return Promise.resolve(answer && items.includes(answer) ? answer : undefined);
  });
  return shown;
}

/** A fake quick input: records what the flow set and lets the test accept an item, type, or press Back. */
class FakeInput {
  title?: string;
  step?: number;
  totalSteps?: number;
  placeholder?: string;
  prompt?: string;
  value = '';
  validationMessage?: string;
  items: vscode.QuickPickItem[] = [];
  activeItems: vscode.QuickPickItem[] = [];
  selectedItems: vscode.QuickPickItem[] = [];
  buttons: vscode.QuickInputButton[] = [];
  ignoreFocusOut = false;
  private readonly accept = new vscode.EventEmitter<void>();
  private readonly button = new vscode.EventEmitter<vscode.QuickInputButton>();
  private readonly hide = new vscode.EventEmitter<void>();
  private readonly change = new vscode.EventEmitter<string>();
  onDidAccept = this.accept.event;
  onDidTriggerButton = this.button.event;
  onDidHide = this.hide.event;
  onDidChangeValue = this.change.event;
  constructor(private readonly shown: (i: FakeInput) => void) {}
  show(): void {
    this.shown(this);
  }
  dispose(): void {}
  pick(label: string): void {
    const item = this.items.find((i) => i.label === label);
    assert.ok(item, `no item "${label}" in ${this.items.map((i) => i.label).join(', ')}`);
    this.selectedItems = [item];
    this.accept.fire();
  }
  type(text: string): void {
    this.value = text;
    this.change.fire(text);
    this.accept.fire();
  }
  back(): void {
    assert.ok(this.buttons.includes(vscode.QuickInputButtons.Back), `step ${this.step} offers no Back`);
    this.button.fire(vscode.QuickInputButtons.Back);
  }
  escape(): void {
    this.hide.fire();
  }
}

/** Stubs createQuickPick/createInputBox; `next()` resolves with each input as the flow shows it. */
function fakeInputs(): { next(): Promise<FakeInput> } {
  const queue: FakeInput[] = [];
  const waiting: ((i: FakeInput) => void)[] = [];
  const shown = (i: FakeInput) => {
    const w = waiting.shift();
    if (w) w(i);
    else queue.push(i);
  };
  stub(vscode.window, 'createQuickPick', () => new FakeInput(shown));
  stub(vscode.window, 'createInputBox', () => new FakeInput(shown));
  return { next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((r) => waiting.push(r))) };
}

suite('Run BEIR Eval: flows', () => {
  suiteSetup(async () => {
    await activateExtension();
  });
  teardown(async () => {
    restoreStubs();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('one multi-step input: same title, step k/n, Back returns to the previous step with its answer', async () => {
    const inputs = fakeInputs();
    stub(vscode.window, 'showOpenDialog', () => Promise.resolve(undefined));
    const run = vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath });
    const split = await inputs.next();
    assert.equal(split.title, 'Run BEIR Eval');
    assert.deepEqual([split.step, split.totalSteps], [1, 2]);
    assert.deepEqual(split.buttons, [], 'no Back on the first step');
    assert.deepEqual(split.items.map((i) => i.label).sort(), ['test', 'train']);
    split.pick('test');
    const retriever = await inputs.next();
    assert.equal(retriever.title, 'Run BEIR Eval');
    assert.deepEqual([retriever.step, retriever.totalSteps], [2, 2]);
    retriever.pick('BM25');
    const params = await inputs.next();
    assert.deepEqual([params.title, params.step, params.totalSteps], ['Run BEIR Eval', 3, 3]);
    params.pick('Custom k1 and b…');
    const k1 = await inputs.next();
    assert.deepEqual([k1.title, k1.step, k1.totalSteps], ['Run BEIR Eval', 4, 5]);
    assert.match(k1.prompt!, /k1/);
    k1.back();
    const paramsAgain = await inputs.next();
    assert.deepEqual([paramsAgain.step, paramsAgain.totalSteps], [3, 5]);
    assert.equal(paramsAgain.activeItems[0]?.label, 'Custom k1 and b…', 'the answer given before going back is highlighted');
    paramsAgain.back();
    const retrieverAgain = await inputs.next();
    assert.equal(retrieverAgain.step, 2);
    assert.equal(retrieverAgain.activeItems[0]?.label, 'BM25');
    retrieverAgain.back();
    const splitAgain = await inputs.next();
    assert.equal(splitAgain.step, 1);
    assert.equal(splitAgain.activeItems[0]?.label, 'test');
    splitAgain.escape();
    assert.equal(await run, undefined, 'Escape ends the flow');
  });

  test('a picked model folder that holds no model is not saved; the error names the setting', async () => {
    const config = vscode.workspace.getConfiguration('irWorkbench');
    assert.equal(config.inspect('models.dense')?.workspaceValue, undefined);
    const empty = join(datasetUri('scifact').fsPath, '..', 'no-model');
    mkdirSync(empty, { recursive: true });
    stub(vscode.window, 'showOpenDialog', () => Promise.resolve([vscode.Uri.file(empty)]));
    const errors = captureErrors();
    const result = await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'dense' });
    assert.equal(result, undefined);
    await waitFor('the error', () => errors.length > 0);
    assert.match(errors[0].message, /no model\.onnx in the model folder/);
    assert.match(errors[0].message, /irWorkbench\.models\.dense/);
    assert.doesNotMatch(errors[0].message, /--model/);
    assert.equal(vscode.workspace.getConfiguration('irWorkbench').inspect('models.dense')?.workspaceValue, undefined, 'not saved');
    // The next run asks again.
    let asked = 0;
    stub(vscode.window, 'showOpenDialog', () => {
      asked++;
      return Promise.resolve(undefined);
    });
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'dense' });
    assert.equal(asked, 1);
  });

  test('Open File on an error about a folder reveals it in the Explorer', async () => {
    const empty = join(datasetUri('scifact').fsPath, '..', 'no-model');
    mkdirSync(empty, { recursive: true });
    stub(vscode.window, 'showOpenDialog', () => Promise.resolve([vscode.Uri.file(empty)]));
    const errors = captureErrors('Open File');
    const commands: { id: string; arg: unknown }[] = [];
    const execute = vscode.commands.executeCommand;
    stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
      commands.push({ id, arg: rest[0] });
      return execute(id, ...rest);
    });
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'dense' });
    await waitFor('the error', () => errors.length > 0);
    assert.deepEqual(errors[0].items, ['Open File']);
    const reveal = await waitFor('revealInExplorer', () => commands.find((c) => c.id === 'revealInExplorer'));
    assert.equal((reveal!.arg as vscode.Uri).fsPath, empty);
    assert.equal(vscode.window.activeTextEditor, undefined, 'no editor tried to open the folder');
  });

  test('Open File on an error about a file line opens the file at that line', async () => {
    const bad = join(datasetUri('scifact').fsPath, 'runs', 'bad-line.trec');
    mkdirSync(join(bad, '..'), { recursive: true });
    writeFileSync(bad, '1 Q0 31715818 1 10.5 r\n1 Q0 14717500 2 9.5 r\n1 Q0 not-a-score\n');
    captureErrors('Open File');
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'file', runFile: bad });
    const editor = await waitFor('the run file opened', () => (vscode.window.activeTextEditor?.document.uri.fsPath === bad ? vscode.window.activeTextEditor : undefined));
    assert.equal(editor!.selection.active.line, 2, 'the cursor on line 3, the bad line');
  });

  test('a cancelled run leaves no empty runs folder', async function () {
    this.timeout(60_000);
    const config = vscode.workspace.getConfiguration('irWorkbench');
    await config.update('runs.folder', 'runs-cancelled', vscode.ConfigurationTarget.Workspace);
    onRestore(() => void config.update('runs.folder', undefined, vscode.ConfigurationTarget.Workspace));
    const folder = join(datasetUri('scifact').fsPath, 'runs-cancelled');
    const infos: string[] = [];
    stub(vscode.window, 'showInformationMessage', (m: string) => {
      infos.push(m);
      return Promise.resolve(undefined);
    });
    // The user presses Cancel on the progress notification as soon as the run starts.
    stub(vscode.window, 'withProgress', (_o: unknown, task: (p: unknown, t: vscode.CancellationToken) => Promise<unknown>) => {
      const cancel = new vscode.EventEmitter<void>();
      const token = { isCancellationRequested: false, onCancellationRequested: cancel.event };
      const running = task({ report: () => undefined }, token);
      setTimeout(() => {
        token.isCancellationRequested = true;
        cancel.fire();
      }, 50);
      return running;
    });
    const result = await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'bm25' });
    assert.equal(result, undefined);
    assert.ok(infos.some((m) => /cancelled; no run file was written/.test(m)), infos.join(' | '));
    assert.ok(!existsSync(folder), `${folder} was left behind`);
  });
});
