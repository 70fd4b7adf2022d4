// "Run BEIR Eval" from the palette on SciFact (test split) with BM25 in the child process: the figures are
// Anserini's BEIR regression for the flat index (nDCG@10 0.6789), in the Output panel and the Results panel;
// a notification names the run.
import assert from 'node:assert/strict';
import { runBm25 } from '../steps.mjs';

export const title = 'Run BEIR Eval with BM25 on SciFact shows nDCG@10 0.6789';

export async function run({ wb, shot }) {
  const message = await runBm25(wb, shot);
  await shot('figures');
  assert.match(message, /^IR Workbench: \S+ on scifact \(test\), original qrels: \S+ \d\.\d{4}/);
  // The Output panel opens on request, from the notification.
  await wb.page.locator('.notification-toast', { hasText: message }).getByRole('button', { name: 'Show Output' }).click();

  const lines = await wb.waitFor('the IR Workbench output channel to show the figures', async () => {
    const l = await wb.outputLines();
    return l.some((x) => /^ndcg_cut_10\s+all\s+/.test(x.trim())) && l;
  });
  const ndcg = lines.find((x) => /^ndcg_cut_10\s+all\s+/.test(x.trim())).trim();
  assert.ok(/\s0\.6789$/.test(ndcg), `output channel line "${ndcg}" ends in 0.6789`);
  assert.ok(lines.some((x) => /scifact \(test\), 300 queries/.test(x)), `output channel names scifact (test), 300 queries:\n${lines.join('\n')}`);

  // Run BEIR Eval opens the Results panel: the run's row, nDCG@10 column.
  const row = (await wb.webview('#results')).locator('#results tbody tr[data-run*="bm25-flat"]').first();
  const cell = row.locator('td[data-measure="ndcg_cut_10"]');
  await cell.waitFor({ timeout: 30_000 });
  await shot('results panel');
  assert.match(await cell.textContent(), /^0\.6789/);
}
