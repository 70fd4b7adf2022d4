// Bundles the extension host, the CLI / child-process entry and the webviews.
// Type-checking is separate (`npm run typecheck`): esbuild only strips types.
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
// The commit a build comes from, for the provenance every run's sidecar records (null outside a git checkout).
const commit = (() => {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${head}+modified` : head;
  } catch {
    return null;
  }
})();
// A bundle whose entry is gone must not linger in dist/ (the .vsix would ship it).
if (!watch) rmSync('dist', { recursive: true, force: true });

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
  // Native / WASM packages stay outside the bundle and are loaded from node_modules at run time.
  external: ['vscode', 'onnxruntime-node', 'sql.js'],
  define: { IRW_VERSION: JSON.stringify(version), IRW_COMMIT: JSON.stringify(commit) },
};

/** Leaves main.ts's other commands out of a bundle: their require() gets a module that says so. */
function onlyCommand(name) {
  return {
    name: `only-${name}`,
    setup(b) {
      b.onResolve({ filter: /^\.\/\w+$/ }, (a) =>
        a.importer.endsWith('main.ts') && a.path !== `./${name}` && /^\.\/(eval|run|fuse|datasets|compare)$/.test(a.path) ? { path: a.path, namespace: 'left-out' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => ({ contents: `throw new Error('irw-${name}.js holds only irw ${name}, not ${a.path}');`, loader: 'js' }));
    },
  };
}

const builds = [
  { ...node, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist' },
  // `irw` (package.json's bin) is a small launcher that loads the CLI's bundle, irw.js, with a V8 code cache. It
  // runs Node with one V8 background thread instead of four: on a 2-core machine with other work, the four
  // (compiling and collecting garbage while the command runs) took the main thread's core, and a cold SciFact
  // `irw run` took 427 ms instead of 385 (median of 11; no change under real-time scheduling, nor for a 500k-
  // document two-thread build). `env -S` splits the options (GNU, BSD and macOS env; npm's cmd-shim on Windows).
  { ...node, entryPoints: { cli: 'src/cli/launch.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env -S node --v8-pool-size=1' } },
  { ...node, entryPoints: { irw: 'src/cli/main.ts' }, outdir: 'dist' },
  // `irw eval` alone, which the launcher loads for that command: 130 kB instead of 900, so a cold evaluation of a
  // small run reads and deserializes a seventh of the code (bench:eval: ~15% of its wall time on SciFact).
  { ...node, entryPoints: { 'irw-eval': 'src/cli/main.ts' }, outdir: 'dist', plugins: [onlyCommand('eval')] },
];

// The workspace store's worker thread (sql.js off the extension host's thread).
builds.push({ ...node, entryPoints: { 'engine': 'src/core/engine/worker.ts' }, outdir: 'dist' });
builds.push({ ...node, entryPoints: { 'run-parser': 'src/core/index/runParser.ts' }, outdir: 'dist' });
// irw eval reads the second part of a large run file in a worker thread of this.
builds.push({ ...node, entryPoints: { 'run-reader': 'src/core/formats/runInParallel.ts' }, outdir: 'dist' });
// BM25 index builds analyse part of the corpus in a worker thread of this entry.
builds.push({ ...node, entryPoints: { 'bm25-worker': 'src/core/retrieval/bm25/analysisWorker.ts' }, outdir: 'dist' });
// BM25 runs search queries on several threads over the shared index with workers of this entry.
builds.push({ ...node, entryPoints: { 'bm25-search': 'src/core/retrieval/bm25/searchWorker.ts' }, outdir: 'dist' });
if (existsSync('src/runner/child.ts')) {
  builds.push({ ...node, entryPoints: { runner: 'src/runner/child.ts' }, outdir: 'dist' });
}
for (const entry of ['results', 'diff', 'holes', 'annotate']) {
  if (existsSync(`webview/${entry}/main.ts`)) {
    builds.push({
      bundle: true,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      sourcemap: !production,
      minify: production,
      logLevel: 'info',
      entryPoints: { [entry]: `webview/${entry}/main.ts` },
      outdir: 'dist/webview',
    });
  }
}

mkdirSync('dist', { recursive: true });
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  chmodSync('dist/cli.js', 0o755);
}
