import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RunCache } from '../../../../src/core/index/runCache';

const root = mkdtempSync(join(tmpdir(), 'irw-runcache-'));
after(() => rmSync(root, { recursive: true, force: true }));

function put(name: string, docs: string[]): string {
  const path = join(root, name);
  writeFileSync(path, docs.map((d, i) => `1 Q0 ${d} ${i + 1} ${10 - i} t\n`).join(''));
  return path;
}

describe('run cache', () => {
  it('parses a run once while its file is unchanged, again once it changes', () => {
    const cache = new RunCache();
    const path = put('a.trec', ['d1', 'd2']);
    const first = cache.get(path);
    assert.equal(cache.get(path), first);
    put('a.trec', ['d3', 'd1', 'd2']);
    const changed = cache.get(path);
    assert.notEqual(changed, first);
    assert.equal(changed.numLines, 3);
    utimesSync(path, new Date(), new Date(Date.now() + 10_000)); // touched: re-read, since only size and mtime are compared
    assert.notEqual(cache.get(path), changed);
  });

  it('keeps at most maxRuns runs, dropping the least recently used', () => {
    const cache = new RunCache(2);
    const [a, b, c] = ['x.trec', 'y.trec', 'z.trec'].map((n) => put(n, ['d1']));
    const ra = cache.get(a);
    const rb = cache.get(b);
    assert.equal(cache.get(a), ra); // a is now the most recent
    cache.get(c); // evicts b
    assert.equal(cache.get(a), ra);
    assert.notEqual(cache.get(b), rb);
  });

  it('throws what the run reader throws, naming the file', () => {
    const bad = join(root, 'bad.trec');
    writeFileSync(bad, '1 Q0 d1\n');
    assert.throws(() => new RunCache().get(bad), (e: Error) => e.message.includes('bad.trec') || String((e as { file?: string }).file).includes('bad.trec'));
  });
});
