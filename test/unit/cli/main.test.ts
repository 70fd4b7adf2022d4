// `irw` itself: help where it was asked for, "did you mean" for a mistyped command, subcommand or option, and a
// closed output pipe (`irw ... | head -1`) ending any command quietly.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { requireBuiltCli } from '../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'irw-main-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const irw = (...args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), ...args], { encoding: 'utf8' });

describe('irw: help and "did you mean"', () => {
  it('irw alone is a usage error: the help on stderr, nothing on stdout, exit 2; asked for, the help is on stdout, exit 0', () => {
    const alone = irw();
    assert.equal(alone.status, 2);
    assert.equal(alone.stdout, '');
    assert.match(alone.stderr, /^irw — IR Workbench command line\n\nusage: irw <command>/);
    for (const ask of ['--help', '-h', 'help']) {
      const r = irw(ask);
      assert.equal(r.status, 0, ask);
      assert.match(r.stdout, /^irw — IR Workbench command line/, ask);
      assert.equal(r.stderr, '', ask);
    }
    const datasets = irw('datasets');
    assert.equal(datasets.status, 2);
    assert.equal(datasets.stdout, '');
    assert.match(datasets.stderr, /irw datasets list/);
  });

  const typos: [string[], RegExp][] = [
    [['evl'], /^irw: unknown command 'evl': did you mean 'eval'\?\nRun 'irw --help' for the commands\.\n$/],
    [['comapre'], /did you mean 'compare'\?/],
    [['datasets', 'lst'], /unknown subcommand 'lst': did you mean 'list'\? \(list or get\)/],
    [['run', '--top-kk', '5', '--dataset', 'd', '--out', 'o'], /irw run: unknown option '--top-kk': did you mean '--top-k'\?/],
    [['compare', '--fail-if-wrose', 'q', 'a', 'b'], /unknown option '--fail-if-wrose': did you mean '--fail-if-worse'\?/],
    [['fuse', '--methd', 'rrf', 'a', 'b'], /unknown option '--methd': did you mean '--method'\?/],
    [['eval', '--trec-evl', '10', 'q', 'r'], /irw eval: unknown option '--trec-evl': did you mean '--trec-eval'\?/],
    [['eval', '-m', 'nDGC@10', 'q', 'r'], /unknown measure 'nDGC@10': did you mean 'nDCG@10'\?/],
  ];
  for (const [args, message] of typos) {
    it(`irw ${args.join(' ')}: exit 2, one short message with the nearest name`, () => {
      const r = irw(...args);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.ok(r.stderr.length < 400, `no dump of names: ${r.stderr}`);
    });
  }
  it('a dataset name that is no BEIR dataset: the nearest one', () => {
    const r = irw('datasets', 'get', 'scifcat', '--dir', join(dir, 'ds'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown BEIR dataset 'scifcat': did you mean 'scifact'\?/);
  });
});

describe('irw: a closed output pipe ends any command quietly (exit 141, as SIGPIPE ends Unix tools)', () => {
  // 400 queries x 200 documents: every measure per query is far more than a pipe holds.
  const qrels = join(dir, 'qrels');
  const run = join(dir, 'run');
  writeFileSync(qrels, Array.from({ length: 400 }, (_, q) => `q${q} 0 d${q} 1\n`).join(''));
  writeFileSync(run, Array.from({ length: 400 }, (_, q) => Array.from({ length: 200 }, (_, d) => `q${q} Q0 d${d} ${d + 1} ${200 - d} r\n`).join('')).join(''));

  /** Runs irw with its stdout read until the first bytes, then closed, as `| head -c 1` does. */
  const head = (args: string[]) =>
    new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [requireBuiltCli(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (status) => done({ status, stderr }));
    });

  for (const args of [['eval', '-q', '-m', 'all_trec', qrels, run], ['datasets', 'list'], ['--help'], ['run', '--help'], ['compare', '--help']]) {
    it(`irw ${args.slice(0, 4).join(' ')}${args.length > 4 ? ' …' : ''}`, async () => {
      const r = await head(args);
      // A short output may be written whole before the reader closes: then it ends as usual.
      assert.ok(r.status === 141 || r.status === 0, `exit ${r.status}`);
      assert.equal(r.stderr, '', 'nothing on stderr: no EPIPE trace');
      if (args[0] === 'eval') assert.equal(r.status, 141);
    });
  }
});
