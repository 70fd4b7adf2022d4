import type { Move, QueryDetail, RankedDoc } from '../../protocol/webview';
import { snippet } from '../formats/text';
import { rankMap, topDocs } from './rankings';
import type { Scores } from './scores';
import type { SplitState } from './state';

/** Both rankings of one query to `depth`, with grades (in effect), holes, rank moves, titles and snippets. */
export async function queryDetail(state: SplitState, aKey: string, bKey: string, queryId: string, depth: number): Promise<QueryDetail> {
  const a = topDocs(state.run(aKey), queryId, depth);
  const b = topDocs(state.run(bKey), queryId, depth);
  const fullA = rankMap(state.run(aKey), queryId);
  const fullB = rankMap(state.run(bKey), queryId);
  const inTop = (list: { docId: string }[]) => new Set(list.map((d) => d.docId));
  const topA = inTop(a);
  const topB = inTop(b);
  const score = (s: Scores) => {
    const i = s.queries.indexOf(queryId);
    return i < 0 ? 0 : s.columns[0][i];
  };
  // Moves read from a to b: on both sides "up" means b ranks the document higher than a does.
  const docs = new Map(await Promise.all([...new Set([...topA, ...topB])].map(async (id) => [id, await state.corpus.read(id)] as const)));
  const side = (list: { docId: string; rank: number; score: number }[], otherTop: Set<string>, otherFull: Map<string, number>, isA: boolean): RankedDoc[] =>
    list.map((d) => {
      const other = otherFull.get(d.docId) ?? null;
      const [rankA, rankB] = isA ? [d.rank, other] : [other, d.rank];
      const move: Move = !otherTop.has(d.docId) ? (isA ? 'dropped' : 'new') : rankA === rankB ? 'same' : rankB! < rankA! ? 'up' : 'down';
      const doc = docs.get(d.docId);
      return {
        ...d,
        grade: state.grade(queryId, d.docId),
        move,
        otherRank: other,
        title: doc?.title ?? '',
        snippet: doc ? snippet(doc.text) : '(not in the corpus)',
      };
    });
  return {
    queryId,
    text: state.queries.get(queryId)?.text ?? '',
    depth,
    a: side(a, topB, fullB, true),
    b: side(b, topA, fullA, false),
    droppedFromA: a.filter((d) => !topB.has(d.docId)).map((d) => d.docId),
    scoreA: score(state.scores(aKey, 'annotated')),
    scoreB: score(state.scores(bKey, 'annotated')),
    grades: state.gradeScale(),
  };
}
