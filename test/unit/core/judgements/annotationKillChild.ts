/**
 * Child process of the kill test (annotationKill.test.ts): judges a deterministic burst through the store
 * worker, exactly as the extension does, and prints `ok <i>` only after the worker confirmed judgement i.
 * The parent SIGKILLs it at a random moment.
 */
import { join } from 'node:path';
import { EngineClient } from '../../../../src/core/engine/client';
import { killTestJudgement } from './annotationKillSequence';

async function main(): Promise<void> {
  const [datasetDir, split, count] = process.argv.slice(2);
  const client = await EngineClient.start(join(__dirname, '../../../../src/core/engine/worker.ts'), { snapshotDelayMs: 60_000 });
  process.stdout.write('ready\n');
  for (let i = 0; i < Number(count); i++) {
    const j = killTestJudgement(i);
    await client.request('judge', { datasetDir, split, ...j, by: 'kill-test' });
    process.stdout.write(`ok ${i}\n`);
  }
  process.stdout.write('done\n');
  await client.close();
}

void main();
