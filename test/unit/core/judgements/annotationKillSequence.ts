/** The kill test's judgement sequence: judgement i is a pure function of i, so the parent knows it too. */
export function killTestJudgement(i: number): { queryId: string; docId: string; grade: number; note?: string } {
  // Few (query, doc) pairs, so later judgements supersede earlier ones; some carry a note.
  const h = (i * 2654435761) >>> 0;
  return { queryId: `q${h % 7}`, docId: `doc-${(h >>> 8) % 13}`, grade: (h >>> 16) % 3, ...(i % 5 === 0 ? { note: `note ${i}` } : {}) };
}
