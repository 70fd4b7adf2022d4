// Prepares an extension-host test run: compiles test/integration/ to out/integration/ and lays out the fixture
// workspace the tests open. run.mjs imports it; .vscode/launch.json runs it as a task:
//   node test/vscode/prepare.mjs [--workspace DIR] [--datasets DIR]   (defaults: out/fixture-workspace, see below)
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { DATASETS } from '../shared-data.cjs';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SUITE_INDEX = join(REPO, 'out', 'integration', 'index.js');
/** The datasets the fixture workspace holds, each copied from DATASETS_DIR/<name> (BEIR layout). */
export const FIXTURE_DATASETS = ['scifact'];
const BEIR_FILES = ['corpus.jsonl', 'queries.jsonl', join('qrels', 'test.tsv')];

/** The shared datasets beside the repository (../shared/datasets, or IRW_SHARED's), unless told otherwise. */
export function datasetsDir(explicit) {
  return resolve(explicit ?? process.env.IRW_TEST_DATASETS ?? DATASETS);
}

function entries(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? entries(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** One bundle per test file plus index.js (mocha bundled in, `vscode` left to the extension host). */
export async function compileSuite() {
  const src = join(REPO, 'test', 'integration');
  const outdir = dirname(SUITE_INDEX);
  rmSync(outdir, { recursive: true, force: true }); // no stale *.test.js from deleted sources
  const entryPoints = entries(src).filter((f) => f.endsWith('.test.ts') || f === join(src, 'index.ts'));
  await esbuild.build({
    entryPoints,
    outbase: src,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    external: ['vscode'],
    logLevel: 'warning',
    // mocha's parallel mode resolves its worker files at run time; the suite runs serially and never loads them.
    logOverride: { 'require-resolve-not-external': 'silent' },
  });
  return SUITE_INDEX;
}

/** One line saying which fixture dataset file is missing and how to get it; null when all are there. */
export function missingFixtures(datasets = datasetsDir()) {
  for (const name of FIXTURE_DATASETS) {
    for (const file of BEIR_FILES) {
      const p = join(datasets, name, file);
      if (!existsSync(p)) {
        return `missing test data ${p}: get it with 'node dist/cli.js datasets get ${name} --dir ${datasets}', or set ` +
          `IRW_TEST_DATASETS (or --datasets) to a folder holding ${FIXTURE_DATASETS.join(', ')} in BEIR layout`;
      }
    }
  }
  return null;
}

/** A writable workspace holding copies of the fixture datasets (tests may write runs next to them). */
export function makeWorkspace(dest, datasets = datasetsDir()) {
  const missing = missingFixtures(datasets);
  if (missing) throw new Error(missing);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  for (const name of FIXTURE_DATASETS) cpSync(join(datasets, name), join(dest, name), { recursive: true, dereference: true });
  makeWritable(dest); // the shared originals are read-only
  return dest;
}

function makeWritable(dir) {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) makeWritable(join(dir, e.name));
    else chmodSync(join(dir, e.name), 0o644);
  }
}

export function option(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const ws = makeWorkspace(resolve(option(args, '--workspace') ?? join(REPO, 'out', 'fixture-workspace')),
    datasetsDir(option(args, '--datasets')));
  console.log(`suite: ${await compileSuite()}\nworkspace: ${ws}`);
}
