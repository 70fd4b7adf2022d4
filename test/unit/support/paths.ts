import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Repository root, and the shared real data beside the checkout (override with IRW_SHARED). */
export const REPO = resolve(__dirname, '..', '..', '..');
export const SHARED = process.env.IRW_SHARED ?? resolve(REPO, '..', 'shared');
export const GOLDEN = join(SHARED, 'golden');
export const DATASETS = join(SHARED, 'datasets');
export const RUNS = join(SHARED, 'runs');
export const CLI = join(REPO, 'dist', 'cli.js');

export function requireBuiltCli(): string {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run 'npm run build' before the tests`);
  return CLI;
}
