// Judge Holes in the sidebar with the keyboard: an unjudged document of the runs' top-10 pool is graded relevant
// by pressing its digit; the grade is written to qrels/test.annotations.tsv before the view moves on,
// and the sidebar's recomputed nDCG@10 of the run equals trec_eval's (irw eval -c, from the installed package)
// on the original qrels plus the judgements.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { irwEvalJudged } from '../figures.mjs';
import { judgeNextHole } from '../steps.mjs';

export const title = 'Judge a hole from the sidebar by keyboard: nDCG@10 recomputed as trec_eval gives it';

const RUN = 'minilm-faiss.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns, extensionDir }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${RUN}.trec`), join(dataset, 'runs', `${RUN}.trec`));

  await wb.commandWithPicks('IR Workbench: Judge Holes', [['Split of scifact', 'test']]);
  const side = await wb.webview('#grades', { timeout: 60_000 });
  await side.locator('#progress').waitFor();
  const before = await scores(side);
  await shot('sidebar');

  // Keyboard only, in the document text (focused as Tab would): n to an unjudged pair, then a grade's digit.
  const { queryId, docId } = await judgeNextHole(wb, side, dataset, 'test');
  const judged = await wb.waitFor('the scores to be recomputed', async () => {
    const s = await scores(side);
    return JSON.stringify(s) !== JSON.stringify(before) && s;
  });
  await side.locator('#scores').scrollIntoViewIfNeeded();
  await shot(`judged ${queryId} ${docId}`);

  // The figures the sidebar shows, against trec_eval's on the original qrels plus the judgements.
  const row = judged.find((r) => r.label.includes(RUN));
  assert.ok(row, `a score row for ${RUN}: ${JSON.stringify(judged)}`);
  assert.equal(row.original, '0.6451');
  const expected = irwEvalJudged(extensionDir, dataset, 'test', join(dataset, 'runs', `${RUN}.trec`), ['ndcg_cut.10']).get('ndcg_cut_10');
  assert.equal(row.annotated, expected, `annotated nDCG@10 of ${RUN}`);
  assert.ok(judged.some((r) => r.annotated !== r.original), `some run's nDCG@10 moved: ${JSON.stringify(judged)}`);

  // The Results panel shows the same figure, with the original one beneath it.
  await wb.commandWithPicks('IR Workbench: Show Results', [['Split of scifact', 'test']]);
  const results = await wb.webview('#results');
  const cell = results.locator('#results tbody tr', { hasText: RUN }).first().locator('td[data-measure="ndcg_cut_10"]');
  await wb.waitFor('the figure with the judgements in the Results panel', async () => (await cell.getAttribute('data-annotated')) !== null);
  await shot('results annotated');
  assert.equal(await cell.locator('.num').textContent(), expected);
  assert.equal(await cell.locator('.orig').textContent(), '0.6451');
}

/** The sidebar's table: per run, nDCG@10 on the original qrels and with the user's judgements. */
async function scores(side) {
  return side.locator('#scores tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const [label, original, annotated] = [...tr.cells].map((c) => c.textContent.trim());
    return { label, original, annotated };
  }));
}
