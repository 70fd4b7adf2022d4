// The holes panel and the hole-annotation sidebar in headless Chromium, on the real SciFact pool: labels for
// both hole definitions, pool controls, keyboard judging (digits, n, p, u, one request at a time), progress,
// and hostile document text that stays text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAGE_COMMANDS, WEBVIEW_PROTOCOL_VERSION, type AnnotationItem, type AnnotationState, type ViewEvents } from '../../src/protocol/webview';
import { countWork, HOSTILE, openView, pwned, scifactFixture, until, type ViewPage } from './harness';
import { SHARED } from '../unit/support/paths';
import { holeRows, holesModel as coreHolesModel, withTitles } from '../../src/core/split/holes';
import { splitWithRuns } from '../helpers/splitState';
import { annotatedScores } from '../../src/core/split/judging';
const fix4 = (x: number) => x.toFixed(4);
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

/** The Judge sidebar's state at `index` of the real pool, with `ahead` pairs sent ahead of it. */
async function annotationState(index: number, text = '', ahead = 8, queue = 1): Promise<AnnotationState> {
  const pool = splitPool(fx.split, RUNS, 10);
  const shownItems = await Promise.all(pool.slice(index, index + 1 + ahead).map(item));
  const first = shownItems[0];
  return {
    dataset: 'scifact', split: 'test', grades: [0, 1], index, total: pool.length, judged: index, scores: annotatedScores(fx.split), message: null,
    item: text ? { ...first, text } : first, queue, ahead: shownItems.slice(1), qrels: { state: 'original', judgements: 0, version: 0 },
  };
}

async function item(p: { queryId: string; docId: string }): Promise<AnnotationItem> {
  const doc = (await fx.split.corpus.read(p.docId))!;
  return { queryId: p.queryId, queryText: fx.split.queries.get(p.queryId)!.text, docId: p.docId, title: doc.title, text: doc.text, grade: null };
}

/** The pair the sidebar shows now (body[data-pair]), as "query<TAB>document". */
const shownPair = (v: ViewPage) => v.page.evaluate(() => document.body.dataset.pair);
const pairOf = (p: { queryId: string; docId: string }) => `${p.queryId}\t${p.docId}`;
const requests = async (v: ViewPage, method: string) => (await v.posted()).filter((m) => m.type === 'request' && m.method === method);
/** Longer than the sidebar's MIN_SHOWN_MS: a pair shown this long has been on screen for a person to read. */
const READ_MS = 300;
/** What a page showed and when (the e2e suite's recorder: an ES module, loaded as one). */
const timings = import('../e2e/timings.mjs');

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

test('holes panel: at a third of a 1280-pixel window each run is a card that fits, each figure under its column\'s name (issue 24)', async () => {
  const layout = async (width: number) => {
    const v = await openView(fx.browser, 'holes', { viewport: { width, height: 700 } });
    await v.event('holes', 'model', holesModel());
    await v.page.locator('#holes tbody tr').first().waitFor();
    const seen = await v.page.evaluate(() => {
      const region = document.getElementById('holes-region')!;
      const cells = [...document.querySelectorAll<HTMLElement>('#holes tbody td')];
      const page = document.documentElement.clientWidth;
      return {
        overflow: region.scrollWidth - region.clientWidth,
        outside: cells.filter((c) => c.getBoundingClientRect().right > page + 0.5).map((c) => c.textContent),
        clipped: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
        labels: cells.filter((c) => !c.classList.contains('run')).map((c) => getComputedStyle(c, '::before').content),
        head: document.querySelector('#holes thead')!.getBoundingClientRect().width > 1,
        // The list below the cards: its first rows' cells (document, title, grade) inside the page, none cut.
        queue: [...document.querySelectorAll<HTMLTableRowElement>('#queue tr[data-pair]')].slice(0, 5).flatMap((r) => [...r.cells]).map((c) => c.getBoundingClientRect().right > page + 0.5 || c.scrollWidth > c.clientWidth + 1),
        pageOverflow: document.scrollingElement!.scrollWidth - document.scrollingElement!.clientWidth,
      };
    });
    assert.deepEqual(await v.problems(), []);
    await v.page.close();
    return seen;
  };
  const narrow = await layout(300);
  assert.deepEqual({ overflow: narrow.overflow, outside: narrow.outside, clipped: narrow.clipped, head: narrow.head }, { overflow: 0, outside: [], clipped: [], head: false });
  assert.ok(narrow.queue.length >= 10, `${narrow.queue.length} cells of the list checked`);
  assert.deepEqual({ cut: narrow.queue.filter(Boolean).length, page: narrow.pageOverflow }, { cut: 0, page: 0 });
  assert.deepEqual(narrow.labels.slice(0, 5), ['"Hole@10 original"', '"with yours"', '"Unjudged@10 original"', '"with yours"', '"Queries"']);
  // Wide enough for its columns, it stays a table under its head.
  const wide = await layout(900);
  assert.deepEqual({ overflow: wide.overflow, head: wide.head }, { overflow: 0, head: true });
  assert.ok(wide.labels.every((c) => !c.includes('Hole@10')), wide.labels.join());
});

test('holes panel: a judgement updates it in place: its row and the figures change, the other rows, the controls and the scroll stay', async () => {
  const v = await openView(fx.browser, 'holes', { viewport: { width: 900, height: 500 } });
  const m = holesModel();
  await v.event('holes', 'model', m);
  await v.page.locator('#queue tbody tr').first().waitFor();
  await v.page.evaluate(() => {
    const w = window as unknown as { __rows: Element[]; __box: Element };
    w.__rows = [...document.querySelectorAll('#queue tr[data-pair]')];
    w.__box = document.querySelector('#pool-runs vscode-checkbox')!;
    document.scrollingElement!.scrollTop = 1500;
  });
  const scrolled = await v.page.evaluate(() => document.scrollingElement!.scrollTop);
  const first = m.queue[0];
  const judged = { ...m, remaining: m.remaining - 1, queue: m.queue.map((p, i) => (i === 0 ? { ...p, grade: 1 } : p)), rows: m.rows.map((r) => ({ ...r, holeBeirAnnotated: r.holeBeirAnnotated - 0.001 })) };
  await v.event('holes', 'model', judged);
  await v.page.locator('#pool-size', { hasText: `${judged.remaining} still unjudged` }).waitFor();
  const kept = await v.page.evaluate(() => {
    const w = window as unknown as { __rows: Element[]; __box: Element };
    const rows = [...document.querySelectorAll('#queue tr[data-pair]')];
    return { others: rows.slice(1).every((r, i) => r === w.__rows[i + 1]), count: rows.length, box: w.__box === document.querySelector('#pool-runs vscode-checkbox'), scroll: document.scrollingElement!.scrollTop };
  });
  // The rows not judged are the same nodes; the page does not jump (the browser's scroll anchoring may move it
  // by the judged row's change of height, a few pixels).
  assert.deepEqual({ ...kept, scroll: undefined }, { others: true, count: 200, box: true, scroll: undefined });
  assert.ok(Math.abs(kept.scroll - scrolled) <= 4, `scroll ${scrolled} -> ${kept.scroll}`);
  assert.equal(await v.page.locator(`#queue tr[data-pair="${first.queryId}\t${first.docId}"] .grade`).textContent(), '1');
  assert.equal(await v.page.locator('#holes tbody tr').first().locator('td').nth(2).textContent(), fix4(judged.rows[0].holeBeirAnnotated));
  // The same model again (figures computed elsewhere) changes nothing on the page.
  await v.page.evaluate(() => {
    (window as unknown as { __mutations: number }).__mutations = 0;
    new MutationObserver((ms) => ((window as unknown as { __mutations: number }).__mutations += ms.length)).observe(document.getElementById('app')!, { subtree: true, childList: true, characterData: true });
  });
  await v.event('holes', 'model', judged);
  await v.page.waitForTimeout(100);
  assert.equal(await v.page.evaluate(() => (window as unknown as { __mutations: number }).__mutations), 0);
  assert.deepEqual(await v.problems(), []);
});

test('judge sidebar: every grade names the pair on screen; the next pair shows before the host answers; keys typed ahead are not applied, and the status says so', async () => {
  const v = await openView(fx.browser, 'annotate');
  await (await timings).recordShown(v.page.mainFrame());
  const pool = splitPool(fx.split, RUNS, 10);
  await v.event('annotate', 'state', await annotationState(0));
  await v.page.locator('#progress', { hasText: `1 of ${pool.length}` }).waitFor();
  await v.page.waitForTimeout(READ_MS);
  await v.page.keyboard.press('7'); // not on SciFact's 0/1 scale: ignored
  await v.page.keyboard.press('1');
  // No answer yet (a slow round trip): the next pair is on screen already.
  await v.page.locator('#progress', { hasText: `2 of ${pool.length}` }).waitFor();
  assert.equal(await shownPair(v), pairOf(pool[1]));
  assert.deepEqual((await requests(v, 'judge')).map((r) => r.params), [{ queue: 1, index: 0, ...pool[0], grade: 1 }]);
  // The case, a double press: the same key again before the next pair is even drawn grades nothing,
  // and says so.
  await v.page.waitForTimeout(READ_MS);
  await v.page.locator('#document').evaluate((d) => {
    for (const key of ['0', '0']) d.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
  });
  await v.page.locator('#status.error', { hasText: 'not applied' }).waitFor();
  assert.deepEqual((await requests(v, 'judge')).map((r) => r.params), [{ queue: 1, index: 0, ...pool[0], grade: 1 }, { queue: 1, index: 1, ...pool[1], grade: 0 }]);
  assert.equal(await shownPair(v), pairOf(pool[2]));
  // Bursts during slow round trips (no answer comes): each key grades the pair it was pressed on, or nothing.
  for (const gap of [0, 20, 60, 100, 200, READ_MS, 10, 170, 40, READ_MS]) {
    await v.page.waitForTimeout(gap);
    await v.page.keyboard.press(gap % 20 === 0 ? '0' : '1');
  }
  await v.page.waitForTimeout(READ_MS);
  const held = await requests(v, 'judge');
  assert.ok(held.length >= 4 && held.length < 14, `${held.length} grades applied of 14 keys`);
  // Every grade is of the pair drawn on screen at least MIN_SHOWN_MS before its key, and of no other.
  const seen = await (await timings).shown(v.page.mainFrame());
  for (const r of held) {
    const on = seen.pairs.filter((x) => x.t <= r.t!).at(-1);
    assert.ok(on, `a pair was on screen when ${JSON.stringify(r.params)} was sent`);
    assert.equal(`${r.params!.queryId}\t${r.params!.docId}`, on.pair, 'the grade names the pair on screen');
    assert.ok(r.t! - on.t >= 150, `the pair was on screen ${Math.round(r.t! - on.t)} ms before its grade`);
    assert.equal(pairOf(pool[r.params!.index as number]), on.pair, 'at the index it has in the queue');
  }
  // Answers come now, in order: nothing changes on screen but the status.
  const before = await shownPair(v);
  for (let i = 0; i < held.length; i++) await v.answer('judge', null);
  await until(async () => (await v.page.locator('#status').textContent()) === '' || /not applied/.test((await v.page.locator('#status').textContent())!), () => 'the saving note to go');
  assert.equal(await shownPair(v), before);
  assert.deepEqual(await v.problems(), []);
});

test('judge sidebar: a key while the next pair has not come grades nothing and asks for it; a refused grade is said, naming its pair', async () => {
  const v = await openView(fx.browser, 'annotate');
  const pool = splitPool(fx.split, RUNS, 10);
  await v.event('annotate', 'state', await annotationState(0, '', 0));
  await v.page.locator('#progress').waitFor();
  await v.page.waitForTimeout(READ_MS);
  await v.page.keyboard.press('1');
  // Nothing was sent ahead: the sidebar says the pair is coming, asks for it, and takes no grade meanwhile.
  await v.page.locator('#doc-text', { hasText: 'Loading the next pair' }).waitFor();
  assert.deepEqual((await v.answer('show', null)).params, { queue: 1, index: 1 });
  await v.page.waitForTimeout(READ_MS);
  await v.page.keyboard.press('0');
  await v.page.locator('#status.error', { hasText: 'not on screen yet' }).waitFor();
  assert.equal((await requests(v, 'judge')).length, 1);
  await v.event('annotate', 'state', await annotationState(1, '', 0));
  await until(async () => (await shownPair(v)) === pairOf(pool[1]), () => 'the pair the sidebar waited for');
  // The first grade is refused (say a full disk): the status names the pair, which keeps no grade.
  await v.answer('judge', 'ENOSPC: no space left on device', false);
  await v.page.locator('#status.error', { hasText: `Not recorded: grade 1 for document ${pool[0].docId} of query ${pool[0].queryId} (pair 1): ENOSPC` }).waitFor();
  await v.page.keyboard.press('p');
  assert.deepEqual((await v.answer('show', null)).params, { queue: 1, index: 0, ...pool[0] });
  assert.equal(await v.page.locator('#current-grade').textContent(), 'unjudged');
  assert.deepEqual(await v.problems(), []);
});

test('judge sidebar: s skips, p goes back, u undoes, each naming the queue; impact order waits for the pair the grade decides', async () => {
  const v = await openView(fx.browser, 'annotate');
  const pool = splitPool(fx.split, RUNS, 10);
  await v.event('annotate', 'state', await annotationState(0));
  await v.page.locator('#progress').waitFor();
  await v.page.keyboard.press('s');
  await v.page.locator('#progress', { hasText: `2 of ${pool.length}` }).waitFor();
  assert.deepEqual((await v.answer('show', null)).params, { queue: 1, index: 1, ...pool[1] });
  await v.page.keyboard.press('p');
  assert.deepEqual((await v.answer('show', null)).params, { queue: 1, index: 0, ...pool[0] });
  await v.page.keyboard.press('u');
  await v.answer('undo', 'nothing to undo', false);
  await v.page.locator('#status.error', { hasText: 'nothing to undo' }).waitFor();
  await v.page.waitForTimeout(READ_MS);
  // The grade buttons do what the digit keys do.
  await v.page.locator('#grades vscode-button[data-grade="0"]').click();
  assert.deepEqual((await v.answer('judge', null)).params, { queue: 1, index: 0, ...pool[0], grade: 0 });
  await v.page.keyboard.press('u');
  assert.deepEqual((await v.answer('undo', { index: 0 })).params, { queue: 1 });
  await v.page.locator('#progress', { hasText: `1 of ${pool.length}` }).waitFor();
  // Impact order: the pair after a grade depends on it; none is shown (nor graded) until the host re-orders.
  await v.event('annotate', 'state', { ...(await annotationState(0, '', 8, 2)), order: 'impact' });
  await v.page.waitForTimeout(READ_MS);
  await v.page.keyboard.press('1');
  await v.page.locator('#doc-text', { hasText: 'Choosing the next pair by impact' }).waitFor();
  assert.equal(await shownPair(v), undefined);
  assert.deepEqual((await requests(v, 'judge')).at(-1)!.params, { queue: 2, index: 0, ...pool[0], grade: 1 });
  const reordered = { ...(await annotationState(1, '', 8, 2)), order: 'impact' as const, item: await item(pool[7]) };
  await v.event('annotate', 'state', reordered);
  await until(async () => (await shownPair(v)) === pairOf(pool[7]), () => 'the pair the impact order puts next');
  assert.deepEqual(await v.problems(), []);
});

test('judge sidebar: notes go with the grade, ? is "unsure" (grade -1) with its note, keys typed in the note grade nothing; the query\'s relevant documents are listed by title', async () => {
  const v = await openView(fx.browser, 'annotate');
  const pool = splitPool(fx.split, RUNS, 10);
  const s = await annotationState(0);
  const relevant = [...(fx.split.qrels('original').get(pool[0].queryId) ?? new Map<string, number>())].filter(([, g]) => g > 0);
  const docs = await Promise.all(relevant.map(async ([docId, grade]) => ({ docId, title: (await fx.split.corpus.read(docId))!.title, grade, yours: false })));
  assert.ok(docs.length > 0);
  await v.event('annotate', 'state', { ...s, references: [{ queryId: pool[0].queryId, docs: [...docs, { docId: 'mine', title: HOSTILE, grade: 1, yours: true }], more: 3 }] });
  await v.page.locator('#reference').waitFor();
  await v.page.locator('#reference summary').click();
  assert.equal(await v.page.locator('#reference summary').textContent(), `Judged relevant for this query: ${docs.length + 4}`);
  assert.deepEqual(await v.page.locator('#reference li bdi').allTextContents(), [...docs.map((d) => d.title), HOSTILE]);
  assert.equal(await v.page.locator('#reference').textContent().then((t) => t!.includes('and 3 more')), true);
  assert.equal(await pwned(v.page), undefined);
  // A note typed (digits included) grades nothing; Enter goes back to the document, whose keys grade.
  await v.page.locator('#note').fill('cites 3 of the 4 claims');
  await v.page.locator('#note').press('1');
  await v.page.locator('#note').press('Enter');
  assert.equal((await requests(v, 'judge')).length, 0);
  await v.page.waitForTimeout(READ_MS);
  await v.page.keyboard.press('1');
  assert.deepEqual((await v.answer('judge', null)).params, { queue: 1, index: 0, ...pool[0], grade: 1, note: 'cites 3 of the 4 claims1' });
  assert.equal(await v.page.locator('#note').inputValue(), '', 'the next pair starts without a note');
  await v.page.waitForTimeout(READ_MS);
  await v.page.locator('#note').fill('half on topic');
  await v.page.locator('#document').focus();
  await v.page.keyboard.press('?');
  assert.deepEqual((await v.answer('judge', null)).params, { queue: 1, index: 1, ...pool[1], grade: -1, note: 'half on topic' });
  // A pair judged before shows its grade and note (here in a new queue, which starts where the host says).
  await v.event('annotate', 'state', { ...(await annotationState(5, '', 8, 3)), item: { ...(await item(pool[5])), grade: 0, note: 'off topic' } });
  await v.page.locator('#progress', { hasText: `6 of ${pool.length}` }).waitFor();
  assert.equal(await v.page.locator('#note').inputValue(), 'off topic');
  assert.equal(await v.page.locator('#current-grade').textContent(), 'grade 0');
  assert.deepEqual(await v.problems(), []);
});

test('judge sidebar at sidebar sizes: the grade bar stays in view, the document scrolls inside; new figures update in place (same nodes, scroll kept)', async () => {
  for (const viewport of [{ width: 300, height: 800 }, { width: 300, height: 380 }, { width: 240, height: 300 }]) {
    const v = await openView(fx.browser, 'annotate', { viewport });
    const base = await annotationState(0, `${'a long document '.repeat(2000)}`);
    // Run names as long as real ones (an engine's name, its settings): the figures fit the sidebar's width.
    // and a judged-relevant title as long as SciFact's, the reference list open.
    const title = 'New opportunities: the use of nanotechnologies to manipulate and track stem cells';
    const s = {
      ...base,
      scores: base.scores.map((r, i) => ({ ...r, label: `vsm-tfidf.titles_fulltext.omar-khattab-${i}` })),
      references: [{ queryId: base.item!.queryId, docs: [{ docId: '123', title, grade: 1, yours: false }], more: 0 }],
    };
    await v.event('annotate', 'state', s);
    await v.page.locator('#grades vscode-button').first().waitFor();
    await v.page.locator('#scores tbody tr').first().waitFor();
    await v.page.locator('#reference summary').click();
    await v.page.locator('#reference li').waitFor();
    const beyond = await v.page.evaluate(() => [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.table-scroll, .doctext'))
      .map((e) => `${e.tagName} ${e.textContent!.slice(0, 30)}`));
    assert.deepEqual(beyond, [], `nothing beyond the sidebar's width at ${viewport.width}px`);
    assert.equal(await v.page.locator('#scores tbody tr bdi').first().getAttribute('title'), 'vsm-tfidf.titles_fulltext.omar-khattab-0', 'the whole name in the tooltip');
    for (const sel of ['#grades vscode-button[data-grade="0"]', '#grades vscode-button[data-grade="1"]', '#skip', '#progress']) {
      const box = (await v.page.locator(sel).boundingBox())!;
      assert.ok(box.y >= 0 && box.y + box.height <= viewport.height, `${sel} in view at ${viewport.width}x${viewport.height}: ${JSON.stringify(box)}`);
    }
    assert.equal(await v.page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight + 1), true, 'the page itself does not scroll');
    assert.ok(await v.page.locator('#document').evaluate((e) => e.scrollHeight > e.clientHeight), 'the document scrolls inside');
    if (viewport.height === 800) {
      // A new state of the same pair (the figures after a judgement elsewhere): nothing is rebuilt, nothing jumps.
      await v.page.evaluate(() => {
        const d = document.getElementById('document')!;
        d.scrollTop = 500;
        (window as unknown as { __doc: Element }).__doc = d;
        (window as unknown as { __buttons: Element }).__buttons = document.querySelector('#grades vscode-button')!;
      });
      await v.event('annotate', 'state', { ...s, judged: 7, qrels: { state: 'annotated', judgements: 7, version: 9 } });
      await v.page.locator('#judged', { hasText: '7 judged' }).waitFor();
      assert.deepEqual(await v.page.evaluate(() => {
        const w = window as unknown as { __doc: Element; __buttons: Element };
        return [w.__doc === document.getElementById('document'), document.getElementById('document')!.scrollTop, w.__buttons === document.querySelector('#grades vscode-button')];
      }), [true, 500, true]);
    }
    assert.deepEqual(await v.problems(), []);
    await v.page.close();
  }
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
  // A new queue after the empty state: the pair and its bar come back with the status line in the bar (the empty
  // state had borrowed it), so "saving…" and "not applied" are said again.
  await v.event('annotate', 'state', await annotationState(0, '', 8, 2));
  await v.page.locator('#bar #status').waitFor({ state: 'attached' });
  assert.equal(await v.page.locator('#status').count(), 1);
  assert.equal(await v.page.locator('#message').count(), 0);
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

test('holes panel: a judgement re-renders the list once, whatever models follow it, and the scrolled page does not jump (issue 24 item 15)', async () => {
  // A split of its own (judging changes it), and the model the engine sends (src/core/split/holes.ts): after a
  // judgement the panel is sent it again as the background work of the split ends (tests, ranges, estimates).
  const s = await splitWithRuns(join(SHARED, 'datasets/scifact'), 'test', RUNS);
  const model = () => withTitles(s, coreHolesModel(s, { runs: RUNS, depth: 10, listed: 200, order: 'blind' }));
  const v = await openView(fx.browser, 'holes', { viewport: { width: 1000, height: 500 } });
  await v.event('holes', 'model', await model());
  await v.page.locator('#queue tr[data-pair]').first().waitFor();
  await v.page.evaluate(() => {
    window.scrollTo(0, 900);
    const w = window as unknown as { __event: number; __rendered: number[]; __targets: Set<Node> };
    w.__event = 0;
    w.__rendered = [];
    w.__targets = new Set();
    // Changes in the list, or the list itself replaced (no named function here: tsx would wrap it in a helper the page lacks).
    new MutationObserver((ms) => {
      for (const m of ms) {
        const el = m.target instanceof Element ? m.target : m.target.parentElement;
        if (!el?.closest('#queue-region') && ![...m.addedNodes, ...m.removedNodes].some((n) => n instanceof Element && (n.id === 'queue-region' || n.querySelector('#queue-region') !== null))) continue;
        if (w.__rendered.at(-1) !== w.__event) w.__rendered.push(w.__event);
        w.__targets.add(m.target);
      }
    }).observe(document.getElementById('app')!, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  assert.ok((await v.page.evaluate(() => window.scrollY)) > 800, 'scrolled');
  // What the person reads: the first row in view, and where it is on screen.
  const inView = () => v.page.evaluate(() => {
    const row = [...document.querySelectorAll('#queue tr[data-pair]')].find((r) => r.getBoundingClientRect().top >= 0)!;
    return { pair: row.getAttribute('data-pair'), top: Math.round(row.getBoundingClientRect().top) };
  });
  const read = await inView();
  const first = (await model()).queue;
  for (const [n, pair] of [first[3], first[40]].entries()) {
    s.judge(pair.queryId, pair.docId, 1);
    const version = s.version;
    for (let k = 0; k < 3; k++) {
      await v.page.evaluate((e) => ((window as unknown as { __event: number }).__event = e), n * 3 + k + 1);
      await v.event('holes', 'model', await model());
      await until(async () => (await v.page.evaluate(() => document.body.dataset.qrelsVersion)) === String(version), () => 'the model shown');
      await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    const seen = await v.page.evaluate((p) => {
      const w = window as unknown as { __rendered: number[]; __targets: Set<Node> };
      const row = document.querySelector(`#queue tr[data-pair="${p}"]`)!;
      const outside = [...w.__targets].filter((t) => !row.contains(t)).length;
      w.__targets.clear();
      return { rendered: w.__rendered.slice(), outside };
    }, `${pair.queryId}\t${pair.docId}`);
    // The first model after the judgement changes its row, and nothing else of the list; the others nothing;
    // the rows on screen stay where they were (the browser's scroll anchoring absorbs the judged row's change
    // of height above them).
    assert.deepEqual(seen, { rendered: [1, 4].slice(0, n + 1), outside: 0 });
    assert.deepEqual(await inView(), read);
    assert.equal(await v.page.locator(`#queue tr[data-pair="${pair.queryId}\t${pair.docId}"] .grade`).textContent(), '1');
  }
  assert.deepEqual(await v.problems(), []);
});

test('holes panel: after a reload the scroll comes back once the page is long enough, and is saved as restored', async () => {
  const viewport = { width: 1000, height: 500 };
  const full = await openView(fx.browser, 'holes', { viewport });
  await full.event('holes', 'model', holesModel());
  await full.page.locator('#queue tr[data-pair]').first().waitFor();
  const bottom = await full.page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight);
  await full.page.close();
  const v = await openView(fx.browser, 'holes', { viewport, state: { scroll: bottom } });
  const state = () => v.page.evaluate(() => (window as unknown as { __state: { scroll?: number } }).__state);
  // The page before its model is too short to get there: the position waits for it.
  await v.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await v.event('holes', 'model', holesModel());
  await until(async () => Math.abs((await v.page.evaluate(() => window.scrollY)) - bottom) < 2, () => `the scroll restored to ${bottom}`);
  assert.equal((await state()).scroll, bottom, 'the position restored, not one clamped on the way');
  // Then saved as the person scrolls.
  await v.page.mouse.move(500, 300);
  await v.page.mouse.wheel(0, -400);
  await until(async () => ((await state()).scroll ?? bottom) < bottom - 100, () => 'the new position saved');
  assert.deepEqual(await v.problems(), []);
});

test('holes panel: a judgement builds only the judged row, not the list of 200 (issue 24)', async () => {
  const v = await openView(fx.browser, 'holes');
  const m = { ...holesModel(), qrels: { state: 'annotated' as const, judgements: 1, version: 1 } };
  await v.event('holes', 'model', m);
  await v.page.locator('#queue tr[data-pair]').first().waitFor();
  const work = await countWork(v.page);
  await v.page.evaluate(() => ((window as unknown as { __rows: Element[] }).__rows = [...document.querySelectorAll('#queue tr')]));
  const after = { ...m, qrels: { ...m.qrels, judgements: 2, version: 2 }, remaining: m.remaining - 1, queue: m.queue.map((p, i) => (i === 30 ? { ...p, grade: 0 } : p)) };
  await v.event('holes', 'model', after);
  await v.page.locator('#pool-size', { hasText: `${after.remaining} still unjudged` }).waitFor();
  const judged = m.queue[30];
  assert.equal(await v.page.locator(`#queue tr[data-pair="${judged.queryId}\t${judged.docId}"] button.grade`).textContent(), '0');
  assert.equal(await v.page.evaluate(() => [...document.querySelectorAll('#queue tr')].every((r, i) => r === (window as unknown as { __rows: Element[] }).__rows[i])), true, 'every row keeps its node');
  const { created } = await work();
  // The judged row, the note, the Hole@10 table (its "with yours" figures) and the pool's size: a few dozen; the
  // list alone is 200 rows of 7 elements.
  assert.ok(created <= 60, `elements built: ${created}`);
  assert.equal(await v.page.locator('#queue tr[data-pair]').count(), 200);
});

test('a patch of a state the page does not have, or that does not fit it, is not applied: the page says ready again, and a whole state puts it right', async () => {
  const v = await openView(fx.browser, 'holes', { viewport: { width: 1000, height: 500 } });
  const m = holesModel();
  await v.event('holes', 'model', m);
  await v.page.locator('#pool-size', { hasText: `${m.remaining} still unjudged` }).waitFor();
  const readies = async () => (await v.posted()).filter((p) => p.type === 'ready').length;
  const before = await readies();
  // A patch of state 999 (say, one sent while the view was gone), which would set the count to 1.
  await v.page.evaluate((msg) => window.postMessage(msg, '*'), { v: WEBVIEW_PROTOCOL_VERSION, type: 'patch', kind: 'model', base: 999, seq: 1000, patch: { k: { remaining: { s: 1 } } } });
  await until(async () => (await readies()) === before + 1, () => 'the page did not say ready again');
  assert.equal(await v.page.locator('#pool-size').textContent().then((t) => t?.includes(`${m.remaining} still unjudged`)), true, 'the patch was not applied');
  // The host answers with every state whole; patches follow it again.
  await v.page.evaluate((msg) => window.postMessage(msg, '*'), { v: WEBVIEW_PROTOCOL_VERSION, type: 'event', kind: 'model', seq: 1001, payload: { ...m, remaining: m.remaining - 2 } });
  await v.page.locator('#pool-size', { hasText: `${m.remaining - 2} still unjudged` }).waitFor();
  await v.page.evaluate((msg) => window.postMessage(msg, '*'), { v: WEBVIEW_PROTOCOL_VERSION, type: 'patch', kind: 'model', base: 1001, seq: 1002, patch: { k: { remaining: { s: m.remaining - 3 } } } });
  await v.page.locator('#pool-size', { hasText: `${m.remaining - 3} still unjudged` }).waitFor();
  assert.equal(await readies(), before + 1);
  // A patch of the right state that does not fit it (array items of an object) is not applied either.
  await v.page.evaluate((msg) => window.postMessage(msg, '*'), { v: WEBVIEW_PROTOCOL_VERSION, type: 'patch', kind: 'model', base: 1002, seq: 1003, patch: { i: [[0, { s: 1 }]] } });
  await until(async () => (await readies()) === before + 2, () => 'the page did not say ready again after a patch that does not fit');
  assert.equal(await v.page.locator('#pool-size').textContent().then((t) => t?.includes(`${m.remaining - 3} still unjudged`)), true);
  assert.deepEqual(await v.problems(), []);
});
