import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { InputError } from '../../../../../src/core/formats/errors';
import { createAnalyzer } from '../../../../../src/core/retrieval/analysis/analyzer';
import type { Bm25Index, FieldsMode } from '../../../../../src/core/retrieval/bm25/index';
import { startParallelBuild } from '../../../../../src/core/retrieval/bm25/parallelBuild';
import { analysisWorkerEntry, buildIndex } from '../../../../../src/core/retrieval/bm25/run';

import { DATASETS, needsShared } from '../../../support/paths';
const ENTRY = analysisWorkerEntry()!;
const tmp = mkdtempSync(join(tmpdir(), 'irw-parallel-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

async function serial(path: string, mode: FieldsMode): Promise<Bm25Index> {
  return buildIndex(path, await createAnalyzer(), mode, {}, null);
}

/** The two-thread build; fails the test when it gives up (the single-threaded fallback would hide a broken merge). */
async function parallel(path: string, mode: FieldsMode, chunkBytes?: number): Promise<Bm25Index> {
  const p = startParallelBuild(path, mode, { entry: ENTRY, chunkBytes, hold: true });
  assert.ok(p, 'the corpus is shared with the worker');
  const index = await p.build(await createAnalyzer());
  assert.ok(index, 'the two-thread build completes');
  assert.ok(p.analysed.here > 0 && p.analysed.worker > 0, `both threads analysed chunks: ${JSON.stringify(p.analysed)}`);
  return index;
}

/** What buildIndex does with a two-thread build that may give up: the error of the single-threaded reader, if any. */
async function outcome(path: string, mode: FieldsMode, p: ReturnType<typeof startParallelBuild> | null): Promise<Bm25Index | string> {
  try {
    return await buildIndex(path, await createAnalyzer(), mode, {}, p);
  } catch (e) {
    assert.ok(e instanceof InputError, String(e));
    return `${e.message} @${e.line}`;
  }
}

describe('two-thread index build', () => {
  it('the worker entry is found (the source under tsx)', () => {
    assert.ok(ENTRY.endsWith('analysisWorker.ts'), ENTRY);
  });

  for (const [name, mode] of [['scifact', 'flat'], ['nfcorpus', 'flat'], ['nfcorpus', 'multifield']] as const) {
    it(`${name} ${mode}: the same index as one thread, cut in four and in 256 KiB chunks`, { skip: needsShared(`datasets/${name}`) }, async () => {
      const path = join(DATASETS, name, 'corpus.jsonl');
      const one = await serial(path, mode);
      assert.deepStrictEqual(await parallel(path, mode), one);
      // ~30 chunks: the worker's term ids are mapped over many messages, and it waits for the builder.
      assert.deepStrictEqual(await parallel(path, mode, 256 << 10), one);
    });
  }

  it('random corpora (blank lines, CRLF, non-ASCII, empty titles) cut into chunks of a few lines', async () => {
    const word = fc.constantFrom('the', 'Cats', "cat's", 'running', 'run', 'Ünïcode', 'naïve', '日本語', 'x1', 'β-blocker', 'A', 'is');
    const text = fc.array(word, { maxLength: 12 }).map((w) => w.join(' '));
    const doc = fc.record({ title: text, text, blank: fc.boolean(), crlf: fc.boolean() });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(doc, { minLength: 2, maxLength: 40 }), fc.integer({ min: 2, max: 12 }), fc.constantFrom<FieldsMode>('flat', 'multifield'), async (docs, cuts, mode) => {
        const path = join(tmp, `random-${n++}.jsonl`);
        const lines = docs.map((d, i) => `${JSON.stringify({ _id: `d${i}`, title: d.title, text: d.text })}${d.crlf ? '\r\n' : '\n'}${d.blank ? '\n' : ''}`);
        writeFileSync(path, lines.join(''));
        // Cuts before the last line, so that there are two chunks at least.
        const chunkBytes = Math.max(1, Math.floor(Buffer.byteLength(lines.slice(0, -1).join('')) / cuts));
        assert.deepStrictEqual(await parallel(path, mode, chunkBytes), await serial(path, mode));
      }),
      { numRuns: 15 },
    );
  });

  const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: `title ${i}`, text: `some text number ${i}` }));
  const cases: [string, string[]][] = [
    ['a bad line in the worker share', [...lines.slice(0, 50), '{"_id": "bad", "text": ', ...lines.slice(50)]],
    ['a bad line in this thread share', [lines[0], '{"_id": 7, "text": "x"}', ...lines.slice(1)]],
    ['an id repeated across the two shares', [...lines, JSON.stringify({ _id: 'd3', text: 'again' })]],
  ];
  for (const [what, fileLines] of cases) {
    it(`${what}: gives up, and the single-threaded reader reports it by line`, async () => {
      const path = join(tmp, `${what.replace(/\W+/g, '-')}.jsonl`);
      writeFileSync(path, `${fileLines.join('\n')}\n`);
      const p = startParallelBuild(path, 'flat', { entry: ENTRY, chunkBytes: 300, hold: true })!;
      const got = await outcome(path, 'flat', p);
      assert.equal(typeof got, 'string', 'the build reports the line');
      assert.equal(got, await outcome(path, 'flat', null));
      // The two-thread build itself declines it.
      const q = startParallelBuild(path, 'flat', { entry: ENTRY, chunkBytes: 300, hold: true })!;
      assert.equal(await q.build(await createAnalyzer()), null);
    });
  }

  it('a file with a byte-order mark is left to the reader, which notices it', () => {
    const path = join(tmp, 'bom.jsonl');
    writeFileSync(path, `\ufeff${lines.join('\n')}\n`);
    assert.equal(startParallelBuild(path, 'flat', { entry: ENTRY, chunkBytes: 300 }), null);
  });
});
