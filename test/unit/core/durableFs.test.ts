// Atomic writers: every write checked, file and folder synced, the old file intact on any failure (issue 28 item 4).
import assert from 'node:assert/strict';
import fs, { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { AtomicFile, writeFileAtomic } from '../../../src/core/durableFs';
import { InputError } from '../../../src/core/formats/errors';

const root = mkdtempSync(join(tmpdir(), 'irw-durable-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir);
  return dir;
};

const restores: (() => void)[] = [];
function patch<K extends 'writeSync' | 'fsyncSync' | 'renameSync'>(name: K, fake: (original: (typeof fs)[K]) => (typeof fs)[K]): void {
  const original = fs[name];
  (fs as unknown as Record<string, unknown>)[name] = fake(original);
  syncBuiltinESMExports();
  restores.push(() => {
    (fs as unknown as Record<string, unknown>)[name] = original;
    syncBuiltinESMExports();
  });
}
afterEach(() => {
  while (restores.length > 0) restores.pop()!();
});

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });

/** writeSync as a nearly full disk does it: what fits is written (a short write), the next call fails. */
function diskWithRoom(bytes: number): void {
  let room = bytes;
  patch('writeSync', (original) => ((fd: number, buf: Uint8Array, off?: number, len?: number, pos?: number | null) => {
    if (room <= 0) throw enospc();
    const from = off ?? 0;
    const take = Math.min(len ?? buf.length - from, room);
    room -= take;
    return original(fd, buf, from, take, pos);
  }) as typeof fs.writeSync);
}

describe('writeFileAtomic', () => {
  it('a short write on a nearly full disk fails naming the file; the previous file is intact and no temporary file is left', () => {
    const dir = fresh();
    const path = join(dir, 'export.tsv');
    const before = 'q1 0 d1 1\n'.repeat(349);
    writeFileSync(path, before);
    diskWithRoom(2770); // 277 lines: what the audit saw written over the complete export
    assert.throws(
      () => writeFileAtomic(path, 'q1 0 d2 1\n'.repeat(400)),
      (e: unknown) => e instanceof InputError && e.file === path && /disk is full \(ENOSPC\); the file was not changed/.test(e.message) && /Free some space/.test(e.hint ?? ''),
    );
    restores.pop()!();
    assert.equal(readFileSync(path, 'utf8'), before);
    assert.deepEqual(readdirSync(dir), ['export.tsv']);
  });

  it('syncs the data before the rename and the folder after it', () => {
    const dir = fresh();
    const path = join(dir, 'snapshot.bin');
    const steps: string[] = [];
    patch('fsyncSync', (original) => (fd: number) => {
      steps.push(`fsync ${fs.readlinkSync(`/proc/self/fd/${fd}`)}`);
      original(fd);
    });
    patch('renameSync', (original) => (from: fs.PathLike, to: fs.PathLike) => {
      steps.push(`rename -> ${String(to)}`);
      original(from, to);
    });
    writeFileAtomic(path, Buffer.alloc(10_000, 7));
    assert.equal(steps.length, 3, steps.join('\n'));
    assert.match(steps[0], new RegExp(`^fsync ${dir}/\\.snapshot\\.bin\\.\\d+\\.[0-9a-f]+\\.partial$`));
    assert.equal(steps[1], `rename -> ${path}`);
    assert.equal(steps[2], `fsync ${dir}`);
    assert.equal(readFileSync(path).length, 10_000);
  });

  it('a folder where the file should be: an error naming it, nothing left behind', () => {
    const dir = fresh();
    const path = join(dir, 'store.sqlite');
    mkdirSync(path);
    assert.throws(() => writeFileAtomic(path, 'x'), (e: unknown) => e instanceof InputError && e.file === path && /folder/.test(e.message));
    assert.deepEqual(readdirSync(dir), ['store.sqlite']);
  });

  it('an aborted AtomicFile leaves the old file; a killed writer\'s temporary file is removed by the next write', () => {
    const dir = fresh();
    const path = join(dir, 'out.txt');
    writeFileSync(path, 'old');
    const f = AtomicFile.open(path);
    f.write('new content');
    f.abort();
    assert.equal(readFileSync(path, 'utf8'), 'old');
    writeFileSync(join(dir, '.out.txt.999999999.deadbeef.partial'), 'left by a killed process');
    writeFileAtomic(path, 'newer');
    assert.deepEqual(readdirSync(dir).sort(), ['out.txt']);
  });
});
