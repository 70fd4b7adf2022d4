// "Run BEIR Eval" from the palette on SciFact (test split) with BM25 in the child process: the figures are
// Anserini's BEIR regression for the flat index (nDCG@10 0.6789), in the Output panel and the Results panel;
// a notification names the run.
import assert from 'node:assert/strict';

export const title = 'Run BEIR Eval with BM25 on SciFact shows nDCG@10 0.6789';

export async function run({ wb, shot }) {
  await wb.runCommand('IR Workbench: Run BEIR Eval');
  // One multi-step input: the same title on every step, with the step counter.
  await wb.pick('Run BEIR Eval', 'test');
  await wb.pick('Run BEIR Eval', 'BM25');
  await wb.pick('Run BEIR Eval', 'k1 0.9, b 0.4, flat');
  // Hits per query: the default, 1000.
  await wb.quickInput.filter({ hasText: 'Hits per query' }).waitFor({ state: 'visible' });
  await wb.page.keyboard.press('Enter');
  // The progress notification ("BM25 on scifact (test): indexing…"), or already the result on a fast machine.
  await wb.notification(/on scifact \(test\)/);
  await shot('bm25 progress');

  // The notification names the run, the qrels, and its first figures (which ones depends on the measures' order).
  const message = await wb.notification(/^IR Workbench: .* on scifact \(test\), original qrels: /, { timeout: 120_000 });
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
