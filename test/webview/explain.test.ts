// Explanations and what-if queries in headless Chromium: the Diff's "why?" shows both runs' breakdowns with the
// document's words marked by contribution, the what-if editor re-runs and saves, the Judge sidebar's explanation
// names no run; text from files (terms, warnings, ids) stays text.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AnnotationState, DiffExplanation, DiffModel, Explanation, PairExplanation, WhatIfResult } from '../../src/protocol/webview';
import { readQrels } from '../../src/core/formats/qrels';
import { readRun } from '../../src/core/formats/run';
import { readSidecar } from '../../src/core/provenance/record';
import { runBm25 } from '../../src/core/retrieval/bm25/run';
import { bm25Settings, LoadedIndexes, openBm25Run } from '../../src/core/retrieval/bm25/runContext';
import { whatIf } from '../../src/core/retrieval/bm25/whatIf';
import { explain } from '../../src/core/retrieval/explain';
import type { Bm25Explanation } from '../../src/core/retrieval/bm25/explain';
import { HOSTILE, openView, pwned, scifactFixture, until } from './harness';
import { SHARED } from '../unit/support/paths';
import { annotatedScores } from '../../src/core/split/judging';
import { diffModel } from '../../src/core/split/diff';
import { queryDetail } from '../../src/core/split/queryDetail';

const A = join(SHARED, 'runs/scifact/bm25okapi.knarfthekant.trec');
const B = join(SHARED, 'runs/scifact/minilm-faiss.knarfthekant.trec');
const SCIFACT = join(SHARED, 'datasets/scifact');
const fx = scifactFixture([A, B]);
let model: DiffModel;
let dir: string;
let ours: string;
const indexes = new LoadedIndexes(1);

before(async () => {
  model = diffModel(await fx.ready, A, B);
  dir = mkdtempSync(join(tmpdir(), 'irw-explain-view-'));
  ours = join(dir, 'bm25.trec');
  await runBm25({ dataset: SCIFACT, split: 'test', k1: 0.9, b: 0.4, fields: 'flat', topK: 100, removeQuery: true, rm3: null, queryWeights: null, cacheDir: null, out: ours });
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function openQuery(queryId: string) {
  const v = await openView(fx.browser, 'diff');
  await v.event('diff', 'model', model);
  await v.page.locator(`#queries tr[data-query="${queryId}"]`).click();
  const detail = await queryDetail(fx.split, A, B, queryId, 10);
  await v.answer('query', detail);
  await v.page.locator('#list-a .doc').first().waitFor();
  return { v, detail };
}

test('why?: both runs\' explanations, words marked by contribution, an imported run saying why it has no breakdown; hostile text stays text', async () => {
  const queryId = model.queries[0];
  const { v, detail } = await openQuery(queryId);
  const doc = detail.a[0];
  await v.page.locator(`#list-a .doc[data-doc="${doc.docId}"] button.why`).click();
  const asked = await (async () => {
    const real = (await explain(ours, queryId, doc.docId, { indexes, dataset: SCIFACT })) as Explanation & Bm25Explanation;
    // A term and a warning with markup in them (text from files) must render as text.
    const hostile: Explanation = { ...real, terms: [...real.terms, { ...real.terms[0], term: HOSTILE, tf: 1, score: 0.5 }], warnings: [HOSTILE] };
    const imported = await explain(B, queryId, doc.docId, { indexes });
    const payload: DiffExplanation = { queryId, docId: doc.docId, a: hostile, b: imported };
    return { req: await v.answer('explain', payload), real };
  })();
  assert.deepEqual(asked.req.params, { queryId, docId: doc.docId });
  await v.page.locator('#explain .explanation').first().waitFor();
  const a = v.page.locator('#explain .explanation').nth(0);
  // Every matched term with its contribution bar; the sum's steps to the run file's number.
  const matched = asked.real.terms.filter((t) => t.tf > 0).length;
  assert.equal(await a.locator('table.terms tbody tr').count(), matched + 1);
  assert.equal(await a.locator('meter').count(), matched + 1);
  assert.match((await a.locator('.sum').textContent())!, asked.real.rank === null ? /beyond/ : new RegExp(`${asked.real.printed} at rank ${asked.real.rank}`));
  assert.ok((await a.textContent())!.includes(HOSTILE), 'hostile term shown as text');
  assert.match((await v.page.locator('#explain .explanation').nth(1).textContent())!, /no .*json records how this run was made/);
  // The document's words marked by contribution (the snippet may miss the strongest term: any class).
  if (asked.real.terms.some((t) => t.tf > 0)) assert.ok((await v.page.locator('#explain mark.term').count()) > 0, 'words marked');
  assert.equal(await pwned(v.page), undefined);
  assert.deepEqual(await v.problems(), []);
});

test('what if: starts from the run\'s own query, re-runs edited weights and text, shows measures against a and b, saves', async () => {
  const queryId = model.queries[1];
  const { v } = await openQuery(queryId);
  const ctx = await openBm25Run(bm25Settings(readSidecar(ours)!.settings, `${ours}.json`), indexes);
  const qrels = readQrels(join(SCIFACT, 'qrels', 'test.tsv'));
  const compare = [{ label: 'a', run: readRun(A) }, { label: 'b', run: readRun(B) }];
  const answer = async (): Promise<{ params: Record<string, unknown>; result: WhatIfResult }> => {
    let params: Record<string, unknown> = {};
    await until(async () => {
      const reqs = (await v.posted()).filter((p) => p.type === 'request' && p.method === 'whatIf');
      params = reqs.at(-1)?.params ?? {};
      return reqs.length > answered;
    }, () => 'a whatIf request');
    const result = whatIf(ctx, queryId, params.edit as object, qrels, ['ndcg_cut.10', 'recall.100', 'recip_rank'], compare, { show: 20 });
    await v.answer('whatIf', result);
    answered++;
    return { params, result };
  };
  let answered = 0;
  const first = await answer();
  assert.deepEqual(first.params, { queryId, side: 'b', edit: {} });
  await v.page.locator('#what-if-terms input.weight').first().waitFor();
  assert.equal(await v.page.locator('#what-if-terms input.weight').count(), first.result.query.length);
  assert.equal(await v.page.locator('#what-if-measures tbody tr').count(), 3);
  // The measures by their display names, as every panel names them (trec_eval's ids stay in trec_eval output).
  assert.deepEqual(await v.page.locator('#what-if-measures tbody tr td:first-child').allTextContents(), ['MRR', 'R@100', 'nDCG@10']);
  // Boost the first term, drop the second, add a typed word.
  await v.page.locator('#what-if-terms input.weight').first().fill('3');
  await v.page.locator('#what-if-terms input.weight').first().dispatchEvent('change');
  await v.page.locator('#what-if-terms button').nth(1).click();
  await v.page.locator('#what-if-add').fill('Vitamins');
  await v.page.locator('#what-if-add-button').click();
  const edited = await answer();
  const terms = (edited.params.edit as { terms: { term: string; weight: number; typed?: boolean }[] }).terms;
  assert.equal(terms[0].weight, 3);
  assert.ok(!terms.some((t) => t.term === first.result.query[1]?.term));
  assert.deepEqual(terms.at(-1), { term: 'Vitamins', weight: 1, typed: true });
  await until(async () => (await v.page.locator('#what-if-terms bdi', { hasText: 'vitamin' }).count()) === 1, () => 'the analysed term back in the editor');
  assert.equal(await v.page.locator('#what-if-ranking tbody tr').count(), edited.result.ranking.length);
  await v.page.locator('#what-if-text').fill('vitamin D and bone density');
  await v.page.locator('#what-if-run-text').click();
  assert.deepEqual((await answer()).params.edit, { text: 'vitamin D and bone density' });
  // The text wraps rather than hiding its end, and Enter runs it.
  assert.equal(await v.page.locator('#what-if-text').evaluate((t) => t.tagName), 'TEXTAREA');
  await v.page.locator('#what-if-text').fill('vitamin D');
  await v.page.locator('#what-if-text').press('Enter');
  assert.deepEqual((await answer()).params.edit, { text: 'vitamin D' });
  await v.page.locator('#what-if-save').click();
  const saved = await v.answer('saveWhatIf', { path: '/tmp/q.jsonl', command: 'irw run --dataset d --queries /tmp/q.jsonl --out r.trec' });
  assert.deepEqual(saved.params, { side: 'b' });
  await v.page.locator('#what-if-status', { hasText: 'irw run --dataset d --queries /tmp/q.jsonl' }).waitFor();
  assert.deepEqual(await v.problems(), []);
});

test('the Judge sidebar explains a pair on demand without naming any run', async () => {
  const s = fx.split;
  const queryId = model.queries[2];
  const docId = s.run(A).ranking(queryId)!.docs[0];
  const doc = (await s.corpus.read(docId))!;
  const state: AnnotationState = {
    dataset: 'scifact', split: 'test', grades: [0, 1], index: 0, total: 1, judged: 0, message: null, scores: annotatedScores(s),
    item: { queryId, docId, queryText: s.queries.get(queryId)!.text, title: doc.title, text: doc.text, grade: null },
  };
  const v = await openView(fx.browser, 'annotate');
  await v.event('annotate', 'state', state);
  await v.page.locator('#explain-pair-button').click();
  const e = (await explain(ours, queryId, docId, { indexes, dataset: SCIFACT })) as Explanation & Bm25Explanation;
  const pair: PairExplanation = { queryId, docId, k1: 0.9, b: 0.4, terms: e.terms, unknownTerms: e.unknownTerms, note: 'BM25 with k1 0.9, b 0.4 on this dataset' };
  const req = await v.answer('explain', pair);
  assert.deepEqual(req.params, { queryId, docId }, 'the pair on screen, named as a grade names it');
  await v.page.locator('#explain-pair table.terms').waitFor();
  const text = (await v.page.locator('#explain-pair').textContent())!;
  for (const r of state.scores) assert.ok(!text.includes(r.label), `the explanation names no run (${r.label})`);
  assert.ok((await v.page.locator('#explain-pair mark.term').count()) > 0);
  assert.deepEqual(await v.problems(), []);
});
