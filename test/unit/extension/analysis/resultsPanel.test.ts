// The Results panel's host side: the per-query plot's deltas are a state pushed with every model (patched by
// the entries a judgement changes), for the comparison the page chose; not an answer it asks for after each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WEBVIEW_PROTOCOL_VERSION, type QueryDeltas, type ResultsModel } from '../../../../src/protocol/webview';
import { ViewChannel, type RequestHandlers } from '../../../../src/extension/webview/channel';
import { showResults } from '../../../../src/extension/analysis/resultsPanel';
import type { AnalysisWorkbench, OpenSplit } from '../../../../src/extension/analysis/workbench';
import { fakeWebview } from '../../../helpers/fakeWebview';

const QUERIES = Array.from({ length: 300 }, (_, i) => `q${i}`);

/** 300 queries' deltas of b - a on the qrels of `version`; query 7's is `moved`. */
function deltas(a: string, b: string, measure: string, version: number, moved = 0.25): QueryDeltas {
  return {
    a, b, measure, qrels: { state: version ? 'annotated' : 'original', judgements: version, version },
    queries: QUERIES, deltas: QUERIES.map((_, i) => (i === 7 ? moved : (i % 13) / 13 - 0.5)), wins: 150, ties: 0, losses: 150,
  };
}

let panels = 0;

type Asked = { kind: string; args: { a: string; b: string; measure: string } };

/** A Results panel over a fake workbench: the engine's answers are `answer`'s, the page is `page`. */
function openPanel(answer: (args: Asked['args']) => Promise<QueryDeltas>) {
  const page = fakeWebview();
  const asked: Asked[] = [];
  let version = 0;
  let refresh = () => undefined as void;
  const wb = {
    panel: (_name: string, _title: string, _split: OpenSplit, handlers: RequestHandlers<'results'>, render: (c: ViewChannel<'results'>) => Promise<void>) => {
      const channel = new ViewChannel<'results'>(page.webview as never, handlers, () => refresh());
      refresh = () => void render(channel);
      refresh();
      return { panel: { onDidDispose: () => ({ dispose: () => undefined }), reveal: () => undefined }, channel, view: { refresh } };
    },
    resultsModel: async () => ({ qrels: { state: version ? 'annotated' : 'original', judgements: version, version } }) as unknown as ResultsModel,
    completeResultsModel: async () => ({}) as ResultsModel,
    ask: async (kind: string, args: Asked['args'] & { key: string }) => {
      const { key: _key, ...rest } = args;
      asked.push({ kind, args: rest });
      return answer(rest);
    },
  };
  // A split of its own: the panel of a split already open would be revealed, not opened.
  const split = { key: `scifact/test/${++panels}`, datasetName: 'scifact', split: 'test', runs: [] } as unknown as OpenSplit;
  void showResults(wb as unknown as AnalysisWorkbench, split, () => undefined, () => undefined);
  page.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'ready' });
  let id = 0;
  return {
    asked,
    posted: page.posted as { type: string; kind?: string; id?: number; payload?: unknown; patch?: unknown }[],
    choose: (a: string, b: string, measure: string) => page.send({ v: WEBVIEW_PROTOCOL_VERSION, type: 'request', id: ++id, method: 'plot', params: { a, b, measure } }),
    judge: () => {
      version++;
      refresh();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

test('Results: the chosen comparison\'s deltas come with every model, as a patch of the entries a judgement moved', async () => {
  let moved = 0.25;
  const p = openPanel(async ({ a, b, measure }) => deltas(a, b, measure, p.asked.length - 1, moved));
  await settle();
  assert.deepEqual(p.posted.map((m) => [m.type, m.kind]), [['event', 'model']], 'nothing plotted before the page chooses');
  p.choose('bm25', 'dense', 'ndcg_cut_10');
  await settle();
  const whole = p.posted.find((m) => m.kind === 'queries')!;
  assert.deepEqual(whole.payload, { plot: { a: 'bm25', b: 'dense', measure: 'ndcg_cut_10' }, deltas: deltas('bm25', 'dense', 'ndcg_cut_10', 0) });
  assert.deepEqual(p.posted.at(-1), { v: WEBVIEW_PROTOCOL_VERSION, type: 'response', id: 1, ok: true, result: null }, 'answered once the deltas are sent');
  // A judgement: the model, then the deltas on its qrels, each as a patch; query 7's delta is what moved.
  const before = p.posted.length;
  moved = 0.5;
  p.judge();
  await settle();
  const sent = p.posted.slice(before);
  assert.deepEqual(sent.map((m) => [m.type, m.kind]), [['patch', 'model'], ['patch', 'queries']]);
  assert.ok(JSON.stringify(sent[1].patch).length * 20 < JSON.stringify(whole.payload).length, `patch ${JSON.stringify(sent[1].patch)}`);
  assert.deepEqual(p.asked.map((x) => x.args), [0, 1].map(() => ({ a: 'bm25', b: 'dense', measure: 'ndcg_cut_10' })));
});

test('Results: a comparison chosen again before the last one\'s deltas came gets only its own; an error is sent as the plot\'s state', async () => {
  const slow: ((d: QueryDeltas) => void)[] = [];
  const p = openPanel(({ a, b, measure }) => (measure === 'P_10' ? Promise.reject(new Error('P_10 is not tested')) : new Promise((r) => slow.push(() => r(deltas(a, b, measure, 0))))));
  await settle();
  p.choose('bm25', 'dense', 'ndcg_cut_10');
  p.choose('bm25', 'tfidf', 'ndcg_cut_10');
  await settle();
  slow[1](deltas('bm25', 'tfidf', 'ndcg_cut_10', 0));
  await settle();
  slow[0](deltas('bm25', 'dense', 'ndcg_cut_10', 0));
  await settle();
  const plotted = p.posted.filter((m) => m.kind === 'queries').map((m) => (m.payload as { plot: { b: string } }).plot.b);
  assert.deepEqual(plotted, ['tfidf'], 'the comparison chosen first is not drawn after the one chosen last');
  p.choose('bm25', 'tfidf', 'P_10');
  await settle();
  assert.deepEqual(p.posted.filter((m) => m.kind === 'queries').at(-1)!.type, 'patch');
  const channelState = p.posted.filter((m) => m.kind === 'queries');
  assert.equal(channelState.length, 2);
  assert.match(JSON.stringify(channelState[1].patch), /P_10 is not tested/);
});
