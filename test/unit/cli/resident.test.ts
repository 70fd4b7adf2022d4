import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, GOLDEN, REPO, RUNS, needsShared } from '../support/paths';
import { residentStatus } from '../../../src/cli/resident/client';
import { residentSocket } from '../../../src/cli/resident/socket';

const BUNDLE = join(REPO, 'dist', 'irw-eval.js');

describe('irw eval with IRW_RESIDENT=1 (a resident evaluator between calls)', { skip: process.platform === 'win32' }, () => {
  let dir: string;
  let runtime: string;
  const env = () => ({ ...process.env, IRW_RESIDENT: '1', XDG_RUNTIME_DIR: runtime, IRW_RESIDENT_IDLE_S: '20' });
  const irw = (args: string[], opts: { resident?: boolean; input?: string } = {}) =>
    spawnSync(process.execPath, [CLI, 'eval', ...args], { env: opts.resident === false ? { ...process.env, IRW_RESIDENT: '0' } : env(), cwd: dir, input: opts.input });
  const socket = () => {
    const was = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = runtime;
    try {
      return residentSocket(BUNDLE);
    } finally {
      if (was === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = was;
    }
  };
  /** How many calls the resident process served (undefined: none is up). */
  const served = () => residentStatus(socket()!);
  const up = async () => {
    for (let i = 0; i < 200 && !(await served()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(await served(), 'the resident evaluator started');
  };

  /** Stops the resident process, if one is up, and waits until it no longer answers. */
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const s = await served();
    if (s) process.kill(s.pid, signal);
    for (let i = 0; i < 100 && (await served()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-resident-'));
    runtime = join(dir, 'runtime');
    mkdirSync(runtime, { mode: 0o700 });
    // A query id and a document id that are not UTF-8 (byte 0xE9): the output is bytes, as trec_eval prints them.
    writeFileSync(join(dir, 'q.txt'), Buffer.from('q\xe9 0 d1 1\nq\xe9 0 d\xe9 1\nq2 0 d3 1\n', 'latin1'));
    writeFileSync(join(dir, 'r.txt'), Buffer.from('q\xe9 Q0 d\xe9 1 2 t\nq\xe9 Q0 d2 2 1 t\nq2 Q0 d3 1 2 t\n', 'latin1'));
  });
  after(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers each call as the evaluator in the caller does, to the byte, and reads the files anew at each call', async () => {
    const args = ['-q', '-m', 'P.1', '-m', 'map', 'q.txt', 'r.txt'];
    const here = irw(args, { resident: false });
    assert.equal(here.status, 0, String(here.stderr));
    // The first call finds none up, evaluates itself and starts one.
    const first = irw(args);
    assert.deepEqual([first.status, first.stdout, String(first.stderr)], [0, here.stdout, '']);
    await up();
    const before = (await served())!.served;
    const second = irw(args);
    assert.deepEqual([second.status, second.stdout, String(second.stderr)], [0, here.stdout, '']);
    assert.ok(second.stdout.includes(Buffer.from('\tq\xe9\t', 'latin1')), 'ids kept as their bytes');
    assert.equal((await served())!.served, before + 1);
    // A changed run is read again: never a figure from memory.
    writeFileSync(join(dir, 'r2.txt'), Buffer.from('q\xe9 Q0 d2 1 2 t\nq\xe9 Q0 d\xe9 2 1 t\nq2 Q0 d3 1 2 t\n', 'latin1'));
    const changed = irw(['-m', 'P.1', 'q.txt', 'r2.txt']);
    assert.equal(String(changed.stdout), String(irw(['-m', 'P.1', 'q.txt', 'r2.txt'], { resident: false }).stdout));
    assert.match(String(changed.stdout), /^P_1 +\tall\t0\.5000\n$/);
    assert.equal((await served())!.served, before + 2);
  });

  it('keeps exit codes and messages: a bad line (1), a usage error (2)', async () => {
    await up();
    writeFileSync(join(dir, 'bad.txt'), 'q2 Q0 d3 1 x t\n');
    for (const args of [['q.txt', 'bad.txt'], ['-m', 'nosuch', 'q.txt', 'r.txt']]) {
      const here = irw(args, { resident: false });
      const there = irw(args);
      assert.deepEqual([there.status, String(there.stdout), String(there.stderr)], [here.status, String(here.stdout), String(here.stderr)]);
      assert.ok(here.status === 1 || here.status === 2, String(here.stderr));
    }
  });

  it('standard input and folders are evaluated in the caller (the resident one is not asked)', async () => {
    await up();
    const before = (await served())!.served;
    const stdin = irw(['-m', 'P.1', 'q.txt', '-'], { input: readFileSync(join(dir, 'r.txt'), 'latin1') });
    assert.equal(stdin.status, 0, String(stdin.stderr));
    mkdirSync(join(dir, 'runs'), { recursive: true });
    writeFileSync(join(dir, 'runs', 'r.txt'), readFileSync(join(dir, 'r.txt')));
    const folder = irw(['-m', 'P.1', 'q.txt', 'runs']);
    assert.equal(folder.status, 0, String(folder.stderr));
    assert.equal((await served())!.served, before);
  });

  it('a socket left by a process that is gone, or a folder others can enter, only costs the call its warm start', async () => {
    await stop('SIGKILL');
    assert.ok(existsSync(socket()!), 'the dead process left its socket');
    const args = ['-m', 'P.1', 'q.txt', 'r.txt'];
    const expected = String(irw(args, { resident: false }).stdout);
    assert.equal(String(irw(args).stdout), expected);
    await up();
    assert.equal(String(irw(args).stdout), expected);
    // Not trusted: a folder of the user's that others can enter.
    chmodSync(join(runtime, `irw-${process.getuid!()}`), 0o755);
    try {
      assert.equal(socket(), null);
      assert.equal(String(irw(args).stdout), expected);
    } finally {
      chmodSync(join(runtime, `irw-${process.getuid!()}`), 0o700);
    }
  });

  it('SciFact: the per-query output of a real run, as the evaluator in the caller prints it', { skip: needsShared('runs', 'golden') }, async () => {
    await up();
    const args = ['-q', '-m', 'all_trec', join(GOLDEN, 'scifact', 'qrels.test.trec'), join(RUNS, 'scifact', 'bm25okapi.knarfthekant.trec')];
    const [there, here] = [irw(args), irw(args, { resident: false })];
    assert.equal(there.status, 0, String(there.stderr));
    assert.ok(there.stdout.length > 500_000);
    assert.ok(there.stdout.equals(here.stdout));
  });

  it('exits when no call came for IRW_RESIDENT_IDLE_S seconds, and takes its socket with it', async () => {
    await stop();
    // Started by a call that gives it 1 second.
    spawnSync(process.execPath, [CLI, 'eval', '-m', 'P.1', 'q.txt', 'r.txt'], { env: { ...env(), IRW_RESIDENT_IDLE_S: '1' }, cwd: dir });
    await up();
    for (let i = 0; i < 100 && (await served()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await served(), undefined);
    assert.ok(!existsSync(socket()!), 'its socket is gone');
  });
});
