import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { NEXT, POSTED, READY, type SearchJob, type SearchResult } from './parallelSearch';
import { Searcher } from './search';

/**
 * Worker thread of parallelSearch.ts (dist/bm25-search.js): for each job (an index in shared memory and resolved
 * queries), takes the next query nobody has taken, searches it and posts its hits, until none is left.
 */
const port = (workerData as { port: MessagePort }).port;
port.on('message', (job: SearchJob) => {
  const { index, params, queries, k, shared } = job;
  const searcher = new Searcher(index, params);
  for (let q = Atomics.add(shared, NEXT, 1); q < queries.length; q = Atomics.add(shared, NEXT, 1)) {
    const hits = searcher.search(queries[q], k);
    // Copies of the hits' windows (a search may return views into larger arrays), transferred.
    const docs = hits.docs.slice();
    const scores = hits.scores.slice();
    port.postMessage({ query: q, docs, scores } satisfies SearchResult, [docs.buffer, scores.buffer]);
    Atomics.add(shared, POSTED, 1);
    Atomics.notify(shared, POSTED);
  }
});
parentPort!.postMessage(READY);
