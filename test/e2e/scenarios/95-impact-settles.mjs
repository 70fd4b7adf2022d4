// Judge what decides: on a small dataset made here (two queries, two runs), the Holes panel's impact order and
// its meter say the comparison is open; judging from the sidebar in impact order, by keyboard, settles it after
// the two holes that decide (the blind order would reach them only by chance), and the meter says so.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPair } from '../steps.mjs';

export const title = 'Impact-ordered judging: the meter goes from open to settled after the deciding holes';

/**
 * Run a ranks q1's relevant document first; b puts two unjudged documents (z1, w1) around it, which could make
 * b better on q1. Both runs return the same list for q2, so its holes cannot move the difference: judging z1
 * and w1 not relevant settles "a better on nDCG@10" whatever the other holes are.
 */
function makeDataset(dir) {
  const docs = ['r1', 'x1', 'y1', 'z1', 'w1', 'r2', 'x2', 'y2'];
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  mkdirSync(join(dir, 'runs'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify({ _id: d, title: `Document ${d}`, text: `Text of ${d} about holes.` })).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), ['q1', 'q2'].map((q) => JSON.stringify({ _id: q, text: `question ${q} about holes` })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\tr1\t1\nq2\tr2\t1\n');
  const run = (tag, lists) => lists.flatMap(([q, ds]) => ds.map((d, i) => `${q} Q0 ${d} ${i + 1} ${10 - i} ${tag}`)).join('\n') + '\n';
  writeFileSync(join(dir, 'runs', 'a.trec'), run('a', [['q1', ['r1', 'x1', 'y1']], ['q2', ['r2', 'x2', 'y2']]]));
  writeFileSync(join(dir, 'runs', 'b.trec'), run('b', [['q1', ['z1', 'r1', 'w1']], ['q2', ['r2', 'x2', 'y2']]]));
}

export async function run({ wb, shot, workspace }) {
  const dataset = join(workspace, 'toyholes');
  makeDataset(dataset);
  await wb.runCommand('IR Workbench: Re-index Workspace');

  await wb.commandWithPicks('IR Workbench: Show Holes', [['Dataset', 'toyholes']]);
  // #pool-size is the Holes panel's own (the Judge sidebar has an #order choice too).
  const panel = await wb.webview('#pool-size');
  await wb.waitFor('the toyholes pool', async () => /of 2 runs; 6 still unjudged/.test(await panel.locator('#pool-size').textContent()));
  await panel.locator('#order').click();
  await panel.locator('#order vscode-option[value="impact"]').click();
  const meter = panel.locator('#meter strong');
  await wb.waitFor('the meter in the Holes panel', async () => (await meter.count()) > 0 && /^comparison open: \d+ holes in 1 queries can still flip it$/.test(await meter.textContent()));
  await shot('holes panel, impact order');

  await panel.locator('#annotate').click();
  const side = await wb.webview('#grades', { timeout: 60_000 });
  const sideMeter = side.locator('#meter strong');
  await sideMeter.waitFor();
  assert.match(await sideMeter.textContent(), /^comparison open: /);
  // Judge from the top of the queue, not relevant (0), until the meter says settled.
  const judged = [];
  for (let n = 0; !/^settled/.test(await sideMeter.textContent()); n++) {
    assert.ok(n < 6, `not settled after ${n} judgements: ${await sideMeter.textContent()}`);
    const docId = /^Document (\S+)$/.exec((await side.locator('#doc-id').textContent()).trim())[1];
    judged.push(docId);
    const before = await sideMeter.textContent();
    await readPair(wb);
    await side.locator('#document').focus();
    await side.locator('#document').press('0');
    await wb.waitFor(`the judgement of ${docId} in the file and the meter`, async () => recorded(dataset, docId) && (await sideMeter.textContent()) !== before);
  }
  await shot('settled');
  assert.deepEqual(new Set(judged), new Set(['z1', 'w1']), `impact order judged first the two holes that decide: ${judged}`);
  assert.equal(await sideMeter.textContent(), 'settled after 2 judgements: a better under every grading of the top-10 pool');
}

/** The grade 0 of docId is in the split's annotations file (appended and fsynced before the view moves on). */
function recorded(dataset, docId) {
  try {
    return readFileSync(join(dataset, 'qrels', 'test.annotations.tsv'), 'utf8').includes(`\t${docId}\t0`);
  } catch {
    return false;
  }
}
