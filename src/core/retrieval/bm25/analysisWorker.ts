import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer } from '../analysis/analyzer';
import { AHEAD, ChunkAnalyser, type WorkerInput, type WorkerMessage } from './parallelBuild';

/**
 * Worker thread of parallelBuild.ts (dist/bm25-worker.js): analyses its chunks of the corpus in file order and
 * posts each chunk's term ids with the terms its analyser met first in that chunk, so the builder can map them.
 * Stops at the first chunk it cannot analyse (the builder then builds single-threaded).
 */
async function main(): Promise<void> {
  const { path, mode, chunks: mine, consumed } = workerData as WorkerInput;
  const analyzer = await createAnalyzer();
  const fd = openSync(path, 'r');
  try {
    let sent = 0;
    const chunks = new ChunkAnalyser(path, fd, analyzer, mode);
    for (const c of mine) {
      // Wait while the builder is more than AHEAD chunks behind (analysed chunks wait in memory until it comes).
      for (let seen = Atomics.load(consumed, 0); c.index - seen > AHEAD; seen = Atomics.load(consumed, 0)) Atomics.wait(consumed, 0, seen);
      const chunk = chunks.analyse(c, true);
      if (!chunk) {
        parentPort!.postMessage({ index: c.index, chunk: null } satisfies WorkerMessage);
        return;
      }
      const terms = analyzer.terms.slice(sent);
      sent = analyzer.terms.length;
      parentPort!.postMessage({ index: c.index, chunk, terms } satisfies WorkerMessage, [chunk.tokens.buffer as ArrayBuffer, chunk.counts.buffer as ArrayBuffer]);
    }
  } finally {
    closeSync(fd);
  }
}

void main();
