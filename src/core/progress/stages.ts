/**
 * What the retrieval phases are called for people: `encode-corpus` is "encoding documents". One table for the
 * CLI's progress lines and the runner's progress messages (which carry the label to the editor).
 */
export interface Stage {
  label: string;
  /** What `done` and `total` count, plural ("docs", "queries"); absent when the phase only starts and ends. */
  unit?: string;
}

const STAGES: Record<string, Stage> = {
  hash: { label: 'checking the corpus against the cache' },
  'load-index': { label: 'loading the cached index' },
  index: { label: 'reading the corpus and building the index', unit: 'docs' },
  'save-index': { label: 'saving the index to the cache' },
  'load-embeddings': { label: 'loading cached document embeddings' },
  'encode-corpus': { label: 'encoding documents', unit: 'docs' },
  'save-embeddings': { label: 'saving document embeddings to the cache' },
  'encode-queries': { label: 'encoding queries', unit: 'queries' },
  search: { label: 'searching', unit: 'queries' },
  read: { label: 'reading the corpus and the first-stage run' },
  rerank: { label: 're-ranking query-document pairs', unit: 'pairs' },
  fuse: { label: 'fusing the runs' },
  'read-runs': { label: 'reading the run files' },
  tune: { label: 'scoring the grid', unit: 'settings' },
};

const RETRIEVERS: Record<string, string> = { bm25: 'BM25', dense: 'dense', fusion: 'fusion' };

/** The stage of a progress report `{ phase, retriever? }`; an unknown phase is shown as it is. */
export function stageOf(p: { phase: string; retriever?: string }): Stage {
  const s = STAGES[p.phase] ?? { label: p.phase };
  return p.retriever && p.retriever !== 'fusion' ? { ...s, label: `${RETRIEVERS[p.retriever] ?? p.retriever}: ${s.label}` } : s;
}
