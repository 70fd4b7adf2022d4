// "Run BEIR Eval" from the palette on SciFact (test split) with BM25 in the child process: the figures are
// Anserini's BEIR regression for the flat index (nDCG@10 0.6789), shown in a notification and the Output panel,
// and in the Results panel when the package ships it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'Run BEIR Eval with BM25 on SciFact shows nDCG@10 0.6789';

export async function run({ wb, shot, extensionDir }) {
  await wb.runCommand('IR Workbench: Run BEIR Eval');
  await wb.pick('Split of scifact', 'test');
  await wb.pick('Run BEIR Eval: retriever', 'BM25');
  await wb.notification(/BM25 on scifact/);
  await shot('bm25 progress');

  // The notification names the run and its first figures (which ones depends on the measures' order).
  const message = await wb.notification(/^IR Workbench: .* on scifact \(test\): /, { timeout: 120_000 });
  await shot('figures');
  assert.match(message, /^IR Workbench: \S+ on scifact \(test\): \w+ \d\.\d{4}/);

  const lines = await wb.waitFor('the IR Workbench output channel to show the figures', async () => {
    const l = await wb.outputLines();
    return l.some((x) => /^ndcg_cut_10\s+all\s+/.test(x.trim())) && l;
  });
  const ndcg = lines.find((x) => /^ndcg_cut_10\s+all\s+/.test(x.trim())).trim();
  assert.ok(/\s0\.6789$/.test(ndcg), `output channel line "${ndcg}" ends in 0.6789`);
  assert.ok(lines.some((x) => /scifact \(test\), 300 queries/.test(x)), `output channel names scifact (test), 300 queries:\n${lines.join('\n')}`);

  if (existsSync(join(extensionDir, 'dist', 'webview', 'results.js'))) {
    const panel = wb.webview();
    await panel.getByText('0.6789').first().waitFor({ timeout: 30_000 });
    await shot('results panel');
  }
}
