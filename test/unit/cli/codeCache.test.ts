import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CLI, REPO } from '../support/paths';

/** Loads `bundle` through requireWithCodeCache in a fresh process and prints what the bundle exports. */
function load(tmp: string, bundle: string): string {
  const child = join(tmp, 'child.cjs');
  writeFileSync(
    child,
    `const { requireWithCodeCache } = require(${JSON.stringify(join(REPO, 'src/cli/codeCache.ts'))});
     const m = requireWithCodeCache(${JSON.stringify(bundle)}, 'cmd', ${JSON.stringify(join(tmp, 'cache'))});
     process.stdout.write(JSON.stringify(m.describe()));`,
  );
  const r = spawnSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const caches = (tmp: string) => readdirSync(join(tmp, 'cache')).filter((f) => f.endsWith('.bin'));

describe('requireWithCodeCache', () => {
  let tmp: string;
  let bundle: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'irw-codecache-'));
    bundle = join(tmp, 'bundle.js');
    // A bundle sees its own file name and a require() that resolves beside it, as a plain require gives it.
    writeFileSync(bundle, `#!/usr/bin/env node\nconst path = require('node:path');\nexports.describe = () => ({ file: __filename, dir: __dirname, sep: path.sep, self: require.resolve('./bundle.js') });\n`);
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs the bundle as require would, writes the cache at exit and reuses it unchanged', () => {
    const expected = JSON.stringify({ file: bundle, dir: tmp, sep: '/', self: bundle });
    assert.equal(load(tmp, bundle), expected);
    const [cache] = caches(tmp);
    assert.match(cache, /^cmd-[0-9a-f]{16}\.bin$/);
    const first = readFileSync(join(tmp, 'cache', cache));
    assert.ok(first.length > 0);
    const mtime = statSync(join(tmp, 'cache', cache)).mtimeMs;
    assert.equal(load(tmp, bundle), expected);
    // Accepted by V8, so not written again.
    assert.equal(statSync(join(tmp, 'cache', cache)).mtimeMs, mtime);
  });

  it('a damaged cache is rejected, the bundle still runs, and a good cache replaces it', () => {
    const [cache] = caches(tmp);
    const good = readFileSync(join(tmp, 'cache', cache));
    writeFileSync(join(tmp, 'cache', cache), Buffer.from('not a V8 code cache'));
    assert.equal(JSON.parse(load(tmp, bundle)).file, bundle);
    assert.equal(readFileSync(join(tmp, 'cache', cache)).length, good.length);
  });

  it('a changed bundle gets a cache of its own, which replaces the old one', () => {
    const [old] = caches(tmp);
    writeFileSync(bundle, `exports.describe = () => ({ changed: true });\n`);
    assert.equal(load(tmp, bundle), '{"changed":true}');
    const now = caches(tmp);
    assert.equal(now.length, 1);
    assert.notEqual(now[0], old);
  });
});

describe('irw (dist/cli.js, the launcher)', () => {
  it('runs through its own shebang, which gives Node one V8 background thread', { skip: process.platform === 'win32' }, () => {
    assert.match(readFileSync(CLI, 'utf8').split('\n')[0], /^#!\/usr\/bin\/env -S node --v8-pool-size=1$/);
    const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
    const version = spawnSync(CLI, ['--version'], { encoding: 'utf8', env });
    assert.equal(version.status, 0, version.stderr);
    assert.match(version.stdout, /^irw \S+\n$/);
  });

  it('keeps exit codes and output, with or without a cache', () => {
    const home = mkdtempSync(join(tmpdir(), 'irw-codecache-home-'));
    try {
      for (const env of [{ XDG_CACHE_HOME: home }, { XDG_CACHE_HOME: home }, { IRW_CODE_CACHE: '0' }]) {
        const version = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', env: { ...process.env, ...env } });
        assert.equal(version.status, 0, version.stderr);
        assert.match(version.stdout, /^irw \S+\n$/);
        const unknown = spawnSync(process.execPath, [CLI, 'nosuch'], { encoding: 'utf8', env: { ...process.env, ...env } });
        assert.equal(unknown.status, 2);
        assert.match(unknown.stderr, /unknown command 'nosuch'/);
      }
      // A failed command (here a mistyped one) leaves no cache behind.
      assert.deepEqual(readdirSync(join(home, 'irw', 'v8')).map((f) => f.replace(/-[0-9a-f]+\.bin$/, '')).sort(), ['__version']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('irw compare sets its V8 flags before its bundle is compiled: the code cache made under them is accepted next time', () => {
    const home = mkdtempSync(join(tmpdir(), 'irw-codecache-compare-'));
    try {
      const qrels = join(home, 'q.txt');
      const [a, b] = [join(home, 'a.txt'), join(home, 'b.txt')];
      writeFileSync(qrels, 'q1 0 d1 1\nq2 0 d3 1\n');
      writeFileSync(a, 'q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d3 1 2 a\n');
      writeFileSync(b, 'q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d4 1 2 b\n');
      const compare = () => spawnSync(process.execPath, [CLI, 'compare', qrels, a, b, '--resamples', '10'], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: home } });
      const first = compare();
      assert.equal(first.status, 0, first.stderr);
      const cache = join(home, 'irw', 'v8', readdirSync(join(home, 'irw', 'v8')).find((f) => f.startsWith('compare-'))!);
      const mtime = statSync(cache).mtimeMs;
      // Flags set after the compile would make V8 reject the cache (it records the flags) and rewrite it every run.
      const second = compare();
      assert.equal(second.stdout, first.stdout);
      assert.equal(statSync(cache).mtimeMs, mtime);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('irw eval loads its own bundle, without the other commands, and no node:crypto (a cold start is what a loop over runs waits for)', () => {
    const evalBundle = readFileSync(join(REPO, 'dist', 'irw-eval.js'), 'utf8');
    for (const other of ['runCommand', 'fuseCommand', 'datasetsCommand', 'compareCommand']) assert.ok(!evalBundle.includes(`${other} =`), other);
    assert.ok(evalBundle.includes('evalCommand ='));
    const dir = mkdtempSync(join(tmpdir(), 'irw-codecache-eval-'));
    try {
      const qrels = join(dir, 'q.txt');
      const run = join(dir, 'r.txt');
      writeFileSync(qrels, 'q1 0 d1 1\n');
      writeFileSync(run, 'q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.25 t\n');
      // At exit, the built-in modules the process loaded and the bundles it read.
      const probe = join(dir, 'probe.cjs');
      writeFileSync(
        probe,
        `const fs = require('node:fs'); const read = fs.readFileSync; const files = [];
         fs.readFileSync = function (p, ...rest) { files.push(String(p)); return read.call(this, p, ...rest); };
         const exit = process.exit;
         process.exit = (c) => { process.stderr.write('PROBE ' + JSON.stringify({ crypto: process.moduleLoadList.includes('NativeModule crypto'), bundles: files.filter((f) => /irw[-\\w]*\\.js$/.test(f)) })); exit(c); };`,
      );
      const r = spawnSync(process.execPath, ['-r', probe, CLI, 'eval', '-m', 'P.1', qrels, run], { encoding: 'utf8', env: { ...process.env, IRW_CODE_CACHE: '0' } });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, 'P_1                   \tall\t1.0000\n');
      const seen = JSON.parse(/PROBE (.*)$/.exec(r.stderr)![1]) as { crypto: boolean; bundles: string[] };
      assert.deepEqual(seen, { crypto: false, bundles: [join(REPO, 'dist', 'irw-eval.js')] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
