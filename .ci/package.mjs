// Packages the extension as platform-specific .vsix files (`vsce package --target`), each carrying only its own
// platform's onnxruntime-node binaries (the npm package ships them all, ~290 MB), and a universal one with none:
// everything but the neural runs (dense, re-rank, hybrid), which say there that they need the platform's package.
// .vscodeignore names linux-x64's files; for each target a copy naming that target's files is given to vsce
// (--ignoreFile). Relative links in the README are kept (--no-rewrite-relative-links): no repository URL to make
// them absolute with; its screenshots are in media/, which the .vsix holds.
// Usage: node .ci/package.mjs TARGET... | --all   (after `node esbuild.mjs --production`)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
/**
 * vsce target → onnxruntime-node's bin folder and the files of it the CPU binding loads (the npm package's own;
 * CUDA provider libraries are left out). darwin-x64: onnxruntime-node 1.30 ships no binary for Intel Macs.
 */
export const TARGETS = {
  'linux-x64': { folder: 'linux/x64', files: ['onnxruntime_binding.node', 'libonnxruntime.so.1'] },
  'linux-arm64': { folder: 'linux/arm64', files: ['onnxruntime_binding.node', 'libonnxruntime.so.1'] },
  'darwin-x64': { folder: null, files: [] },
  'darwin-arm64': { folder: 'darwin/arm64', files: ['onnxruntime_binding.node', 'libonnxruntime.1.dylib', 'libonnxruntime.1.30.0.dylib'] },
  'win32-x64': { folder: 'win32/x64', files: ['onnxruntime_binding.node', 'onnxruntime.dll', 'DirectML.dll', 'dxcompiler.dll', 'dxil.dll'] },
  'win32-arm64': { folder: 'win32/arm64', files: ['onnxruntime_binding.node', 'onnxruntime.dll', 'DirectML.dll', 'dxcompiler.dll', 'dxil.dll'] },
  // Any other platform (and VS Code for the Web's desktop peers without a package): no onnxruntime at all.
  universal: { folder: null, files: [], universal: true },
};
const ORT_ANY = /^!node_modules\/onnxruntime-(node|common)\/.*\n/gm;
const ORT_LINE = /^!node_modules\/onnxruntime-node\/bin\/.*\n/gm;

export function vsixPath(target) {
  return join(REPO, `ir-workbench-${target}.vsix`);
}

/**
 * The .vscodeignore text for a target: linux-x64's line swapped for the target's folder (or dropped); for the
 * universal package every onnxruntime line dropped.
 */
export function ignoreFileFor(target, base = readFileSync(join(REPO, '.vscodeignore'), 'utf8')) {
  const { folder, files, universal } = TARGETS[target];
  if (universal) return base.replace(ORT_ANY, '');
  const lines = files.map((f) => `!node_modules/onnxruntime-node/bin/napi-v*/${folder}/${f}\n`);
  let first = true;
  const text = base.replace(ORT_LINE, () => (first ? ((first = false), lines.join('') || '# no onnxruntime-node binary for this target\n') : ''));
  if (first) throw new Error('.vscodeignore names no onnxruntime-node binary to swap: update .ci/package.mjs');
  return text;
}

function pack(target) {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-vscodeignore-'));
  const ignore = join(tmp, '.vscodeignore');
  writeFileSync(ignore, ignoreFileFor(target));
  const out = vsixPath(target);
  const t0 = Date.now();
  console.log(`package: ${target} …`);
  const vsce = join(REPO, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
  const targetArgs = TARGETS[target].universal ? [] : ['--target', target];
  const r = spawnSync(vsce, ['package', ...targetArgs, '--ignoreFile', ignore, '--no-rewrite-relative-links', '--allow-missing-repository', '--out', out], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  rmSync(tmp, { recursive: true, force: true });
  if (r.status !== 0) {
    process.stdout.write(r.stdout ?? '');
    throw new Error(`vsce package --target ${target} failed (exit code ${r.status})`);
  }
  console.log(`package: ${out} ${(statSync(out).size / 2 ** 20).toFixed(1)} MiB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const targets = args.includes('--all') ? Object.keys(TARGETS) : args;
  const unknown = targets.filter((t) => !(t in TARGETS));
  if (!targets.length || unknown.length) {
    console.error(`usage: node .ci/package.mjs TARGET... | --all (targets: ${Object.keys(TARGETS).join(', ')})${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
    process.exit(2);
  }
  if (!existsSync(join(REPO, 'dist', 'extension.js'))) {
    console.error('package: dist/ is missing: run `node esbuild.mjs --production` first');
    process.exit(1);
  }
  for (const t of targets) pack(t);
}
