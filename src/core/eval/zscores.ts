import { InputError } from '../formats/errors';
import { decodeId } from '../formats/idTable';
import { forEachLineSync, quotable, splitFields } from '../formats/lines';

/**
 * trec_eval -Z ZSCORES_FILE (get_zscores.c, convert_zscores.c): lines "qid measure mean stddev"; each
 * per-query value v of a measure (by its output name, e.g. P_10) becomes (v - mean) / stddev, and the
 * summary averages those. A query or measure missing from the file gets MISSING_ZSCORE, as does a value
 * differing from the mean when stddev is 0.
 */
export const MISSING_ZSCORE = -1000000;

export interface ZScores {
  /** Entries sorted by qid then measure, in byte order (strcmp's). */
  qid: Buffer[];
  measure: Buffer[];
  mean: Float64Array;
  stddev: Float64Array;
  /** 1 where mean or stddev is a NaN read without a '-' (atof's "nan"): glibc prints it "nan", not "-nan". */
  positiveNaN: Uint8Array;
  /** Distinct qids, sorted, with the index of each one's first entry; firstEntry has one more element (the end). */
  qids: Buffer[];
  firstEntry: number[];
}

export function readZScores(path: string): ZScores {
  const rows: { qid: Buffer; measure: Buffer; mean: number; stddev: number; line: number; text: string; positiveNaN: boolean }[] = [];
  const f: number[] = [];
  forEachLineSync(path, (buf, start, end, lineNo) => {
    const n = splitFields(buf, start, end, f);
    const bad = (message: string, hint: string) =>
      new InputError({ code: n === 4 ? 'not-a-number' : 'malformed', message, file: path, line: lineNo, text: quotable(buf, start, end), hint });
    if (n !== 4) {
      throw bad(`expected 4 columns (qid measure mean stddev), found ${n}`, 'Each line of a -Z file is: query id, measure name as printed (e.g. P_10), mean, standard deviation.');
    }
    const num = (k: number, what: string): number => {
      const t = buf.toString('latin1', f[2 * k], f[2 * k + 1]);
      // atof also reads nan and inf (trec_eval's own test file has "nan" for an undefined deviation).
      if (/^[+-]?nan$/i.test(t)) return NaN;
      if (/^[+-]?inf(inity)?$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
      const v = Number(t);
      if (!Number.isFinite(v) || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
        throw bad(`${what} '${t}' (column ${k + 1}) is not a number`, 'trec_eval would read it with atof; write a plain decimal number.');
      }
      return v;
    };
    rows.push({
      qid: Buffer.from(buf.subarray(f[0], f[1])),
      measure: Buffer.from(buf.subarray(f[2], f[3])),
      mean: num(2, 'mean'),
      stddev: num(3, 'standard deviation'),
      line: lineNo,
      text: quotable(buf, start, end),
      positiveNaN: /^\+?nan$/i.test(buf.toString('latin1', f[4], f[5])) || /^\+?nan$/i.test(buf.toString('latin1', f[6], f[7])),
    });
  });
  if (rows.length === 0) {
    throw new InputError({ code: 'malformed', message: 'the z-scores file is empty', file: path, hint: 'Give -Z a file of "qid measure mean stddev" lines.' });
  }
  rows.sort((a, b) => Buffer.compare(a.qid, b.qid) || Buffer.compare(a.measure, b.measure) || a.line - b.line);
  const z: ZScores = { qid: [], measure: [], mean: new Float64Array(rows.length), stddev: new Float64Array(rows.length), positiveNaN: new Uint8Array(rows.length), qids: [], firstEntry: [] };
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    if (prev && prev.qid.equals(r.qid) && prev.measure.equals(r.measure)) {
      // trec_eval would use either line, depending on its sort: refuse the ambiguity.
      throw new InputError({
        code: 'duplicate', message: `query ${decodeId(r.qid, 0, r.qid.length)} has measure ${r.measure.toString()} twice (also on line ${prev.line})`,
        file: path, line: r.line, text: r.text, hint: 'Keep one line per query and measure.',
      });
    }
    if (!prev || !prev.qid.equals(r.qid)) {
      z.qids.push(r.qid);
      z.firstEntry.push(i);
    }
    z.qid.push(r.qid);
    z.measure.push(r.measure);
    z.mean[i] = r.mean;
    z.stddev[i] = r.stddev;
    z.positiveNaN[i] = r.positiveNaN ? 1 : 0;
  });
  z.firstEntry.push(rows.length);
  return z;
}

/**
 * trec_eval's binary search, which searches indexes 0..n inclusive: index n is past the query's entries. For
 * measures that is the next query's first entry when there is one (so trec_eval can find a measure there),
 * past the end of the array otherwise (read as not found).
 */
function search(key: Buffer, n: number, at: (i: number) => Buffer | undefined): number {
  let start = 0;
  let end = n;
  while (start <= end) {
    const cur = (start + end) >> 1;
    const k = at(cur);
    if (!k) return -1;
    const c = Buffer.compare(key, k);
    if (c < 0) end = cur - 1;
    else if (c > 0) start = cur + 1;
    else return cur;
  }
  return -1;
}

/**
 * Replaces one query's values (`names[c]` -> row[c]) by their z-scores; adds to `positiveNaN` the columns
 * whose z-score is a NaN that came from the file (x86 keeps the first NaN operand's sign; a value's own NaN
 * comes from 0 / 0 and is negative).
 */
export function toZScores(z: ZScores, qid: Buffer, names: readonly Buffer[], row: Float64Array, positiveNaN: Set<number>): void {
  const q = search(qid, z.qids.length, (i) => (i < z.qids.length ? z.qids[i] : undefined));
  if (q < 0) {
    row.fill(MISSING_ZSCORE);
    return;
  }
  const first = z.firstEntry[q];
  const n = z.firstEntry[q + 1] - first;
  for (let c = 0; c < row.length; c++) {
    const e = search(names[c], n, (i) => (first + i < z.measure.length ? z.measure[first + i] : undefined));
    if (e < 0) row[c] = MISSING_ZSCORE;
    else {
      const k = first + e;
      if (z.stddev[k] !== 0) { // as C tests it: a NaN deviation divides
        if (!Number.isNaN(row[c]) && z.positiveNaN[k]) positiveNaN.add(c);
        row[c] = (row[c] - z.mean[k]) / z.stddev[k];
      }
      else row[c] = row[c] === z.mean[k] ? 0 : MISSING_ZSCORE;
    }
  }
}
