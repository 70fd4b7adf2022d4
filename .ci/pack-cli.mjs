// `npm run pack:cli`: the irw command line as an npm tarball, ir-workbench-<version>.tgz, that installs with one
// command and no network (`npm install -g ./ir-workbench-<version>.tgz`, ~0.5 MB installed). It holds the CLI's
// bundles (esbuild puts every package they use inside them), the README, LICENSE and CHANGELOG, and a package.json
// with no dependency to fetch: onnxruntime-node (~300 MB, for dense, re-rank and hybrid runs only) is an optional
// peer, added beside irw with `npm install -g onnxruntime-node` where wanted; without it a neural run says so.
// The repository's own package.json is the extension's (its dependencies are what the .vsix packs), so a plain
// `npm pack` of the repository is refused (package.json's prepack).
// Usage: node .ci/pack-cli.mjs [--out DIR]   (after `node esbuild.mjs --production`; npm run pack:cli does both)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
/** What the CLI loads at run time: the launcher, the bundles (irw eval's own), and the worker threads' bundles. */
export const CLI_BUNDLES = ['cli.js', 'irw.js', 'irw-eval.js', 'run-reader.js', 'bm25-worker.js', 'bm25-search.js'];
const DOCS = ['README.md', 'LICENSE', 'CHANGELOG.md'];

/** The CLI's package.json, from the repository's. */
export function cliManifest(repoManifest) {
  const ort = repoManifest.dependencies['onnxruntime-node'];
  return {
    name: repoManifest.name,
    version: repoManifest.version,
    description: 'irw: the command line of IR Workbench (trec_eval-exact evaluation, BEIR datasets, BM25/dense/hybrid runs, fusion, comparisons)',
    license: repoManifest.license,
    bin: { irw: 'dist/cli.js' },
    engines: { node: repoManifest.engines.node },
    peerDependencies: { 'onnxruntime-node': ort },
    peerDependenciesMeta: { 'onnxruntime-node': { optional: true } },
  };
}

/** Writes the package into a fresh folder under `tmp` and packs it into `out`; returns the tarball's path. */
export function packCli({ repo = REPO, out = repo, tmp = tmpdir() } = {}) {
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  for (const f of CLI_BUNDLES) {
    if (!existsSync(join(repo, 'dist', f))) throw new Error(`dist/${f} is missing: run \`node esbuild.mjs --production\` first (npm run pack:cli does)`);
  }
  const stage = mkdtempSync(join(tmp, 'irw-pack-cli-'));
  try {
    mkdirSync(join(stage, 'dist'));
    for (const f of CLI_BUNDLES) copyFileSync(join(repo, 'dist', f), join(stage, 'dist', f));
    for (const f of DOCS) copyFileSync(join(repo, f), join(stage, f));
    writeFileSync(join(stage, 'package.json'), `${JSON.stringify(cliManifest(manifest), null, 2)}\n`);
    mkdirSync(out, { recursive: true });
    const r = spawnSync('npm', ['pack', '--pack-destination', resolve(out), '--loglevel=error'], { cwd: stage, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm pack failed (exit code ${r.status}): ${r.stderr}`);
    return join(resolve(out), r.stdout.trim().split('\n').pop());
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--out');
  try {
    const tgz = packCli({ out: i > 0 ? process.argv[i + 1] : REPO });
    const bytes = readFileSync(tgz).length;
    console.log(`pack:cli: ${tgz} (${(bytes / 1024).toFixed(0)} kB); install it with: npm install -g ${tgz}`);
  } catch (e) {
    console.error(`pack:cli: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
