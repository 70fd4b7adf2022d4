import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as yazl from 'yazl';

// The packaging script and the .vsix content check are plain ESM (.mjs) run by npm scripts.
const load = <T>(p: string): Promise<T> => import(p) as Promise<T>;
interface PackageScript {
  TARGETS: Record<string, { folder: string | null; files: string[]; universal?: boolean }>;
  ignoreFileFor(target: string, base?: string): string;
}
interface PackageCheck {
  checkVsix(vsix: string, o: { target: string; platform?: string; arch?: string; expectedBinaries: string[] }): Promise<{ problems: string[] }>;
}

const ORT = '!node_modules/onnxruntime-node/bin/napi-v*';

describe('platform-specific packaging (.ci/package.mjs, test/e2e/package-check.mjs)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-package-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('gives vsce, per target, an ignore file that admits only that platform\'s onnxruntime files', async () => {
    const { TARGETS, ignoreFileFor } = await load<PackageScript>('../../../.ci/package.mjs');
    assert.deepEqual(Object.keys(TARGETS), ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64', 'universal']);
    const lines = (t: string) => ignoreFileFor(t).split('\n').filter((l) => l.startsWith(`${ORT}/`));
    assert.deepEqual(lines('linux-x64'), [`${ORT}/linux/x64/onnxruntime_binding.node`, `${ORT}/linux/x64/libonnxruntime.so.1`]);
    assert.ok(lines('win32-x64').every((l) => l.startsWith(`${ORT}/win32/x64/`)) && lines('win32-x64').length === 5);
    assert.deepEqual(lines('darwin-x64'), []);
    assert.ok(lines('win32-arm64').every((l) => l.startsWith(`${ORT}/win32/arm64/`)) && lines('win32-arm64').length === 5);
    // The universal package: no onnxruntime at all (its neural runs say they need a platform's package).
    assert.deepEqual(ignoreFileFor('universal').split('\n').filter((l) => l.includes('onnxruntime')).filter((l) => l.startsWith('!')), []);
    assert.ok(ignoreFileFor('universal').includes('!node_modules/sql.js/dist/sql-wasm.wasm'));
    // Everything else of .vscodeignore is kept as is.
    const strip = (t: string) => ignoreFileFor(t).split('\n').filter((l) => !l.startsWith(`${ORT}/`) && !l.startsWith('# no onnxruntime'));
    assert.deepEqual(strip('darwin-arm64'), strip('linux-x64'));
  });

  it('the .vsix content check accepts a right package and names what is wrong in another', async () => {
    const { checkVsix } = await load<PackageCheck>('../../../test/e2e/package-check.mjs');
    const vsix = async (name: string, target: string, files: string[]) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from(`<PackageManifest><Identity${target ? ` TargetPlatform="${target}"` : ''}/></PackageManifest>`), 'extension.vsixmanifest');
      for (const f of files) zip.addBuffer(Buffer.from('x'), `extension/${f}`);
      zip.end();
      const path = join(tmp, name);
      await new Promise<void>((r) => zip.outputStream.pipe(createWriteStream(path)).on('close', () => r()));
      return path;
    };
    const base = ['package.json', 'LICENSE.txt', 'dist/extension.js', 'dist/runner.js', 'dist/engine.js', 'dist/cli.js', 'dist/webview/results.js', 'media/webview.css', 'node_modules/sql.js/dist/sql-wasm.wasm'];
    const ort = (dir: string, names: string[]) => names.map((n) => `node_modules/onnxruntime-node/bin/napi-v6/${dir}/${n}`);
    const good = await vsix('good.vsix', 'linux-arm64', [...base, ...ort('linux/arm64', ['onnxruntime_binding.node', 'libonnxruntime.so.1'])]);
    assert.deepEqual((await checkVsix(good, { target: 'linux-arm64', platform: 'linux', arch: 'arm64', expectedBinaries: ['onnxruntime_binding.node', 'libonnxruntime.so.1'] })).problems, []);
    const bad = await vsix('bad.vsix', 'linux-x64', [...base, ...ort('linux/arm64', ['onnxruntime_binding.node']), ...ort('linux/x64', ['libonnxruntime_providers_cuda.so'])]);
    const { problems } = await checkVsix(bad, { target: 'linux-arm64', platform: 'linux', arch: 'arm64', expectedBinaries: ['onnxruntime_binding.node', 'libonnxruntime.so.1'] });
    assert.equal(problems.length, 3, problems.join('\n'));
    assert.match(problems[0], /TargetPlatform="linux-arm64"/);
    assert.match(problems[1], /another platform: node_modules\/onnxruntime-node\/bin\/napi-v6\/linux\/x64\/libonnxruntime_providers_cuda\.so/);
    assert.match(problems[2], /binaries: libonnxruntime_providers_cuda\.so, onnxruntime_binding\.node; expected libonnxruntime\.so\.1, onnxruntime_binding\.node/);
    // The universal package names no target and carries no onnxruntime.
    const universal = async (name: string, target: string, files: string[]) => checkVsix(await vsix(name, target, files), { target: 'universal', expectedBinaries: [] });
    assert.deepEqual((await universal('u.vsix', '', base)).problems, []);
    const wrong = (await universal('u2.vsix', 'linux-x64', [...base, 'node_modules/onnxruntime-node/package.json'])).problems;
    assert.equal(wrong.length, 2, wrong.join('\n'));
    assert.match(wrong[0], /names a TargetPlatform: the universal package must not/);
    assert.match(wrong[1], /node_modules\/onnxruntime-node\/package\.json/);
  });
});
