import { InputError } from '../../formats/errors';
import { forEachLineSync } from '../../formats/lines';
import { docIdsDigest } from './cache';
import { NpyMatrix } from './npy';

/**
 * Embeddings made elsewhere (say sentence-transformers on a GPU machine): a .npy matrix and a file of ids in
 * the same order, one per line, either TSV/plain text (the first tab-separated column) or JSONL (a JSON
 * string, or an object with "_id" or "id"). Plain data: it crosses the process boundary.
 */
export interface EmbeddingFiles {
  matrix: string;
  ids: string;
}

/** The ids of an ids file, in order; a blank or unreadable line is refused (it would shift every row after it). */
export function readIdsFile(path: string): string[] {
  const ids: string[] = [];
  forEachLineSync(path, (buf, start, end, lineNo) => {
    const raw = buf.toString('utf8', start, end);
    const line = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    let id: unknown = line.split('\t')[0].trim();
    if (line.startsWith('{') || line.startsWith('"')) {
      try {
        const v: unknown = JSON.parse(line);
        id = typeof v === 'object' && v !== null ? ((v as Record<string, unknown>)._id ?? (v as Record<string, unknown>).id) : v;
      } catch {
        id = undefined;
      }
    }
    if (typeof id !== 'string' || id === '' || /\s/.test(id)) {
      throw new InputError({
        code: 'malformed',
        message: 'not an id: each line holds the id of the matrix row of the same number',
        file: path,
        line: lineNo,
        text: raw,
        hint: 'Write one id per line (plain, the first column of a TSV, a JSON string or {"_id": ...}), no header, no blank lines.',
      });
    }
    ids.push(id);
  });
  return ids;
}

/** The matrix and its ids, checked to have as many rows as ids. The caller closes the matrix. */
export function openEmbeddings(files: EmbeddingFiles): { matrix: NpyMatrix; ids: string[] } {
  const ids = readIdsFile(files.ids);
  const matrix = NpyMatrix.open(files.matrix);
  if (matrix.rows !== ids.length) {
    matrix.close();
    throw new InputError({
      code: 'malformed',
      message: `the matrix has ${matrix.rows} rows but ${files.ids} has ${ids.length} ids`,
      file: files.matrix,
      hint: 'Write the ids in the order the texts were encoded, one line per row (no header line).',
    });
  }
  return { matrix, ids };
}

/**
 * Ties imported document embeddings to the corpus: their ids must be the corpus's, in corpus.jsonl order
 * (compared by digest, then explained at the first difference), so embeddings of another corpus, of another
 * version of it, or in another order are refused instead of searched.
 */
export function checkCorpusIds(files: EmbeddingFiles, ids: readonly string[], corpusIds: readonly string[], corpusPath: string): void {
  if (ids.length === corpusIds.length && docIdsDigest(ids) === docIdsDigest(corpusIds)) return;
  const hint = 'These embeddings were made for another corpus (or another version or order of it): encode the documents of this corpus.jsonl in file order, and write their ids in that order.';
  if (ids.length !== corpusIds.length) {
    throw new InputError({ code: 'unknown-id', message: `${ids.length} document embeddings for the ${corpusIds.length} documents of ${corpusPath}`, file: files.ids, hint });
  }
  const i = ids.findIndex((id, j) => id !== corpusIds[j]);
  throw new InputError({
    code: 'unknown-id',
    message: `row ${i} is document ${JSON.stringify(ids[i])}, but document ${i + 1} of ${corpusPath} is ${JSON.stringify(corpusIds[i])}`,
    file: files.ids,
    line: i + 1,
    hint,
  });
}

/** The rows of imported query embeddings for `qids` (every one must be there), row-major [qids.length, dim]. */
export function importedQueries(files: EmbeddingFiles, qids: readonly string[]): { dim: number; data: Float32Array } {
  const { matrix, ids } = openEmbeddings(files);
  try {
    const row = new Map(ids.map((id, i) => [id, i]));
    const missing = qids.filter((q) => !row.has(q));
    if (missing.length > 0) {
      throw new InputError({
        code: 'unknown-id',
        message: `${missing.length} of the ${qids.length} judged queries have no embedding (first: ${JSON.stringify(missing[0])})`,
        file: files.ids,
        hint: 'Encode every query of queries.jsonl that the split judges.',
      });
    }
    const dim = matrix.cols;
    const data = new Float32Array(qids.length * dim);
    qids.forEach((q, i) => matrix.readRows(row.get(q)!, 1, data.subarray(i * dim, (i + 1) * dim)));
    return { dim, data };
  } finally {
    matrix.close();
  }
}
