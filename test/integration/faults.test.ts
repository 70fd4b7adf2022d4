// Faults seen in a real extension host (issue 28 items 1 and 3), on the SciFact fixture: the annotations file
// replaced by another program while judging, and a snapshot that cannot be saved.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { IrWorkbenchApi } from '../../src/extension/extension';
import { activateExtension, datasetUri, restoreStubs, stub, waitFor } from './helpers';

interface ResultsModelLike {
  judgements: number;
}

/** Judgements in effect in an annotations file: the last grade of each pair, unjudged (-1) not counted. */
function judgementsIn(tsv: string): number {
  const last = new Map<string, number>();
  for (const line of readFileSync(tsv, 'utf8').split('\n').slice(1)) {
    const f = line.split('\t');
    if (f.length === 3) last.set(`${f[0]}\t${f[1]}`, Number(f[2]));
  }
  return [...last.values()].filter((g) => g >= 0).length;
}

suite('Faults', () => {
  const scifact = datasetUri('scifact');
  const dir = scifact.fsPath;
  const tsv = join(dir, 'qrels', 'test.annotations.tsv');
  const judge = (queryId: string, docId: string, grade: number) =>
    vscode.commands.executeCommand<number>('irWorkbench.changeGrade', { datasetDir: dir, split: 'test', queryId, docId, grade });
  const results = () => vscode.commands.executeCommand<ResultsModelLike>('irWorkbench.showResults', { dataset: dir, split: 'test' });
  const run = join(dir, 'runs', 'faults.trec');
  let queryId: string;
  let saved: Buffer | undefined;

  suiteSetup(async () => {
    await activateExtension();
    const qrels = readFileSync(join(dir, 'qrels', 'test.tsv'), 'utf8').split('\n').slice(1).filter(Boolean).map((l) => l.split('\t'));
    queryId = qrels[0][0];
    // A run of the split, so its views open (this suite may run alone: IRW_TEST_GREP=Faults).
    mkdirSync(dirname(run), { recursive: true });
    writeFileSync(run, qrels.map(([q, d], i) => `${q} Q0 ${d} 1 ${1000 - i} faults\n`).join(''));
    saved = existsSync(tsv) ? readFileSync(tsv) : undefined;
  });
  suiteTeardown(async () => {
    restoreStubs();
    rmSync(run, { force: true });
    // The other suites count this split's judgements: its annotations file as it was.
    if (saved) writeFileSync(tsv, saved);
    else rmSync(tsv, { force: true });
    await vscode.commands.executeCommand('irWorkbench.reindexWorkspace');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('annotations replaced by rename (sed -i) while judging: later judgements are in the file, the views count what it holds', async () => {
    await judge(queryId, 'faults-a', 1);
    await judge(queryId, 'faults-b', 0);
    // Another program (sed -i '/faults-a/d') writes the file without one line and renames it over.
    writeFileSync(`${tsv}.sed`, readFileSync(tsv, 'utf8').replace(`${queryId}\tfaults-a\t1\n`, ''));
    renameSync(`${tsv}.sed`, tsv);
    await judge(queryId, 'faults-c', 1);
    await judge(queryId, 'faults-d', 1);
    const lines = readFileSync(tsv, 'utf8');
    for (const d of ['faults-b\t0', 'faults-c\t1', 'faults-d\t1']) assert.ok(lines.includes(`${queryId}\t${d}\n`), `${d} in ${lines}`);
    assert.ok(!lines.includes('faults-a'), "the other program's edit is kept");
    await waitFor('the views to count the judgements the file holds', async () => (await results()).judgements === judgementsIn(tsv), 20_000);
  });

  test('a snapshot that cannot be saved (a folder at its path) is a warning: every judgement is confirmed, the views answer', async () => {
    const snapshot = ((await activateExtension()).exports as IrWorkbenchApi).snapshotPath!;
    await waitFor('the snapshot of this workspace', () => existsSync(snapshot), 20_000);
    rmSync(snapshot, { recursive: true, force: true });
    mkdirSync(snapshot);
    const warnings: string[] = [];
    stub(vscode.window, 'showWarningMessage', async (m: string) => (warnings.push(m), undefined));
    try {
      for (let i = 0; i < 12; i++) {
        await judge(queryId, `snap-${i}`, i % 2);
        // The snapshot is saved 5 s after a change: let it try (and fail) between judgements.
        if (i % 4 === 3) await new Promise((r) => setTimeout(r, 5_500));
      }
      const lines = readFileSync(tsv, 'utf8');
      for (let i = 0; i < 12; i++) assert.ok(lines.includes(`${queryId}\tsnap-${i}\t${i % 2}\n`), `judgement ${i} on disk`);
      assert.ok(warnings.some((w) => /snapshot could not be saved/.test(w)), warnings.join('\n'));
      assert.equal(warnings.filter((w) => /snapshot could not be saved/.test(w)).length, 1, 'said once');
      await waitFor('the views to count every judgement', async () => (await results()).judgements === judgementsIn(tsv), 20_000);
      assert.ok(statSync(snapshot).isDirectory());
      assert.deepEqual(readdirSync(dirname(snapshot)).filter((f) => f.includes('store.sqlite') && f !== 'store.sqlite'), [], 'no temporary file left');
    } finally {
      rmSync(snapshot, { recursive: true, force: true });
    }
  });
});
