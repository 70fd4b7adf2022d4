// Judge a sample, get a verdict with a confidence (issue 23): on a small dataset made here (eight queries, two
// runs), the Holes panel's sampling order hands its pool to the sidebar; judging the pairs it draws, by keyboard,
// with the truth of this dataset (every hole is not relevant), the meter's estimate of Δ nDCG@10 (b − a) narrows
// until its 95 % interval gives a verdict, a better, before every hole is judged.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readPair } from '../steps.mjs';

export const title = 'Sampling-order judging: the meter\'s estimate gives a verdict before every hole is judged';

const QUERIES = 8;

/** Run a ranks each query's relevant document first; b ranks two unjudged documents above it. */
function makeDataset(dir) {
  const qs = Array.from({ length: QUERIES }, (_, i) => `q${i + 1}`);
  const docs = qs.flatMap((_, i) => ['r', 'x', 'y', 'z', 'w'].map((p) => `${p}${i + 1}`));
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  mkdirSync(join(dir, 'runs'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify({ _id: d, title: `Document ${d}`, text: `Text of ${d} about sampling.` })).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), qs.map((q) => JSON.stringify({ _id: q, text: `question ${q} about sampling` })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), `query-id\tcorpus-id\tscore\n${qs.map((q, i) => `${q}\tr${i + 1}\t1\n`).join('')}`);
  const run = (tag, order) => qs.flatMap((q, i) => order.map((p, r) => `${q} Q0 ${p}${i + 1} ${r + 1} ${10 - r} ${tag}`)).join('\n') + '\n';
  writeFileSync(join(dir, 'runs', 'a.trec'), run('a', ['r', 'x', 'y']));
  writeFileSync(join(dir, 'runs', 'b.trec'), run('b', ['z', 'w', 'r']));
}

export async function run({ wb, shot, workspace }) {
  const dataset = join(workspace, 'toysample');
  makeDataset(dataset);
  await wb.runCommand('IR Workbench: Re-index Workspace');

  await wb.commandWithPicks('IR Workbench: Show Holes', [['Dataset', 'toysample']]);
  const panel = await wb.webview('#pool-size');
  const pool = QUERIES * 4;
  await wb.waitFor('the toysample pool', async () => new RegExp(`of 2 runs; ${pool} still unjudged`).test(await panel.locator('#pool-size').textContent()));
  await panel.locator('#order').click();
  await panel.locator('#order vscode-option[value="sample"]').click();
  await panel.locator('#meter strong').waitFor({ timeout: 60_000 });
  await shot('holes panel, sampling order');

  await panel.locator('#annotate').click();
  const side = await wb.webview('#grades', { timeout: 60_000 });
  await side.locator('#meter').waitFor({ timeout: 60_000 });
  const verdict = () => side.locator('#meter-estimate [data-verdict]').getAttribute('data-verdict', { timeout: 1_000 }).catch(() => null);
  const undecided = async () => [null, 'undecided'].includes(await verdict());
  let judged = 0;
  for (; judged < pool && (await undecided()); judged++) {
    const docId = /^Document (\S+)$/.exec((await side.locator('#doc-id').textContent()).trim())[1];
    const before = await side.locator('#judged').textContent();
    await readPair(wb);
    await side.locator('#document').focus();
    await side.locator('#document').press('0');
    await wb.waitFor(`the judgement of ${docId} in the file and the sidebar`, async () => recorded(dataset, docId) && (await side.locator('#judged').textContent()) !== before);
    // The estimate follows the judgement (computed after it): wait until the meter is of this many judgements.
    await wb.waitFor('the meter\'s estimate of the new judgements', async () => (await verdict()) !== null, { timeout: 60_000 });
  }
  await shot('verdict');
  assert.equal(await verdict(), 'a better', `the estimate's verdict after ${judged} judgements: ${await side.locator('#meter').textContent()}`);
  assert.ok(judged < pool, `decided before every hole was judged (${judged} of ${pool})`);
}

/** The grade 0 of docId is in the split's annotations file (appended and fsynced before the view moves on). */
function recorded(dataset, docId) {
  try {
    return readFileSync(join(dataset, 'qrels', 'test.annotations.tsv'), 'utf8').includes(`\t${docId}\t0`);
  } catch {
    return false;
  }
}
