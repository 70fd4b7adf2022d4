// "Run BEIR Eval" as a person meets it, in the extension host with the dialogs and quick inputs stubbed (the
// extension and this suite share the `vscode` API object): one multi-step input with Back; a model folder
// that holds no model is not saved to the settings and the error names the setting; the error's Open File
// reveals a folder in the Explorer and opens a file at its line.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Warnings and errors the extension shows, answered in turn from `answers`. */
function answerMessages(answers: (string | undefined)[]): (ErrorShown & { kind: 'warning' | 'error' })[] {
  const shown: (ErrorShown & { kind: 'warning' | 'error' })[] = [];
  const answer = (kind: 'warning' | 'error') => (message: string, ...items: string[]) => {
    shown.push({ kind, message, items });
    const a = answers.shift();
    return Promise.resolve(a && items.includes(a) ? a : undefined);
  };
  stub(vscode.window, 'showWarningMessage', answer('warning'));
  stub(vscode.window, 'showErrorMessage', answer('error'));
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
    // No count while an answer to come can change it (the retriever and its parameters add steps).
    assert.deepEqual([split.step, split.totalSteps], [1, undefined]);
    assert.deepEqual(split.buttons, [], 'no Back on the first step');
    assert.deepEqual(split.items.map((i) => i.label).sort(), ['test', 'train']);
    split.pick('test');
    const retriever = await inputs.next();
    assert.equal(retriever.title, 'Run BEIR Eval');
    assert.deepEqual([retriever.step, retriever.totalSteps], [2, undefined]);
    retriever.pick('BM25');
    const params = await inputs.next();
    assert.deepEqual([params.title, params.step, params.totalSteps], ['Run BEIR Eval', 3, undefined]);
    params.pick('Custom k1 and b…');
    const k1 = await inputs.next();
    assert.deepEqual([k1.title, k1.step, k1.totalSteps], ['Run BEIR Eval', 4, 6]);
    assert.match(k1.prompt!, /k1/);
    k1.back();
    const paramsAgain = await inputs.next();
    assert.deepEqual([paramsAgain.step, paramsAgain.totalSteps], [3, 6]);
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

  test('BM25 with RM3 and a top-k picked in the flow: the run has them; the count never grows on the way forward', async function () {
    this.timeout(180_000);
    const inputs = fakeInputs();
    const shown: [number | undefined, number | undefined][] = [];
    const next = async () => {
      const i = await inputs.next();
      shown.push([i.step, i.totalSteps]);
      return i;
    };
    const scifact = datasetUri('scifact').fsPath;
    const run = vscode.commands.executeCommand<{ runFile: string; numQ: number } | undefined>('irWorkbench.runBeirEval', { dataset: scifact });
    (await next()).pick('test');
    (await next()).pick('BM25');
    const params = await next();
    assert.ok(params.items.some((i) => i.label === 'k1 0.9, b 0.4, flat + RM3'), 'RM3 with Anserini\'s defaults is offered');
    params.pick('Custom RM3…');
    const fbTerms = await next();
    assert.match(fbTerms.prompt!, /feedback terms/);
    assert.equal(fbTerms.value, '10');
    fbTerms.type('5');
    const fbDocs = await next();
    assert.equal(fbDocs.value, '10');
    fbDocs.type('3');
    const weight = await next();
    weight.type('1.5');
    assert.ok(weight.validationMessage, 'a weight above 1 is refused');
    weight.type('0.6');
    const topK = await next();
    assert.match(topK.prompt!, /Hits per query/);
    assert.equal(topK.value, '1000');
    topK.type('20');
    const figures = await run;
    assert.ok(figures, 'the run was evaluated');
    assert.deepEqual(shown, [[1, undefined], [2, undefined], [3, undefined], [4, 7], [5, 7], [6, 7], [7, 7]]);
    assert.match(figures.runFile, /bm25-flat-rm3\.test\./);
    const perQuery = new Map<string, number>();
    for (const line of readFileSync(figures.runFile, 'utf8').split('\n').filter(Boolean)) {
      const q = line.split(/\s+/)[0];
      perQuery.set(q, (perQuery.get(q) ?? 0) + 1);
    }
    assert.equal(perQuery.size, 300);
    assert.equal(Math.max(...perQuery.values()), 20, 'top-k 20');
    // RM3 changed the ranking: plain BM25 at the same depth ranks otherwise.
    const plain = await vscode.commands.executeCommand<{ runFile: string } | undefined>('irWorkbench.runBeirEval', { dataset: scifact, split: 'test', retriever: 'bm25', topK: 20 });
    assert.ok(plain);
    assert.doesNotMatch(plain.runFile, /rm3/);
    const docs = (f: string) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/\s+/).slice(0, 3).join(' '));
    assert.equal(docs(plain.runFile).length, 300 * 20);
    assert.notDeepEqual(docs(figures.runFile), docs(plain.runFile));
  });

  test('dense with no model set: Browse…, Open Settings and the docs on getting a model; a bad folder is not saved', async () => {
    const config = vscode.workspace.getConfiguration('irWorkbench');
    assert.equal(config.inspect('models.dense')?.workspaceValue, undefined);
    const empty = join(datasetUri('scifact').fsPath, '..', 'no-model');
    mkdirSync(empty, { recursive: true });
    const dialogs: string[] = [];
    stub(vscode.window, 'showOpenDialog', () => {
      dialogs.push('open');
      return Promise.resolve([vscode.Uri.file(empty)]);
    });
    const messages = answerMessages(['Browse…', undefined]);
    const args = { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'dense' };
    assert.equal(await vscode.commands.executeCommand('irWorkbench.runBeirEval', args), undefined);
    await waitFor('two messages', () => messages.length === 2);
    assert.equal(messages[0].kind, 'warning');
    assert.match(messages[0].message, /needs a bi-encoder model, .*model\.onnx.*\. None is set in irWorkbench\.models\.dense\.$/);
    assert.deepEqual(messages[0].items, ['Browse…', 'Open Settings', 'How to Get a Model']);
    assert.deepEqual(dialogs, ['open'], 'Browse… opened the folder dialog');
    assert.equal(messages[1].kind, 'error');
    // Two sentences, apart, on one line (a notification shows no line breaks).
    assert.match(messages[1].message, /no model\.onnx in the model folder\. Pick .*irWorkbench\.models\.dense/);
    assert.doesNotMatch(messages[1].message, /\n|--model/);
    assert.deepEqual(messages[1].items, ['Browse…', 'Open Settings', 'How to Get a Model', 'Open File']);
    assert.equal(vscode.workspace.getConfiguration('irWorkbench').inspect('models.dense')?.workspaceValue, undefined, 'not saved');

    // Open Settings opens the setting; How to Get a Model opens the docs at their section.
    const commands: { id: string; arg: unknown }[] = [];
    const execute = vscode.commands.executeCommand;
    stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
      commands.push({ id, arg: rest[0] });
      return id === 'workbench.action.openSettings' ? Promise.resolve() : execute(id, ...rest);
    });
    answerMessages(['Open Settings']);
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', args);
    await waitFor('the settings', () => commands.find((c) => c.id === 'workbench.action.openSettings'));
    assert.deepEqual(commands.find((c) => c.id === 'workbench.action.openSettings')!.arg, 'irWorkbench.models.dense');
    answerMessages(['How to Get a Model']);
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', args);
    const editor = await waitFor('the docs', () => (vscode.window.activeTextEditor?.document.uri.fsPath.endsWith(join('docs', 'cli.md')) ? vscode.window.activeTextEditor : undefined));
    assert.equal(editor!.document.lineAt(editor!.selection.active.line).text, '### Getting an ONNX model');
    assert.deepEqual(dialogs, ['open'], 'no dialog unless Browse… was pressed');
  });

  test('Open File on an error about a folder reveals it in the Explorer', async () => {
    const empty = join(datasetUri('scifact').fsPath, '..', 'no-model');
    mkdirSync(empty, { recursive: true });
    stub(vscode.window, 'showOpenDialog', () => Promise.resolve([vscode.Uri.file(empty)]));
    const messages = answerMessages(['Browse…', 'Open File']);
    const commands: { id: string; arg: unknown }[] = [];
    const execute = vscode.commands.executeCommand;
    stub(vscode.commands, 'executeCommand', (id: string, ...rest: unknown[]) => {
      commands.push({ id, arg: rest[0] });
      return execute(id, ...rest);
    });
    await vscode.commands.executeCommand('irWorkbench.runBeirEval', { dataset: datasetUri('scifact').fsPath, split: 'test', retriever: 'dense' });
    await waitFor('the error', () => messages.length === 2);
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
