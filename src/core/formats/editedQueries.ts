import { writeFileAtomic } from '../durableFs';
import { unwritable } from './errors';

/**
 * A split's queries with some edited (what-if queries), as a BEIR queries.jsonl that `irw run --queries FILE`
 * runs whole: one line per query, in the order given; an edited query has its new text, or, when its terms were
 * weighted, a "weights" object of index terms (BM25 uses them instead of the text, as --query-weights does;
 * BM25-QA's learned query weights take this form). Written atomically.
 */
export interface EditedQuery {
  text?: string;
  weights?: ReadonlyMap<string, number>;
}

export function writeEditedQueries(path: string, queries: readonly { id: string; text: string }[], edits: ReadonlyMap<string, EditedQuery>): number {
  const lines = queries.map(({ id, text }) => {
    const edit = edits.get(id);
    const line: Record<string, unknown> = { _id: id, text: edit?.text ?? text };
    if (edit?.weights) line.weights = Object.fromEntries(edit.weights);
    return JSON.stringify(line);
  });
  try {
    writeFileAtomic(path, lines.length ? `${lines.join('\n')}\n` : '');
  } catch (e) {
    throw unwritable(path, e);
  }
  return lines.length;
}
