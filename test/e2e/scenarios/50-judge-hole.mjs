// Judge Holes in the sidebar with the keyboard: the first unjudged document of the runs' top-10 pool is graded
// relevant by pressing its digit; the grade is written to qrels/test.annotations.tsv before the view moves on,
// and the sidebar's recomputed nDCG@10 of each run equals trec_eval (irw eval -c, from the installed package)
// on the original qrels plus that judgement.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const title = 'Judge a hole from the sidebar by keyboard: nDCG@10 recomputed as trec_eval gives it';

const RUN = 'minilm-faiss.knarfthekant';

export async function run({ wb, shot, workspace, sharedRuns, extensionDir }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  copyFileSync(join(sharedRuns, 'scifact', `${RUN}.trec`), join(dataset, 'runs', `${RUN}.trec`));

  await wb.runCommand('IR Workbench: Judge Holes');
  await wb.pick('Split of scifact', 'test');
  const side = await wb.webview('#grades', { timeout: 60_000 });
  const progress = side.locator('#progress');
  await progress.waitFor();
  const queryId = /^Query (\S+)$/.exec((await side.getByText(/^Query /).first().textContent()).trim())[1];
  const docId = /^Document (\S+)$/.exec((await side.getByText(/^Document /).first().textContent()).trim())[1];
  assert.equal((await side.locator('#current-grade').textContent()).trim(), 'unjudged');
  const before = await scores(side);
  await shot(`pair ${queryId} ${docId}`);

  // Keyboard only: focus the document text (as Tab would), then the digit of the highest grade.
  const grades = (await side.locator('#grades [data-grade]').evaluateAll((bs) => bs.map((b) => Number(b.getAttribute('data-grade')))));
  const grade = Math.max(...grades);
  await side.locator('#document').focus();
  await side.locator('#document').press(String(grade));
  const judged = await wb.waitFor('the judgement to be saved and the scores recomputed', async () => {
    const s = await scores(side);
    return JSON.stringify(s) !== JSON.stringify(before) && s;
  });
  await side.locator('#scores').scrollIntoViewIfNeeded();
  await shot('judged');

  const annotations = join(dataset, 'qrels', 'test.annotations.tsv');
  assert.ok(existsSync(annotations), `${annotations} written`);
  const lines = readFileSync(annotations, 'utf8').trim().split('\n');
  assert.equal(lines.at(-1), `${queryId}\t${docId}\t${grade}`);

  // The figures the sidebar shows, against trec_eval's on the original qrels plus the annotation.
  const row = judged.find((r) => r.label.includes(RUN));
  assert.ok(row, `a score row for ${RUN}: ${JSON.stringify(judged)}`);
  assert.equal(row.original, '0.6451');
  const qrels = readFileSync(join(dataset, 'qrels', 'test.tsv'), 'utf8').trimEnd();
  const tmp = mkdtempSync(join(tmpdir(), 'irw-e2e-qrels-'));
  let expected;
  try {
    const merged = join(tmp, 'merged.tsv');
    writeFileSync(merged, `${qrels}\n${queryId}\t${docId}\t${grade}\n`);
    const ev = spawnSync(process.execPath, [join(extensionDir, 'dist', 'cli.js'), 'eval', '-c', '-m', 'ndcg_cut.10', merged,
      join(dataset, 'runs', `${RUN}.trec`)], { encoding: 'utf8' });
    assert.equal(ev.status, 0, ev.stderr);
    expected = /^ndcg_cut_10\s+all\s+(\S+)$/m.exec(ev.stdout)[1];
    assert.equal(row.annotated, expected, `annotated nDCG@10 of ${RUN}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  assert.ok(judged.some((r) => r.annotated !== r.original), `some run's nDCG@10 moved: ${JSON.stringify(judged)}`);

  // The Results panel shows the same figure under the original one.
  await wb.runCommand('IR Workbench: Show Results');
  await wb.pick('Split of scifact', 'test');
  const results = await wb.webview('#results');
  const cell = results.locator('#results tbody tr', { hasText: RUN }).first().locator('td[data-measure="ndcg_cut_10"]');
  await wb.waitFor('the annotated figure in the Results panel', async () => /annotated/.test(await cell.textContent()));
  await shot('results annotated');
  assert.match(await cell.textContent(), new RegExp(`^0\\.6451.*annotated ${expected.replace('.', '\\.')}`));
}

/** The sidebar's table: per run, nDCG@10 on the original qrels and with the user's judgements. */
async function scores(side) {
  return side.locator('#scores tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const [label, original, annotated] = [...tr.cells].map((c) => c.textContent.trim());
    return { label, original, annotated };
  }));
}
