// The installed extension activates on its own when the workspace holds a BEIR corpus.jsonl (activation event
// workspaceContains:**/corpus.jsonl), before the user runs any of its commands; the extension host's log says so.
// VS Code names the workspaceContains globs of all the events together: the corpus file names of every layout.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = 'activates on its own in a workspace holding a BEIR corpus.jsonl';

function activationLines(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /exthost\.log$/i.test(e.name))
    .flatMap((e) => readFileSync(join(e.parentPath, e.name), 'utf8').split('\n'))
    .filter((l) => l.includes('_doActivateExtension ir-workbench.ir-workbench'));
}

export async function run({ wb, shot, logs }) {
  const lines = await wb.waitFor('IR Workbench to activate', async () => {
    const l = activationLines(logs);
    return l.length > 0 && l;
  }, { timeout: 60_000 });
  await shot('activated');
  assert.match(lines[0], /activationEvent: 'workspaceContains:\*\*\/corpus\.jsonl[,']/);
  assert.match(lines[0], /\*\*\/collection\.tsv[,']/);
}
