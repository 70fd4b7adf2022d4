import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer } from '../analysis/analyzer';
import { AHEAD, analyseChunk, readChunk, type WorkerInput, type WorkerMessage } from './parallelBuild';

/**
 * Worker thread of parallelBuild.ts (dist/bm25-worker.js): analyses its chunks of the corpus in file order and
 * posts each chunk's term ids with the terms its analyser met first in that chunk, so the builder can map them.
 * Stops at the first chunk it cannot analyse (the builder then builds single-threaded).
 */
async function main(): Promise<void> {
  const { path, mode, chunks, consumed } = workerData as WorkerInput;
  const analyzer = await createAnalyzer();
  const fd = openSync(path, 'r');
  try {
    let sent = 0;
    for (const c of chunks) {
      // Wait while the builder is more than AHEAD chunks behind (analysed chunks wait in memory until it comes).
      for (let seen = Atomics.load(consumed, 0); c.index - seen > AHEAD; seen = Atomics.load(consumed, 0)) Atomics.wait(consumed, 0, seen);
      const chunk = analyseChunk(path, readChunk(fd, c), analyzer, mode);
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
