// Why is this document ranked here, and what if the query were different: in the Diff of our BM25 run (made by
// Run BEIR Eval, with its settings in its sidecar) and the shared MiniLM run, "why?" breaks the top document's
// BM25 score down term by term (the MiniLM run, imported, says why it has none), and one what-if edit (a term's
// weight tripled) re-runs the query with the BM25 run's settings and shows the new ranking and its measures.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Explain in the diff: why? breaks a BM25 rank down; a what-if edit re-runs the query';

const MINILM = 'minilm-faiss.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns }) {
  const runs = join(workspace, 'scifact', 'runs');
  mkdirSync(runs, { recursive: true });
  if (!existsSync(join(runs, `${MINILM}.trec`))) copyFileSync(join(sharedRuns, 'scifact', `${MINILM}.trec`), join(runs, `${MINILM}.trec`));
  const ours = () => readdirSync(runs).find((f) => /^bm25-flat\.test\..*\.trec$/.test(f));
  if (!ours()) {
    // Run alone (IRW_E2E_GREP): make the BM25 run as scenario 10 does.
    await wb.runCommand('IR Workbench: Run BEIR Eval');
    await wb.pick('Run BEIR Eval (1/2)', 'test');
    await wb.pick('Run BEIR Eval (2/2)', 'BM25');
    await wb.pick('Run BEIR Eval (3/3)', 'k1 0.9, b 0.4, flat');
    await wb.notification(/^IR Workbench: .* on scifact \(test\): /, { timeout: 120_000 });
  }
  const bm25 = ours().replace(/\.trec$/, '');
  // Runs are named as in the Datasets view: the file stem, with its folder when another run shares the stem.
  const label = (r) => (existsSync(join(workspace, 'runs', 'scifact', `${r}.trec`)) ? `runs/${r}` : r);
  await wb.commandWithPicks('IR Workbench: Show Run Diff', [
    ['Split of scifact', 'test'],
    ['Run diff: run a', label(bm25)],
    ['Run diff: run b', label(MINILM)],
  ]);
  const panel = await wb.webview('#deltas');
  await panel.locator('h1', { hasText: 'Run diff' }).waitFor({ timeout: 30_000 });
  const first = panel.locator('#queries tr').first();
  const queryId = await first.getAttribute('data-query');
  await first.click();
  await panel.locator('#list-a .doc').first().waitFor({ timeout: 30_000 });

  // why? on a's top document: a's breakdown reproduces its score at rank 1; b (imported) has none, and says why.
  const top = panel.locator('#list-a .doc').first();
  const docId = await top.getAttribute('data-doc');
  await top.locator('button.why').click();
  const a = panel.locator('#explain .explanation').nth(0);
  await a.locator('.sum').waitFor({ timeout: 60_000 });
  assert.match(await a.locator('h3').textContent(), /rank 1, score /);
  assert.ok((await a.locator('table.terms tbody tr').count()) > 0, 'the matched query terms are listed');
  assert.match(await a.locator('.sum').textContent(), /at rank 1$/);
  assert.match(await panel.locator('#explain .explanation').nth(1).textContent(), /records how this run was made/);
  assert.equal(await panel.locator('#explain').getAttribute('data-doc'), docId);
  await shot('why a document is ranked here');

  // What if: the editor starts from the BM25 run's own query (b is not a BM25 run: a is used); triple the first
  // term's weight and run it.
  const weights = panel.locator('#what-if-terms input.weight');
  await weights.first().waitFor({ timeout: 60_000 });
  await panel.locator('#what-if-measures').waitFor({ timeout: 60_000 });
  const before = await panel.locator('#what-if-ranking tbody tr').first().getAttribute('data-doc');
  assert.equal(before, docId, 'with no edit, the query ranks as the run does');
  const weight = Number(await weights.first().inputValue());
  await weights.first().fill(String(3 * weight));
  await weights.first().dispatchEvent('change');
  await panel.locator('#what-if-run').click();
  await wb.waitFor('the edited query\'s weight back from the engine', async () => Number(await panel.locator('#what-if-terms input.weight').first().inputValue()) === 3 * weight);
  assert.equal(await panel.locator('#what-if').getAttribute('data-query'), queryId);
  assert.equal(await panel.locator('#what-if-measures tbody tr').count(), 3);
  assert.ok((await panel.locator('#what-if-ranking tbody tr').count()) > 0);
  assert.doesNotMatch(await panel.locator('#what-if-status').textContent(), /\S/, 'no error');
  await shot('what-if edit');
}
