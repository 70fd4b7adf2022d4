import { closeSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createAnalyzer } from '../analysis/analyzer';
import { AHEAD, CONSUMED, ChunkAnalyser, GO, TAKEN, type WorkerInput, type WorkerMessage } from './parallelBuild';

/**
 * Worker thread of parallelBuild.ts (dist/bm25-worker.js): takes the next chunk nobody has taken, analyses it and
 * posts its term ids with the terms its analyser met first in it (so the builder can map them), until none is
 * left. Stops at the first chunk it cannot analyse (the builder then builds single-threaded).
 */
async function main(): Promise<void> {
  const { path, mode, chunks, shared, hold } = workerData as WorkerInput;
  const analyzer = await createAnalyzer();
  if (hold) {
    parentPort!.postMessage({ ready: true } satisfies WorkerMessage);
    Atomics.wait(shared, GO, 0);
  }
  const fd = openSync(path, 'r');
  try {
    let sent = 0;
    let first = true;
    const analyser = new ChunkAnalyser(path, fd, analyzer, mode);
    for (;;) {
      // Held (tests): chunk 1 is kept for the worker (and the builder may already wait for it).
      const reserved = hold && first;
      first = false;
      // Wait while the builder is more than AHEAD chunks behind (analysed chunks wait in memory until it comes).
      // The builder never waits for a chunk not yet taken, so this cannot stall it.
      let consumed = Atomics.load(shared, CONSUMED);
      while (!reserved && Atomics.load(shared, TAKEN) - consumed > AHEAD) {
        Atomics.wait(shared, CONSUMED, consumed);
        consumed = Atomics.load(shared, CONSUMED);
      }
      const c = reserved ? 1 : Atomics.add(shared, TAKEN, 1);
      if (c >= chunks.length) return;
      const chunk = analyser.analyse(chunks[c], true);
      if (!chunk) {
        parentPort!.postMessage({ index: c, chunk: null } satisfies WorkerMessage);
        return;
      }
      const terms = analyzer.terms.slice(sent);
      sent = analyzer.terms.length;
      parentPort!.postMessage({ index: c, chunk, terms } satisfies WorkerMessage, [chunk.tokens.buffer as ArrayBuffer, chunk.counts.buffer as ArrayBuffer]);
    }
  } finally {
    closeSync(fd);
  }
}

void main();
