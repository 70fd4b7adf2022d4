// `npm run test:fresh-clone` (CI runs it): a clone of this commit with no ../shared beside it gets SciFact with the
// README's command (`irw datasets get scifact`, from a local server on 127.0.0.1 serving a zip built from
// ../shared's SciFact, or from a generated dataset where ../shared is absent), then `npm run demo` works on it;
// the unit tests that read ../shared are skipped, each saying why in one line, and pass otherwise; the webview,
// extension-host and end-to-end suites, lacking their data, are skipped and say so.
// (All of `npm test` in such a clone: see docs/development.md.)
import { spawn, spawnSync, type SpawnSyncOptionsWithStringEncoding } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { md5, startServer, zipFolder } from '../helpers/datasetServer';
import { writeSyntheticBeir } from '../helpers/syntheticBeir';

const REPO = resolve(__dirname, '..', '..');
const SCIFACT = join(process.env.IRW_SHARED ?? join(REPO, '..', 'shared'), 'datasets', 'scifact');
const started = Date.now();
let failed = 0;
let passed = 0;

function check(name: string, ok: boolean, detail = ''): void {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? '✔' : '✖'} ${name}${ok || !detail ? '' : `\n${detail}`}`);
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-fresh-'));
  const clone = join(tmp, 'clone');
  const env = { ...process.env };
  delete env.IRW_SHARED;
  delete env.IRW_DEMO_DATASET;
  const sh = (cmd: string, args: string[], opts: Partial<SpawnSyncOptionsWithStringEncoding> = {}) => spawnSync(cmd, args, { cwd: clone, env, encoding: 'utf8', ...opts });
  const server = await (async () => {
    const real = existsSync(join(SCIFACT, 'corpus.jsonl'));
    const source = real ? SCIFACT : join(tmp, 'generated');
    if (!real) writeSyntheticBeir(source, { docs: 800, queries: 40, vocabulary: 4000, seed: 11 });
    const zip = await zipFolder(source, 'scifact');
    const s = await startServer(new Map([['/beir/scifact.zip', { body: zip, slowPieces: 30 }]]));
    console.log(`fresh clone: serving a zip of ${real ? SCIFACT : 'a generated dataset'} (${zip.length} bytes) at ${s.url}/beir/scifact.zip`);
    return { ...s, real, md5: md5(zip) };
  })();
  try {
    const c = spawnSync('git', ['clone', '-q', REPO, clone], { encoding: 'utf8' });
    if (c.status !== 0) throw new Error(`git clone failed: ${c.stderr}`);
    // The packages of this checkout (CI has just run npm ci); the clone has no ../shared beside it.
    symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'), 'dir');
    const build = sh('npm', ['run', 'build', '--silent']);
    check('the clone builds', build.status === 0, build.stderr);

    // The README's command, with the server's address and the zip's md5 instead of BEIR's (spawned, not
    // spawnSync: the server answers from this process's event loop).
    const get = await new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = spawn('node', ['dist/cli.js', 'datasets', 'get', 'scifact', '--md5', server.md5], { cwd: clone, env: { ...env, IRW_BEIR_BASE_URL: `${server.url}/beir`, IRW_PROGRESS_SECONDS: '1' } });
      let stderr = '';
      child.stderr.on('data', (b) => (stderr += b));
      child.on('close', (status) => done({ status, stderr }));
    });
    console.log(get.stderr.trim().replace(/^/gm, '    '));
    check("'irw datasets get scifact' unpacks into datasets/scifact", get.status === 0 && existsSync(join(clone, 'datasets', 'scifact', 'qrels', 'test.tsv')), get.stderr);

    const demo = sh('npm', ['run', 'demo', '--silent']);
    const ndcg = /^ndcg_cut_10\s+all\s+(\S+)$/m.exec(demo.stdout)?.[1];
    console.log(`    ${demo.stdout.split('\n').find((l) => l.startsWith('demo:'))}; nDCG@10 ${ndcg}`);
    check(
      'npm run demo uses the downloaded SciFact and says so',
      demo.status === 0 && /^demo: SciFact from datasets\/scifact \(downloaded with 'irw datasets get scifact'\)$/m.test(demo.stdout) && (server.real ? ndcg === '0.6789' : Number(ndcg) > 0.5),
      demo.stdout + demo.stderr,
    );

    // The unit test files that read ../shared (the whole suite: see docs/development.md).
    const readers = testFiles(join(clone, 'test', 'unit')).filter((f) => readFileSync(f, 'utf8').includes('needsShared(')).map((f) => f.slice(clone.length + 1));
    const unit = sh('node', ['test/run-unit.mjs', ...readers]);
    const summary = /^unit: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(unit.stdout);
    const reasons = unit.stdout.split('\n').filter((l) => / # needs /.test(l));
    console.log(`    ${readers.length} test files that read ../shared: ${summary?.[0]}`);
    check(
      "the unit tests that read ../shared skip what needs it, each with one line saying how to get it, and pass otherwise",
      unit.status === 0 && summary !== null && summary[2] === '0' && Number(summary[3]) > 0 && Number(summary[1]) > 0 && reasons.length >= Number(summary[3]) &&
        reasons.every((l) => /needs \S+\/shared\/(datasets\/(scifact|nfcorpus)|runs|golden|tokenizers)/.test(l) && /datasets get \w+ --dir|not redistributable|Apache-2\.0/.test(l)),
      unit.stdout.slice(-3000) + unit.stderr,
    );
    for (const [suite, script, line] of [
      ['webview', ['test/run-webview.mjs'], /^webview: 0 passed, 0 failed, [1-9]\d* skipped$/m],
      ['integration', ['test/vscode/run.mjs'], /^integration: 0 passed, 0 failed, [1-9]\d* skipped$/m],
      ['e2e', ['test/e2e/run.mjs', '--package'], /^e2e: 0 passed, 0 failed, [1-9]\d* skipped$/m],
    ] as const) {
      const r = sh('node', [...script]);
      check(`the ${suite} suite, without its data, is skipped, saying why`, r.status === 0 && line.test(r.stdout) && /skipped.*needs|missing test data/.test(r.stdout), r.stdout + r.stderr);
    }
  } finally {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? testFiles(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

main().then(
  () => {
    console.log(`fresh clone: ${passed} passed, ${failed} failed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.exit(failed ? 1 : 0);
  },
  (e) => {
    console.error(`fresh clone: ${e instanceof Error ? e.message : String(e)}`);
    console.log(`fresh clone: ${passed} passed, ${failed + 1} failed`);
    process.exit(1);
  },
);
