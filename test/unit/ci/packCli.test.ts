// The irw command line's npm tarball (.ci/pack-cli.mjs): the CLI's bundles and no dependency to fetch, so that
// `npm install -g ./ir-workbench-<version>.tgz` works with no network; a neural run then says what to add.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO, requireBuiltCli } from '../support/paths';

interface PackCli {
  CLI_BUNDLES: string[];
  cliManifest(m: object): { dependencies?: object; optionalDependencies?: object; peerDependenciesMeta: Record<string, { optional: boolean }>; bin: Record<string, string> };
  packCli(o: { repo?: string; out?: string; tmp?: string }): string;
}

describe('npm run pack:cli: irw installs offline with one command', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-pack-cli-test-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('the tarball holds the bundles, README, LICENSE and CHANGELOG; its package.json needs nothing from a registry', async () => {
    requireBuiltCli();
    const load = <T>(p: string): Promise<T> => import(p) as Promise<T>;
    const { CLI_BUNDLES, cliManifest, packCli } = await load<PackCli>('../../../.ci/pack-cli.mjs');
    // Every bundle the CLI's bundles load (each names its siblings as 'name.js') is packed: none is forgotten.
    const loaded = new Set(['cli.js']);
    for (const b of loaded) for (const [, name] of readFileSync(join(REPO, 'dist', b), 'utf8').matchAll(/["']([\w-]+\.js)["']/g)) if (existsSync(join(REPO, 'dist', name))) loaded.add(name);
    assert.deepEqual([...loaded].sort(), [...CLI_BUNDLES].sort());
    const manifest = cliManifest(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')));
    assert.equal(manifest.dependencies, undefined);
    assert.equal(manifest.optionalDependencies, undefined);
    assert.deepEqual(manifest.peerDependenciesMeta, { 'onnxruntime-node': { optional: true } });
    assert.deepEqual(manifest.bin, { irw: 'dist/cli.js' });

    const tgz = packCli({ out: join(tmp, 'out'), tmp });
    const list = spawnSync('tar', ['tzf', tgz], { encoding: 'utf8' }).stdout.trim().split('\n').sort();
    assert.deepEqual(list, ['package/CHANGELOG.md', 'package/LICENSE', 'package/README.md', ...CLI_BUNDLES.map((f) => `package/dist/${f}`), 'package/package.json'].sort());

    // No network: an unreachable registry and an empty cache.
    const prefix = join(tmp, 'prefix');
    const cache = join(tmp, 'cache');
    mkdirSync(cache);
    const started = Date.now();
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--cache', cache, '--registry', 'http://127.0.0.1:9/', '--no-fund', '--no-audit', tgz], { encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr);
    assert.ok(Date.now() - started < 60_000, `npm took ${Date.now() - started} ms: it tried the network`);
    const irw = (...args: string[]) => spawnSync(join(prefix, 'bin', 'irw'), args, { encoding: 'utf8', cwd: tmp });
    assert.match(irw('--version').stdout, /^irw \d+\.\d+\.\d+/);
    writeFileSync(join(tmp, 'qrels'), 'q1 0 a 1\nq1 0 b 2\n');
    writeFileSync(join(tmp, 'run'), 'q1 Q0 b 1 2 r\nq1 Q0 x 2 1 r\n');
    const e = irw('eval', '-m', 'nDCG@10', '-m', 'P(rel=2)@1', join(tmp, 'qrels'), join(tmp, 'run'));
    assert.equal(e.status, 0, e.stderr);
    assert.equal(e.stdout, 'P(rel=2)@1            \tall\t1.0000\nndcg_cut_10           \tall\t0.7602\n');

    // A dense run without onnxruntime-node: what to add, exit 1, no stack trace.
    const ds = join(tmp, 'ds');
    mkdirSync(join(ds, 'qrels'), { recursive: true });
    writeFileSync(join(ds, 'corpus.jsonl'), '{"_id": "a", "text": "x"}\n');
    writeFileSync(join(ds, 'queries.jsonl'), '{"_id": "q1", "text": "x"}\n');
    writeFileSync(join(ds, 'qrels', 'test.tsv'), 'q1\ta\t1\n');
    const model = join(tmp, 'model');
    mkdirSync(model);
    writeFileSync(join(model, 'model.onnx'), 'not a model');
    writeFileSync(join(model, 'vocab.txt'), '[PAD]\n[UNK]\n[CLS]\n[SEP]\nx\n');
    const d = irw('run', '--retriever', 'dense', '--model', model, '--dataset', ds, '--out', join(tmp, 'd.trec'));
    assert.equal(d.status, 1, d.stderr);
    assert.match(d.stderr, /need onnxruntime-node for \w+-\w+, which this installation lacks[^\n]*\n {2}irw: add it beside irw with npm install -g onnxruntime-node/);
    assert.doesNotMatch(d.stderr, /\n\s+at /);
  });
});
