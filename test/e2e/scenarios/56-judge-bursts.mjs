// Keys typed faster than the round trips: bursts of grade keys in the Judge sidebar (gaps of 0 to 300 ms, the
// issue's "0, then 0 60 ms later" among them) while every grade is appended, fsynced and the views refresh.
// Every line the annotations file gains must be the pair the sidebar had drawn on screen at least 150 ms
// before the key that graded it (timed inside the page), never the pair after it; keys that came too soon are
// not applied, and the sidebar says so.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordShown, shown } from '../timings.mjs';

export const title = 'Judge sidebar: bursts of keys during slow round trips grade only pairs on screen';

const RUN = 'bm25okapi.knarfthekant';
const GAPS = [300, 60, 0, 40, 300, 100, 20, 300, 170, 60, 300, 0, 0, 300, 120, 300];

export async function run({ wb, shot, workspace, sharedRuns, engineTrace }) {
  const dataset = join(workspace, 'scifact');
  mkdirSync(join(dataset, 'runs'), { recursive: true });
  if (!existsSync(join(dataset, 'runs', `${RUN}.trec`))) copyFileSync(join(sharedRuns, 'scifact', `${RUN}.trec`), join(dataset, 'runs', `${RUN}.trec`));
  const file = join(dataset, 'qrels', 'test.annotations.tsv');
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(1) : []);

  await wb.commandWithPicks('IR Workbench: Judge Holes', [['Split of scifact', 'test']]);
  const side = await wb.webview('#grades', { timeout: 60_000 });
  await side.locator('#document').waitFor();
  const frame = await wb.webviewFrame('#grades');
  await recordShown(frame);
  const before = lines().length;
  const started = Date.now();
  await side.locator('#document').focus();
  for (const [i, gap] of GAPS.entries()) {
    await wb.page.waitForTimeout(gap);
    await wb.page.keyboard.press(i % 3 === 0 ? '1' : '0');
  }
  await shot('after the bursts');
  const seen = await shown(frame);
  assert.equal(seen.keys.length, GAPS.length, `every key reached the sidebar: ${JSON.stringify(seen.keys)}`);
  // Every grade sent is written before the sidebar says it is saved: wait for the file to stop growing.
  let graded = [];
  await wb.waitFor('the grades to be written', async () => {
    const now = lines().slice(before);
    const done = now.length === graded.length && (await side.locator('#status').textContent()) !== 'saving…';
    graded = now;
    return done && now.length > 0;
  }, { timeout: 60_000 });
  // Each line is of the pair on screen when one of the keys was pressed, drawn at least 150 ms before it.
  const onScreen = (t) => seen.pairs.filter((p) => p.t <= t).at(-1);
  const applicable = seen.keys.map((k) => ({ key: k, on: onScreen(k.t) })).filter(({ key, on }) => on && key.t - on.t >= 150);
  for (const line of graded) {
    const [queryId, docId, grade] = line.split('\t');
    const by = applicable.find(({ key, on }) => on.pair === `${queryId}\t${docId}` && key.key === grade);
    assert.ok(by, `${line} was graded by a key pressed while it was on screen: pairs ${JSON.stringify(seen.pairs)}, keys ${JSON.stringify(seen.keys)}`);
  }
  assert.equal(new Set(graded.map((l) => l.split('\t').slice(0, 2).join('\t'))).size, graded.length, `no pair graded twice: ${graded}`);
  assert.ok(graded.length < GAPS.length, `some keys came too soon and were not applied (${graded.length} of ${GAPS.length} applied)`);
  assert.ok(graded.length >= GAPS.filter((g) => g >= 300).length, `every key a pair was read for was applied (${graded.length})`);
  // A judgement is in the index as it is appended: the file events of its append, lock and journal start no
  // pass of the index (the watchers wait 1 s for more events before one).
  await wb.page.waitForTimeout(2_500);
  assert.equal(requests(engineTrace, 'judge', started).length, graded.length, 'the trace has every judgement');
  assert.deepEqual(requests(engineTrace, 'index', started), [], 'no index pass after the judgements');
}

/** The engine's requests of `kind` since `from` (epoch ms), by its trace (src/core/engine/trace.ts). */
function requests(trace, kind, from) {
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((t) => t.kind === kind && t.at >= from);
}
