// The holes panel and the hole-annotation sidebar in headless Chromium, on the real SciFact pool: labels for
// both hole definitions, pool controls, keyboard judging (digits, n, p, u, one request at a time), progress,
// and hostile document text that stays text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAGE_COMMANDS, type AnnotationState, type ViewEvents } from '../../src/protocol/webview';
import { HOSTILE, openView, pwned, scifactFixture, until } from './harness';
import { SHARED } from '../unit/support/paths';
import { holeRows } from '../../src/core/split/holes';
import { annotatedScores } from '../../src/core/split/judging';
import { pool as splitPool } from '../../src/core/split/pool';

const RUNS = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(SHARED, 'runs/scifact', f));
const fx = scifactFixture(RUNS);

function holesModel(): ViewEvents['holes']['model'] {
  const pool = splitPool(fx.split, RUNS, 10);
  return {
    dataset: 'scifact', split: 'test', depth: 10, rows: holeRows(fx.split), pooled: RUNS, poolSize: pool.length, remaining: pool.length,
    grades: fx.split.gradeScale(),
    queue: pool.slice(0, 200).map((p) => ({ ...p, queryText: fx.split.queries.get(p.queryId)!.text, grade: null })),
  };
}

async function annotationState(index: number, text = ''): Promise<AnnotationState> {
  const pool = splitPool(fx.split, RUNS, 10);
  const p = pool[index];
  const doc = (await fx.split.corpus.read(p.docId))!;
  return {
    dataset: 'scifact', split: 'test', grades: [0, 1], index, total: pool.length, judged: index, scores: annotatedScores(fx.split), message: null,
    item: { queryId: p.queryId, queryText: fx.split.queries.get(p.queryId)!.text, docId: p.docId, title: doc.title, text: text || doc.text, grade: null },
  };
}

test('holes panel: both definitions labelled; pool controls and inline grades post requests', async () => {
  const v = await openView(fx.browser, 'holes');
  const m = holesModel();
  await v.event('holes', 'model', m);
  await v.page.locator('#holes').waitFor();
  const head = await v.page.locator('#holes thead th').allTextContents();
  assert.ok(head.some((t) => t.startsWith('Hole@10 (BEIR: judged for no query)')));
  assert.ok(head.some((t) => t.startsWith('unjudged@10 (not judged for the query)')));
  const dense = m.rows.find((r) => r.key === RUNS[1])!;
  assert.equal(await v.page.locator(`#holes tr[data-run="${RUNS[1]}"] td`).nth(1).textContent(), dense.holeBeir.toFixed(4));
  assert.match((await v.page.locator('#pool-size').textContent())!, new RegExp(`^${m.poolSize} distinct \\(query, document\\) pairs pooled from the top 10 of 2 runs`));
  assert.equal(await v.page.locator('#queue tbody tr').count(), 200);
  await v.page.locator('#pool-runs vscode-checkbox').first().click();
  const req = await v.answer('setPool', null);
  assert.deepEqual(req.params, { runs: [RUNS[1]], depth: 10, order: 'blind' });
  const first = m.queue[0];
  const row = v.page.locator('#queue tbody tr').first();
  await row.locator('.grade.hole').click();
  await row.locator('[data-pick="0"]').click();
  const judged = await v.answer('judge', null);
  assert.deepEqual(judged.params, { queryId: first.queryId, docId: first.docId, grade: 0 });
  await v.page.locator('#annotate').click();
  await v.answer('annotate', null);
  assert.deepEqual(await v.problems(), []);
});

test('annotation sidebar: digits grade, n/p move, u undoes; one request at a time; progress k of N', async () => {
  const v = await openView(fx.browser, 'annotate');
  await v.event('annotate', 'state', await annotationState(0));
  await v.page.locator('#progress').waitFor();
  const total = splitPool(fx.split, RUNS, 10).length;
  assert.equal(await v.page.locator('#progress').textContent(), `1 of ${total}`);
  assert.equal(await v.page.locator('#scores tbody tr').count(), 2);
  await v.page.keyboard.press('7'); // not on SciFact's 0/1 scale: ignored
  await v.page.keyboard.press('1');
  await v.page.keyboard.press('0'); // ignored: the first grade is not confirmed yet
  await v.page.locator('#status', { hasText: 'saving grade 1' }).waitFor();
  const j = await v.answer('judge', null);
  assert.deepEqual(j.params, { grade: 1 });
  // A key acts once the previous answer has arrived (body[data-busy] is gone).
  const idle = () => v.page.locator('body:not([data-busy])').waitFor({ state: 'attached' });
  await v.event('annotate', 'state', await annotationState(1));
  await v.page.locator('#progress', { hasText: `2 of ${total}` }).waitFor();
  await idle();
  await v.page.keyboard.press('n');
  assert.deepEqual((await v.answer('move', null)).params, { by: 1 });
  await idle();
  await v.page.keyboard.press('p');
  assert.deepEqual((await v.answer('move', null)).params, { by: -1 });
  await idle();
  await v.page.keyboard.press('u');
  await v.answer('undo', 'nothing to undo', false);
  await v.page.locator('#status.error', { hasText: 'nothing to undo' }).waitFor();
  const requests = (await v.posted()).filter((m) => m.type === 'request').map((m) => m.method);
  assert.deepEqual(requests, ['judge', 'move', 'move', 'undo']);
  // The grade buttons do what the digit keys do.
  await idle();
  await v.page.locator('#grades vscode-button[data-grade="0"]').click();
  assert.deepEqual((await v.answer('judge', null)).params, { grade: 0 });
  assert.deepEqual(await v.problems(), []);
});

test('annotation sidebar: hostile document text stays text and scrolls; the empty state explains itself', async () => {
  const v = await openView(fx.browser, 'annotate');
  const long = `${HOSTILE} ${'word '.repeat(5000)}`;
  await v.event('annotate', 'state', { ...(await annotationState(0, long)), item: { ...(await annotationState(0, long)).item!, title: HOSTILE, queryText: HOSTILE } });
  await v.page.locator('#doc-text').waitFor();
  assert.equal(await v.page.locator('#doc-title').textContent(), HOSTILE);
  assert.equal(await v.page.locator('#query').textContent(), HOSTILE);
  assert.equal(await v.page.locator('#doc-text').textContent(), long);
  assert.equal(await v.page.locator('#app img').count(), 0);
  assert.equal(await pwned(v.page), undefined);
  const scrolls = await v.page.locator('#document').evaluate((e) => e.scrollHeight > e.clientHeight);
  assert.ok(scrolls, 'a long document scrolls inside its box');
  await v.event('annotate', 'state', { ...(await annotationState(0)), item: null, message: 'The pool is empty.' });
  await until(async () => (await v.page.locator('#message').count()) === 1, () => 'empty state');
  assert.equal(await v.page.locator('#message').textContent(), 'The pool is empty.');
  // The empty state links to the commands that fill the queue, each one the page is allowed to run.
  const links = await v.page.locator('#start a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
  assert.deepEqual(links, [
    ['Judge Holes…', 'command:irWorkbench.judgeHoles'],
    ['Show Holes…', 'command:irWorkbench.showHoles'],
  ]);
  for (const [, href] of links) assert.ok(PAGE_COMMANDS.includes(href!.slice('command:'.length)), `${href} is allowed by enableCommandUris`);
});
