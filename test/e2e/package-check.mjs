// Checks an extension as code-server installed it from the .vsix: it holds only what runs (bundles, icon,
// manifest, README/CHANGELOG, the docs section a command opens, and the external packages esbuild leaves out, for one platform), the bundles are the
// production build, and every package a bundle requires is in the package and loads under the workbench's Node.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import yauzl from 'yauzl';

/**
 * Paths (relative to the extension folder) that may ship, for `platform`-`arch` (e.g. linux, x64); for the
 * universal package (platform undefined) nothing of onnxruntime.
 */
function allowed(platform, arch) {
  const ort = 'node_modules/onnxruntime-node';
  return [
    /^package\.json$/, /^readme\.md$/i, /^changelog\.md$/i, /^license\.txt$/i, /^\.vsixmanifest$/,
    // Opened by Run BEIR Eval's How to Get a Model.
    /^docs\/cli\.md$/,
    /^dist\/[\w-]+\.js$/, /^dist\/webview\/.+\.(js|css)$/, /^media\//,
    /^node_modules\/sql\.js\/(package\.json|LICENSE|dist\/sql-wasm\.(js|wasm))$/,
    ...(platform === undefined ? [] : [
      new RegExp(`^${ort}/(package\\.json|dist/[\\w-]+\\.js|bin/napi-v\\d+/${platform}/${arch}/[^/]+)$`),
      /^node_modules\/onnxruntime-common\/(package\.json|dist\/cjs\/.+\.js|dist\/cjs\/package\.json)$/,
    ]),
  ];
}

/** What must be there for the extension to work at all. */
const REQUIRED = ['package.json', 'LICENSE.txt', 'docs/cli.md', 'dist/extension.js', 'dist/runner.js', 'dist/engine.js', 'dist/cli.js',
  'dist/webview/results.js', 'media/webview.css', 'node_modules/sql.js/dist/sql-wasm.wasm'];

function files(dir, root = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), root) : [relative(root, join(dir, e.name))]);
}

/**
 * Bare package names a bundle requires at run time (node builtins and `vscode` excluded). esbuild writes the
 * requires it leaves external as require("name"), double-quoted; single-quoted ones are text inside strings
 * (the store client's development-only `require('tsx/cjs')` for a worker given as TypeScript source).
 */
function requiredPackages(bundle) {
  const names = new Set();
  for (const m of readFileSync(bundle, 'utf8').matchAll(/\brequire\("([^"./][^"]*)"\)/g)) {
    const spec = m[1];
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (name !== 'vscode' && !spec.startsWith('node:') && !builtinModules.includes(name)) names.add(name);
  }
  return [...names];
}

/**
 * Returns a list of problems (empty when the package is right). `node` is the binary of the Node the workbench's
 * extension host runs on, used to load each required package from the extension folder.
 */
export function checkInstalledPackage(extDir, { platform = 'linux', arch = 'x64', node = process.execPath } = {}) {
  const problems = [];
  const all = files(extDir);
  const patterns = allowed(platform, arch);
  const extra = all.filter((f) => !patterns.some((p) => p.test(f)));
  if (extra.length) problems.push(`ships files that do not run: ${extra.slice(0, 10).join(', ')}${extra.length > 10 ? ` (+${extra.length - 10})` : ''}`);
  for (const f of REQUIRED) if (!all.includes(f)) problems.push(`missing ${f}`);
  if (!all.some((f) => f.startsWith(`node_modules/onnxruntime-node/bin/`) && f.endsWith('.node'))) {
    problems.push(`missing onnxruntime-node's ${platform}/${arch} binding`);
  }
  const bundles = all.filter((f) => /^dist\/[\w-]+\.js$/.test(f));
  for (const b of bundles) {
    if (readFileSync(join(extDir, b), 'utf8').includes('sourceMappingURL')) {
      problems.push(`${b} is a development build (has a source map link): package with \`npm run package\``);
    }
  }
  const packages = [...new Set(bundles.flatMap((b) => requiredPackages(join(extDir, b))))];
  // Load each from the installed folder, as the extension host and its child processes will.
  const script = `for (const p of ${JSON.stringify(packages)}) require(require.resolve(p, { paths: [${JSON.stringify(join(extDir, 'dist'))}] }));`;
  const load = spawnSync(node, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (load.status !== 0) problems.push(`a package the bundles require does not load from the .vsix: ${(load.stderr || load.error?.message || '').trim().split('\n').slice(0, 6).join(' | ')}`);
  return { problems, files: all, packages };
}

/** Entry names of a zip (a .vsix), read with yauzl. */
function zipEntries(path) {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: false }, (err, zip) => {
      if (err) return reject(err);
      const names = [];
      let manifest = '';
      zip.on('entry', (e) => {
        names.push(e.fileName);
        if (e.fileName === 'extension.vsixmanifest') {
          zip.openReadStream(e, (er, s) => {
            if (er) return reject(er);
            s.on('data', (b) => (manifest += b));
          });
        }
      });
      zip.on('end', () => setTimeout(() => resolve({ names, manifest }), 50));
      zip.on('error', reject);
    });
  });
}

/**
 * Checks a .vsix without installing it: its target platform (none for the universal package, `platform`
 * undefined), that it holds only what runs, and that its onnxruntime-node binaries are exactly
 * `expectedBinaries` (file names) of `platform`/`arch`'s folder.
 */
export async function checkVsix(vsix, { target, platform, arch, expectedBinaries }) {
  const problems = [];
  const { names, manifest } = await zipEntries(vsix);
  if (platform === undefined) {
    if (manifest.includes('TargetPlatform=')) problems.push('extension.vsixmanifest names a TargetPlatform: the universal package must not');
  } else if (!manifest.includes(`TargetPlatform="${target}"`)) problems.push(`extension.vsixmanifest does not name TargetPlatform="${target}"`);
  const files = names.filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
  const patterns = allowed(platform, arch);
  const extra = files.filter((f) => !patterns.some((p) => p.test(f)));
  if (extra.length) problems.push(`ships files that do not run or belong to another platform: ${extra.slice(0, 10).join(', ')}${extra.length > 10 ? ` (+${extra.length - 10})` : ''}`);
  for (const f of REQUIRED) if (!files.includes(f)) problems.push(`missing ${f}`);
  const binaries = files.filter((f) => f.startsWith('node_modules/onnxruntime-node/bin/')).map((f) => f.split('/').pop()).sort();
  const want = [...expectedBinaries].sort();
  if (binaries.join() !== want.join()) problems.push(`onnxruntime-node binaries: ${binaries.join(', ') || 'none'}; expected ${want.join(', ') || 'none'}`);
  return { problems, files };
}
