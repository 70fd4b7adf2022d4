// The one resolver of the real data the tests read beside the checkout (../shared, or $IRW_SHARED). A test that
// needs a part that is missing is skipped, and says in one line what is missing and how to get it, instead of
// failing with an ENOENT trace: an outside contributor's fresh clone runs every suite to a green line.
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS, so that both the TypeScript tests (CommonJS) and the .mjs runners can import it. */
const { existsSync } = require('node:fs');
const { join, relative, resolve } = require('node:path');

const REPO = resolve(__dirname, '..');
const SHARED = resolve(process.env.IRW_SHARED ?? join(REPO, '..', 'shared'));
const DATASETS = join(SHARED, 'datasets');
const RUNS = join(SHARED, 'runs');
const GOLDEN = join(SHARED, 'golden');

/** Each part, by the file whose presence says it is there. */
const PARTS = {
  'datasets/scifact': 'datasets/scifact/corpus.jsonl',
  'datasets/nfcorpus': 'datasets/nfcorpus/corpus.jsonl',
  runs: 'runs/scifact',
  golden: 'golden/scifact',
  tokenizers: 'tokenizers/bert-base-uncased-wordpiece/tokenizer.json',
};

/** The parts (keys of PARTS) missing under `shared`. */
function missingShared(parts = Object.keys(PARTS), shared = SHARED) {
  for (const p of parts) if (!(p in PARTS)) throw new Error(`shared-data: unknown part '${p}' (known: ${Object.keys(PARTS).join(', ')})`);
  return parts.filter((p) => !existsSync(join(shared, PARTS[p])));
}

/** One line: what is missing, and how to get it. */
function missingSharedMessage(missing, shared = SHARED) {
  const rel = relative(process.cwd(), shared);
  const where = rel === '' || rel.startsWith('..') ? shared : rel;
  const datasets = missing.filter((p) => p.startsWith('datasets/')).map((p) => p.split('/')[1]);
  const reference = missing.filter((p) => p === 'runs' || p === 'golden');
  const how = [
    ...datasets.map((d) => `'node dist/cli.js datasets get ${d} --dir ${join(where, 'datasets')}' fetches ${d}`),
    reference.length ? `the project's reference runs of other systems and trec_eval's outputs for them, not redistributable (set IRW_SHARED=DIR where you have them)` : '',
    missing.includes('tokenizers') ? "tokenizers/bert-base-uncased-wordpiece holds the tokenizer files of Hugging Face's Xenova/all-MiniLM-L6-v2 (Apache-2.0), to compare with" : '',
  ].filter(Boolean);
  return `needs ${missing.map((p) => join(where, p)).join(', ')}: ${how.join('; ')}`;
}

/**
 * node:test's `skip` option for a test (or describe) that reads these parts: false when they are all there,
 * else the one line saying what is missing and how to get it.
 */
function needsShared(...parts) {
  const missing = missingShared(parts);
  return missing.length === 0 ? false : missingSharedMessage(missing);
}

module.exports = { REPO, SHARED, DATASETS, RUNS, GOLDEN, missingShared, missingSharedMessage, needsShared };
