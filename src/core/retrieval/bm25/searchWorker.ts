import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { NEXT, POSTED, READY, type SearchJob, type SearchResult } from './parallelSearch';
import { Searcher } from './search';

/**
 * Worker thread of parallelSearch.ts (dist/bm25-search.js): for each job (an index in shared memory and resolved
 * queries), takes the next batch of queries nobody has taken, searches them and posts their hits in one message,
 * until none is left.
 */
const port = (workerData as { port: MessagePort }).port;
port.on('message', (job: SearchJob) => {
  const { index, params, queries, k, batch, shared } = job;
  const searcher = new Searcher(index, params);
  for (let first = Atomics.add(shared, NEXT, batch); first < queries.length; first = Atomics.add(shared, NEXT, batch)) {
    const n = Math.min(batch, queries.length - first);
    const hits = [];
    for (let q = first; q < first + n; q++) hits.push(searcher.search(queries[q], k));
    // The batch's hits copied into arrays of their own (a search may return views into larger ones), transferred.
    const lengths = Uint32Array.from(hits, (h) => h.docs.length);
    const total = lengths.reduce((a, b) => a + b, 0);
    const docs = new Uint32Array(total);
    const scores = new Float32Array(total);
    for (let i = 0, at = 0; i < n; at += lengths[i++]) {
      docs.set(hits[i].docs, at);
      scores.set(hits[i].scores, at);
    }
    port.postMessage({ first, lengths, docs, scores } satisfies SearchResult, [lengths.buffer, docs.buffer, scores.buffer]);
    Atomics.add(shared, POSTED, 1);
    Atomics.notify(shared, POSTED);
  }
});
parentPort!.postMessage(READY);
