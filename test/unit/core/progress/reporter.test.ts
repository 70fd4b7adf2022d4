import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgressReporter, count } from '../../../../src/core/progress/reporter';
import { stageOf } from '../../../../src/core/progress/stages';

function logSink() {
  const lines: string[] = [];
  return { lines, sink: { isTTY: false, write: (s: string) => lines.push(...s.split('\n').filter(Boolean)) } };
}

describe('progress in a log (stderr not a terminal)', () => {
  it('a line when a stage starts, then at most and at least every few seconds, with counts, rate and time left', () => {
    let t = 0;
    const { lines, sink } = logSink();
    const p = new ProgressReporter(sink, { everyMs: 3000, now: () => t });
    const stage = stageOf({ phase: 'encode-corpus' });
    p.update(stage.label, 0, 5183, stage.unit);
    for (t = 100; t <= 73_200; t += 100) p.update(stage.label, Math.floor(t / 1000) * 14, 5183, stage.unit);
    p.stop();
    assert.equal(lines[0], 'encoding documents 0/5,183');
    assert.equal(lines.length, 1 + Math.floor(73_200 / 3000));
    assert.ok(lines.includes('encoding documents 1,008/5,183, 14 docs/s, 5 min left'), lines.join('\n'));
  });

  it('a stage that reports nothing still gets a line every few seconds (timer)', async () => {
    const { lines, sink } = logSink();
    const p = new ProgressReporter(sink, { everyMs: 50 });
    p.update(stageOf({ phase: 'save-index' }).label, 0);
    await new Promise((r) => setTimeout(r, 230));
    p.stop();
    assert.ok(lines.length >= 3, lines.join('\n'));
    assert.ok(lines.every((l) => l.startsWith('saving the index to the cache')));
  });

  it('the last line of a stage is printed when it completes', () => {
    let t = 0;
    const { lines, sink } = logSink();
    const p = new ProgressReporter(sink, { now: () => t });
    p.update('searching', 0, 300, 'queries');
    t = 1000;
    p.update('searching', 300, 300, 'queries');
    p.stop();
    assert.equal(lines.at(-1), 'searching 300/300, 300 queries/s');
  });
});

describe('stage names people understand', () => {
  it('phases are named for what happens; hybrid says which retriever', () => {
    assert.equal(stageOf({ phase: 'index' }).label, 'reading the corpus and building the index');
    assert.equal(stageOf({ phase: 'hash', retriever: 'bm25' }).label, 'BM25: checking the corpus against the cache');
    assert.equal(stageOf({ phase: 'fuse', retriever: 'fusion' }).label, 'fusing the runs');
    assert.equal(stageOf({ phase: 'load-index' }).label, 'loading the cached index');
  });
});

describe('count', () => {
  it('writes counts and one-decimal rates as toLocaleString(en-US) does, without loading ICU', () => {
    const xs = [0, 7, 999, 1000, 5183, 294041, 1234567, 5_000_000, 2 ** 53 - 1, 0.1, 2.5, 9.9, 1234.5, 1000000.5];
    for (let i = 0; i < 2000; i++) xs.push(Math.floor(Math.random() * 10 ** (i % 16)), Math.round(Math.random() * 10 ** (i % 8)) / 10);
    for (const x of xs) assert.equal(count(x), x.toLocaleString('en-US'), String(x));
  });
});
