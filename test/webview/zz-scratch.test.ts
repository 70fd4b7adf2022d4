import { join } from 'node:path';
import { test } from 'node:test';
import { resultsModel } from '../../src/core/split/results';
import { openView, scifactFixture } from './harness';
import { SHARED } from '../unit/support/paths';
const RUNS = join(SHARED, 'runs/scifact');
const files = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(RUNS, f));
const fx = scifactFixture(files);
test('shot', async () => {
  const s = await fx.ready;
  for (const [i, j] of [['10', '0'], ['21', '1']]) { s.judge('1', '31715818', 1); void i; void j; }
  const m = resultsModel(s, files[0], { skipped: [] });
  const v = await openView(fx.browser, 'results', { viewport: { width: 920, height: 800 } });
  await v.event('results', 'model', m);
  await v.page.locator('#significance').waitFor();
  await v.page.screenshot({ path: '/tmp/shots/results.png', fullPage: true });
  console.log(await v.problems());
  console.log(await v.page.evaluate(() => [...document.querySelectorAll('.table-scroll')].map((e) => [e.id, e.scrollWidth, e.clientWidth])));
});
import { diffModel } from '../../src/core/split/diff';
import { queryDetail } from '../../src/core/split/queryDetail';
test('diff shot', async () => {
  const s = await fx.ready;
  const m = diffModel(s, files[0], files[1]);
  const v = await openView(fx.browser, 'diff', { viewport: { width: 920, height: 760 } });
  await v.event('diff', 'model', m);
  await v.page.locator('#queries tr').first().click();
  await v.answer('query', await queryDetail(s, files[0], files[1], m.queries[0], 10));
  await v.page.locator('#list-a .doc').first().waitFor();
  await v.page.screenshot({ path: '/tmp/shots/diff.png' });
  console.log(await v.problems());
});
