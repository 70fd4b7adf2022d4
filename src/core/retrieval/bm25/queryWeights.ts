import { InputError } from '../../formats/errors';
import { forEachLineSync } from '../../formats/lines';
import type { QueryVector } from './search';

/**
 * Precomputed weighted queries (`--query-weights FILE.jsonl`), one JSON object a line:
 *   {"_id": "q1", "weights": {"stem": 1.5, "other": 0.25}}
 * Terms are index terms, used as given (already analysed: lower-case, stemmed), so expansions produced by
 * another tool, or by RM3 over this index, plug in unchanged. Weights are finite numbers (Lucene boosts).
 */
export function readQueryWeights(path: string): Map<string, QueryVector> {
  return readWeights(path, true);
}

/**
 * The "weights" of the lines of a BEIR JSONL queries file that have them (what-if queries saved with term
 * weights: {"_id", "text", "weights"}); lines without are left to their text. Empty for other kinds of file.
 */
export function readOwnWeights(path: string): Map<string, QueryVector> {
  let jsonl: boolean | undefined;
  forEachLineSync(path, (buf, start, end) => {
    if (jsonl !== undefined) return;
    const line = buf.toString('utf8', start, end).replace(/^\ufeff/, '').trim();
    if (line !== '') jsonl = line.startsWith('{');
  });
  return jsonl ? readWeights(path, false) : new Map();
}

function readWeights(path: string, required: boolean): Map<string, QueryVector> {
  const out = new Map<string, QueryVector>();
  const fail = (lineNo: number, text: string, message: string, code: 'malformed' | 'duplicate' | 'missing-field' = 'malformed') =>
    new InputError({
      code,
      message,
      file: path,
      line: lineNo,
      text,
      hint: 'Each line must look like {"_id": "q1", "weights": {"term": 1.0, ...}} with unique ids and numeric weights.',
    });
  forEachLineSync(path, (buf, start, end, lineNo) => {
    const raw = buf.toString('utf8', start, end);
    if (raw.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw fail(lineNo, raw, `not valid JSON: ${(e as Error).message}`);
    }
    const rec = (typeof obj === 'object' && obj !== null ? obj : {}) as Record<string, unknown>;
    if (!required && rec.weights === undefined) return;
    if (typeof rec._id !== 'string' || rec._id === '') throw fail(lineNo, raw, 'missing string "_id"', 'missing-field');
    const weights = rec.weights;
    if (typeof weights !== 'object' || weights === null || Array.isArray(weights)) {
      throw fail(lineNo, raw, 'missing "weights" object', 'missing-field');
    }
    if (out.has(rec._id)) throw fail(lineNo, raw, `duplicate query id ${JSON.stringify(rec._id)}`, 'duplicate');
    const q: QueryVector = new Map();
    for (const [term, w] of Object.entries(weights)) {
      if (typeof w !== 'number' || !Number.isFinite(w)) throw fail(lineNo, raw, `weight of ${JSON.stringify(term)} is not a finite number`);
      q.set(term, w);
    }
    out.set(rec._id, q);
  });
  return out;
}
