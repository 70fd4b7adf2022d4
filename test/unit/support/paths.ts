import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../shared-data.cjs';

/** The shared real data beside the checkout (../shared, or IRW_SHARED) comes from the one resolver. */
export { DATASETS, GOLDEN, REPO, RUNS, SHARED, needsShared } from '../../shared-data.cjs';
export const CLI = join(REPO, 'dist', 'cli.js');

export function requireBuiltCli(): string {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run 'npm run build' before the tests`);
  return CLI;
}
