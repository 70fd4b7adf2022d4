// The real data the test suites read beside the checkout (../shared, or $IRW_SHARED): when some is missing, a
// suite stops before its first test with one line saying what is missing and how to get it, instead of failing
// every test with an ENOENT trace.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED = resolve(process.env.IRW_SHARED ?? join(REPO, '..', 'shared'));

/** What each part is and how to get it. */
const PARTS = {
  'datasets/scifact': 'datasets/scifact/corpus.jsonl',
  'datasets/nfcorpus': 'datasets/nfcorpus/corpus.jsonl',
  runs: 'runs/scifact',
  golden: 'golden/scifact',
  tokenizers: 'tokenizers/bert-base-uncased-wordpiece',
};
const DATASET_PARTS = new Set(['datasets/scifact', 'datasets/nfcorpus']);

/** The parts (keys of PARTS) that are missing under `shared`. */
export function missingShared(parts = Object.keys(PARTS), shared = SHARED) {
  return parts.filter((p) => !existsSync(join(shared, PARTS[p])));
}

/** One line: what is missing, and how to get it. */
export function missingSharedMessage(suite, missing, shared = SHARED) {
  const where = relative(process.cwd(), shared).startsWith('..') || relative(process.cwd(), shared) === '' ? shared : relative(process.cwd(), shared);
  const datasets = missing.filter((p) => DATASET_PARTS.has(p)).map((p) => p.split('/')[1]);
  const others = missing.filter((p) => !DATASET_PARTS.has(p));
  const how = [
    datasets.length ? `get ${datasets.join(' and ')} with ${datasets.map((d) => `'node dist/cli.js datasets get ${d} --dir ${join(where, 'datasets')}'`).join(' and ')}` : '',
    others.length ? `${others.join(', ')} ${others.length > 1 ? 'are' : 'is'} the project's reference data (on its machines in ../shared): copy it there or set IRW_SHARED=DIR` : '',
  ].filter(Boolean);
  return `${suite}: missing test data in ${where}: ${missing.join(', ')}; ${how.join('; ')}`;
}

/** Exits the process (code 1) with the one line when a part is missing. */
export function requireShared(suite, parts) {
  const missing = missingShared(parts);
  if (missing.length === 0) return;
  console.error(missingSharedMessage(suite, missing));
  process.exit(1);
}
