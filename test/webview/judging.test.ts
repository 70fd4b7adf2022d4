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
  assert.deepEqual(head, ['Run', 'Hole@10 original', 'with yours', 'Unjudged@10 original', 'with yours', 'Queries']);
  assert.match((await v.page.locator('#holes-note').textContent())!, /BEIR\) is the share of the top 10 judged for no query at all; Unjudged@10 \(trec_eval 10's unj\.10\) is the share not judged for that query/);
  const dense = m.rows.find((r) => r.key === RUNS[1])!;
  assert.equal(await v.page.locator(`#holes tr[data-run="${RUNS[1]}"] td`).nth(1).textContent(), dense.holeBeir.toFixed(4));
  assert.match((await v.page.locator('#pool-size').textContent())!, new RegExp(`^${m.poolSize} distinct \\(query, document\\) pairs pooled from the top 10 of 2 runs`));
  assert.equal(await v.page.locator('#queue tr[data-pair]').count(), 200);
  await v.page.locator('#pool-runs vscode-checkbox').first().click();
  const req = await v.answer('setPool', null);
  assert.deepEqual(req.params, { runs: [RUNS[1]], depth: 10, order: 'blind' });
  const first = m.queue[0];
  const row = v.page.locator('#queue tr[data-pair]').first();
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

test('holes panel: coverage beside Hole@10; the list grouped by query with titles (issue 24)', async () => {
  const v = await openView(fx.browser, 'holes');
  const m = holesModel();
  const queue = m.queue.slice(0, 30).map((p, i) => ({ ...p, title: `Title ${i}` }));
  const partial = { ...m, qrels: { state: 'annotated' as const, judgements: 2, version: 2 }, rows: m.rows.map((r, i) => (i === 0 ? { ...r, coverage: { answered: 153, total: 300 } } : r)), queue };
  await v.event('holes', 'model', partial);
  await v.page.locator('#queue').waitFor();
  assert.equal(await v.page.locator(`#holes tr[data-run="${RUNS[0]}"] td.coverage`).textContent(), '153/300 ⚠');
  assert.match((await v.page.locator('#holes-note').textContent())!, /"with yours": with your 2 judgements\./);
  // One heading per query, its text once; a row per document with its title.
  const queries = [...new Set(queue.map((p) => p.queryId))];
  assert.equal(await v.page.locator('#queue tr.group').count(), queries.length);
  assert.equal(await v.page.locator('#queue .query-text', { hasText: fx.split.queries.get(queries[0])!.text }).count(), 1);
  assert.equal(await v.page.locator('#queue tr[data-pair] td.doc-title').first().textContent(), 'Title 0');
});

test('holes panel: a judgement updates it in place: the same nodes, no jump, the focus kept (issue 24)', async () => {
  const v = await openView(fx.browser, 'holes', { viewport: { width: 1000, height: 500 } });
  const m = { ...holesModel(), qrels: { state: 'annotated' as const, judgements: 1, version: 1 } };
  await v.event('holes', 'model', m);
  await v.page.locator('#queue').waitFor();
  const pair = m.queue[12];
  const row = v.page.locator(`#queue tr[data-pair="${pair.queryId}\t${pair.docId}"]`);
  await row.locator('button.grade').focus();
  await v.page.evaluate(() => {
    window.scrollTo(0, 600);
    const w = window as unknown as { __nodes: Element[] };
    w.__nodes = [document.getElementById('queue')!, document.getElementById('holes')!, document.activeElement!];
  });
  const y = await v.page.evaluate(() => window.scrollY);
  assert.ok(y > 400, `scrolled: ${y}`);
  // The engine's model after a judgement of the pair above (and, later, the same model again).
  const after = { ...m, qrels: { ...m.qrels, judgements: 2, version: 2 }, remaining: m.remaining - 1, queue: m.queue.map((p, i) => (i === 11 ? { ...p, grade: 1 } : p)) };
  for (const next of [after, after]) {
    await v.event('holes', 'model', next);
    await until(async () => (await v.page.locator('#holes-note').textContent())!.includes('your 2 judgements'), () => 'the new model');
    const kept = await v.page.evaluate(() => {
      const w = window as unknown as { __nodes: Element[] };
      return { same: w.__nodes.map((n) => n.isConnected), focus: document.activeElement === w.__nodes[2], y: window.scrollY };
    });
    assert.deepEqual(kept, { same: [true, true, true], focus: true, y });
  }
  const judged = m.queue[11];
  assert.equal(await v.page.locator(`#queue tr[data-pair="${judged.queryId}\t${judged.docId}"] button.grade`).textContent(), '1');
  assert.match((await v.page.locator('#pool-size').textContent())!, new RegExp(`${m.remaining - 1} still unjudged`));
  // The focused grade button still grades its own pair.
  await v.page.keyboard.press('Enter');
  const judging = v.answer('judge', null);
  await v.page.locator(`#queue tr[data-pair="${pair.queryId}\t${pair.docId}"] [data-pick="1"]`).click();
  assert.deepEqual((await judging).params, { queryId: pair.queryId, docId: pair.docId, grade: 1 });
});
