import { statSync } from 'node:fs';
import { DocArena, EntrySet, type ArenaParts } from './docArena';
import type { DocIds } from './idTable';
import { compareBytes, decodeId, IdTable } from './idTable';
import { InputError } from './errors';
import { forEachLineSync, hasNul, isSpace, nulLineError, quotable, sameBytes, splitFields, type BulkLineHandler, type ByteRange } from './lines';
import { floatFieldEnd, parseFloatBytes, parseFloatField } from './numbers';

/** One query's ranking in trec_eval's order: score descending, ties by document id descending (strcmp). */
export interface Ranking {
  docs: string[];
  scores: Float64Array;
}

/**
 * A TREC run held in columns (typed arrays, document ids as bytes in one arena), never as one object per line.
 * Queries are in trec_eval's order (byte order of qid); each query's results are ranked as trec_eval ranks
 * them: by score descending, ties broken by docno in descending byte order. The file's rank column is
 * ignored, as trec_eval ignores it.
 */
export class Run {
  private readonly index = new Map<string, number>();

  constructor(
    /** Tag (run id) of the last line, as trec_eval reports it. */
    readonly tag: string,
    readonly qids: readonly string[],
    /** offsets[q] .. offsets[q + 1] are query q's entries in docIds/scores. */
    readonly offsets: Int32Array,
    readonly docIds: Int32Array,
    readonly scores: Float64Array,
    /** docIds index entries here (for a file: one per line). */
    readonly docs: DocIds,
  ) {
    qids.forEach((q, i) => this.index.set(q, i));
  }

  get numLines(): number {
    return this.docIds.length;
  }

  queryIndex(qid: string): number {
    return this.index.get(qid) ?? -1;
  }

  /** A query's ranking, or its top `depth` (each document id is decoded into a string: ask only for what is used). */
  ranking(qid: string, depth = Infinity): Ranking | undefined {
    const q = this.index.get(qid);
    if (q === undefined) return undefined;
    const s = this.offsets[q];
    const e = Math.min(this.offsets[q + 1], s + depth);
    const docs: string[] = [];
    for (let i = s; i < e; i++) docs.push(this.docs.string(this.docIds[i]));
    return { docs, scores: this.scores.slice(s, e) };
  }

  /** The run cut to the top `depth` documents of each query (trec_eval -M), sharing this run's document ids. */
  top(depth: number): Run {
    const nq = this.qids.length;
    const offsets = new Int32Array(nq + 1);
    for (let q = 0; q < nq; q++) offsets[q + 1] = offsets[q] + Math.min(depth, this.offsets[q + 1] - this.offsets[q]);
    const docIds = new Int32Array(offsets[nq]);
    const scores = new Float64Array(offsets[nq]);
    for (let q = 0; q < nq; q++) {
      const from = this.offsets[q];
      docIds.set(this.docIds.subarray(from, from + offsets[q + 1] - offsets[q]), offsets[q]);
      scores.set(this.scores.subarray(from, from + offsets[q + 1] - offsets[q]), offsets[q]);
    }
    return new Run(this.tag, this.qids, offsets, docIds, scores, this.docs);
  }

  /** Builds a run from rankings in memory (e.g. a retriever's output); duplicates are an error. */
  static fromRankings(tag: string, rankings: Iterable<[qid: string, docs: readonly string[], scores: ArrayLike<number>]>): Run {
    const b = new RunBuilder();
    const qids = new IdTable(64);
    for (const [qid, docs, scores] of rankings) {
      const q = qids.internString(qid);
      for (let i = 0; i < docs.length; i++) {
        b.docs.addString(docs[i]);
        b.push(q, scores[i]);
      }
    }
    return b.finish(tag, qids, (qid, docid) => {
      throw new InputError({ code: 'duplicate', message: `document '${docid}' appears twice in the ranking of query '${qid}'` });
    });
  }
}

/**
 * Growable columns; grouping and ranking happen once in finish(). Line i's document is the arena's entry i
 * (each line adds one); lines come in runs of one query (a run file lists a query's lines together), so
 * the query is kept once per run, not per line.
 */
class RunBuilder {
  readonly docs: DocArena;
  private s: Float64Array;
  // Pairs (query, first line) per run of lines of one query.
  private runs = new Int32Array(2048);
  private numRuns = 0;
  private lastQ = -1;
  n = 0;

  /** `expectedLines` sizes the columns up front (a run file's size / ~32 bytes a line) to avoid regrowth. */
  constructor(expectedLines = 1 << 16) {
    const cap = Math.max(1024, expectedLines);
    this.docs = new DocArena(cap);
    this.s = new Float64Array(cap);
  }

  /** Adds a line: its query, and its score for the document just added to `docs`. */
  push(qid: number, score: number): void {
    if (this.n === this.s.length) {
      const s = new Float64Array(Math.ceil(this.s.length * 1.5));
      s.set(this.s);
      this.s = s;
    }
    if (qid !== this.lastQ) {
      if (2 * this.numRuns === this.runs.length) {
        const runs = new Int32Array(this.runs.length * 2);
        runs.set(this.runs);
        this.runs = runs;
      }
      this.runs[2 * this.numRuns] = qid;
      this.runs[2 * this.numRuns + 1] = this.n;
      this.numRuns++;
      this.lastQ = qid;
    }
    this.s[this.n++] = score;
  }

  /** The queries in byte order of their ids (as `qids` ids), and how many lines each has. */
  queries(qids: IdTable): { order: number[]; counts: Int32Array } {
    const order = Array.from({ length: qids.size }, (_, i) => i).sort((a, b) => qids.compare(a, b));
    const counts = linesPerQuery(this.part(), qids.size);
    return { order, counts: Int32Array.from(order, (q) => counts[q]) };
  }

  /**
   * Moves the lines to their queries' places: line i of query q goes to `fill[q]` (which then advances), its
   * document as arena entry i + `base`; file order is kept within a query. The columns are released.
   */
  scatter(fill: Int32Array, docIds: Int32Array, scores: Float64Array, base = 0): void {
    scatterRuns(this.part(), fill, docIds, scores, base);
    this.runs = new Int32Array(0);
    this.numRuns = 0;
    this.s = new Float64Array(0);
  }

  /** The columns as they are (for another thread to place them). */
  part(): LineColumns {
    return { runs: this.runs.subarray(0, 2 * this.numRuns), n: this.n, scores: this.s };
  }

  /** `onDuplicate` throws, or returns to keep going (the run then holds the pair twice: only for finding every bad line). */
  finish(tag: string, qids: IdTable, onDuplicate: (qid: string, docid: string) => void, precision: ScorePrecision = 'float32', duplicatesWithin = Infinity): Run {
    const { order, counts } = this.queries(qids);
    const nq = order.length;
    const offsets = new Int32Array(nq + 1);
    const fill = new Int32Array(nq);
    for (let k = 0; k < nq; k++) {
      fill[order[k]] = offsets[k];
      offsets[k + 1] = offsets[k] + counts[k];
    }
    const docIds = new Int32Array(this.n);
    const scores = new Float64Array(this.n);
    this.scatter(fill, docIds, scores);
    const ranker = new Ranker(this.docs, precision, duplicatesWithin);
    for (let k = 0; k < nq; k++) {
      ranker.rank(docIds, scores, offsets[k], offsets[k + 1], (docid) => onDuplicate(qids.string(order[k]), docid));
    }
    return new Run(tag, order.map((q) => qids.string(q)), offsets, docIds, scores, this.docs);
  }
}

/** A part's lines in file order: runs of one query (pairs: query, first line), and each line's score. */
export interface LineColumns {
  runs: Int32Array;
  n: number;
  scores: Float64Array;
}

function linesPerQuery(c: LineColumns, numQueries: number): Int32Array {
  const counts = new Int32Array(numQueries);
  const { runs } = c;
  for (let r = 0; r < runs.length; r += 2) counts[runs[r]] += (r + 2 < runs.length ? runs[r + 3] : c.n) - runs[r + 1];
  return counts;
}

/** RunBuilder.scatter() of any part's columns. */
function scatterRuns(c: LineColumns, fill: Int32Array, docIds: Int32Array, scores: Float64Array, base: number): void {
  const { runs, scores: s } = c;
  for (let r = 0; r < runs.length; r += 2) {
    const q = runs[r];
    const from = runs[r + 1];
    const to = r + 2 < runs.length ? runs[r + 3] : c.n;
    const at = fill[q];
    fill[q] += to - from;
    if (to - from > 16) scores.set(s.subarray(from, to), at);
    else for (let i = from; i < to; i++) scores[at + i - from] = s[i];
    for (let i = from; i < to; i++) docIds[at + i - from] = i + base;
  }
}

/**
 * How scores are compared when ranking: trec_eval 9.0.x (and the copies in Anserini and pytrec_eval) reads
 * them into a C float, so scores equal as float32 tie and are ordered by docno; trec_eval 10.0 reads doubles.
 * Scores keep full precision either way.
 */
export type ScorePrecision = 'float32' | 'double';

/** Ranks one query's entries in place (trec_eval's order), then checks the top `duplicatesWithin` for a document listed twice. */
class Ranker {
  private readonly seen = new EntrySet();
  private perm = new Int32Array(0);
  private key = new Float64Array(0);
  private readonly f32: boolean;

  constructor(
    private readonly docs: DocArena,
    precision: ScorePrecision,
    private readonly duplicatesWithin: number,
  ) {
    this.f32 = precision === 'float32';
  }

  rank(docIds: Int32Array, scores: Float64Array, start: number, end: number, onDuplicate: (docid: string) => void): void {
    const { docs, f32 } = this;
    // Doubles in descending order stay in (non-strictly) descending order as float32, so only ties need work.
    if (scoresDescending(scores, start, end)) sortTies(docIds, scores, start, end, docs, f32);
    else {
      const len = end - start;
      if (this.perm.length < len) {
        this.perm = new Int32Array(len);
        this.key = new Float64Array(len);
      }
      const idx = this.perm.subarray(0, len);
      const key = this.key;
      for (let i = 0; i < len; i++) {
        idx[i] = start + i;
        key[i] = f32 ? Math.fround(scores[start + i]) : scores[start + i];
      }
      idx.sort((a, b) => key[b - start] - key[a - start] || docs.compare(docIds[b], docIds[a]));
      const d = Int32Array.from(idx, (i) => docIds[i]);
      const s = Float64Array.from(idx, (i) => scores[i]);
      docIds.set(d, start);
      scores.set(s, start);
    }
    const top = Math.min(end, start + Math.max(0, this.duplicatesWithin));
    this.seen.reset(top - start);
    for (let i = start; i < top; i++) {
      if (this.seen.add(docs, docIds[i]) >= 0) onDuplicate(docs.string(docIds[i]));
    }
  }
}

function scoresDescending(scores: Float64Array, start: number, end: number): boolean {
  for (let i = start + 1; i < end; i++) if (scores[i - 1] < scores[i]) return false;
  return true;
}

/** Most runs come sorted by score already: then only groups of equal scores need ordering (by docno, descending). */
function sortTies(docIds: Int32Array, scores: Float64Array, start: number, end: number, docs: DocArena, f32: boolean): void {
  let g = start;
  while (g < end) {
    const tie = f32 ? Math.fround(scores[g]) : scores[g];
    let e = g + 1;
    while (e < end && (f32 ? Math.fround(scores[e]) : scores[e]) === tie) e++;
    for (let i = g + 1; i < e; i++) {
      const d = docIds[i];
      const s = scores[i];
      let j = i - 1;
      while (j >= g && docs.compare(docIds[j], d) < 0) {
        docIds[j + 1] = docIds[j];
        scores[j + 1] = scores[j];
        j--;
      }
      docIds[j + 1] = d;
      scores[j + 1] = s;
    }
    g = e;
  }
}

/** Where the field at or after `i` starts, past separators; `end` if the line (or the chunk) ends first. */
function startOfField(buf: Buffer, i: number, end: number): number {
  while (i < end && buf[i] !== 10 && isSpace(buf[i])) i++;
  return i < end && buf[i] !== 10 ? i : end;
}

function endOfField(buf: Buffer, i: number, end: number): number {
  while (i < end && !isSpace(buf[i])) i++;
  return i;
}

const RUN_HINT = 'A TREC run line is "qid Q0 docid rank score tag", separated by spaces or TABs.';

/**
 * Reads a TREC run file (6 columns, spaces or TABs; extra columns ignored, '#' comments and blank lines
 * skipped, as trec_eval does). A document listed twice for one query is an error, as in trec_eval.
 */
export function readRun(path: string, options: ReadRunOptions = {}): Run {
  const parser = new RunParser(path, options);
  parser.parse();
  return parser.finish();
}

export interface ReadRunOptions {
  /** How scores compare when ranking (default float32, as trec_eval 9.0.8). */
  precision?: ScorePrecision;
  /**
   * Given: every bad line (wrong column count, score not a number, a document listed twice for a query) is
   * passed here and reading goes on, so that one pass finds them all. The run returned then lacks those
   * lines (or holds a duplicate twice): never score it. Not given: the first bad line throws.
   */
  onBadLine?: (e: InputError) => void;
  /**
   * Refuse a document listed twice only when both copies rank in the top N of the query (trec_eval -M N
   * checks after cutting the ranking, so a repeat past the cutoff is never seen). Default: anywhere.
   */
  duplicatesWithin?: number;
  /** Gets the file's bytes as they are read (to hash the file in the same pass); see forEachLineSync. */
  onRead?: (bytes: Buffer) => void;
}

/**
 * Turns a run file's lines into columns; finish() groups and ranks them. Two threads can each parse a part of
 * one file (parse(range), linePart()): the first part's parser then places and ranks both (finishWith).
 */
export class RunParser {
  private readonly b: RunBuilder;
  private readonly qids = new IdTable(1024);
  private readonly f: number[] = [];
  private tag = Buffer.alloc(0);
  private lastQid = Buffer.alloc(0);
  private lastQ = -1;

  /** `expectedBytes`: how much of the file this parser will hold (default: the whole file), to size its columns. */
  constructor(
    private readonly path: string,
    private readonly options: ReadRunOptions,
    expectedBytes?: number,
  ) {
    let size = expectedBytes ?? 0;
    if (expectedBytes === undefined) {
      try {
        size = statSync(path).size;
      } catch {
        // the line reader reports the unreadable file
      }
    }
    this.b = new RunBuilder(Math.ceil(size / 32));
  }

  /** Reads the file, or only `range` of it (line numbers in errors then count from the range's start); returns the lines read. */
  parse(range?: ByteRange): number {
    return forEachLineSync(this.path, this.onLine, range, this.bulk, this.options.onRead);
  }

  /**
   * onLine's fast path (most of a 10-million-line run's CPU time is here): a line of six or more fields whose
   * first byte starts a query id and whose score is a number is read in one pass over its bytes (the document
   * id copied and hashed as it is found); any other line (blank, comment, bad) is left to onLine, which reads
   * it exactly as before, so both paths accept and refuse the same lines.
   */
  readonly bulk: BulkLineHandler = {
    handled: 0,
    lines: (buf, start, end) => {
      const b = this.b;
      const docs = b.docs;
      let handled = 0;
      let tagStart = 0;
      let tagEnd = 0;
      let line = start;
      // A line that fails a check (break) is left to onLine: the loop then stops at its start.
      for (let i = start; i < end; line = i) {
        // Query id: most often the previous line's.
        if (isSpace(buf[i]) || buf[i] === 35 /* # */) break;
        const last = this.lastQid;
        let k = 0;
        while (k < last.length && i + k < end && buf[i + k] === last[k]) k++;
        const qStart = i;
        const sameQuery = this.lastQ >= 0 && k === last.length && i + k < end && isSpace(buf[i + k]);
        i = sameQuery ? i + k : endOfField(buf, i, end);
        const qEnd = i;
        // Q0
        i = startOfField(buf, i, end);
        if (i === end) break;
        i = endOfField(buf, i, end);
        // Document id
        i = startOfField(buf, i, end);
        if (i === end) break;
        i = docs.scanField(buf, i, end);
        // Rank
        i = startOfField(buf, i, end);
        if (i === end) break;
        i = endOfField(buf, i, end);
        // Score
        i = startOfField(buf, i, end);
        if (i === end) break;
        const score = parseFloatField(buf, i, end);
        if (Number.isNaN(score)) break;
        i = floatFieldEnd();
        // Tag, then any further columns up to the line break.
        i = startOfField(buf, i, end);
        if (i === end) break;
        const t = i;
        i = endOfField(buf, i, end);
        const te = i;
        while (i < end && buf[i] !== 10) i++;
        if (i === end) break; // the partial last line of the chunk
        i++;
        if (!sameQuery) {
          this.lastQ = this.qids.intern(buf, qStart, qEnd);
          this.lastQid = Buffer.from(buf.subarray(qStart, qEnd));
        }
        docs.commit();
        b.push(this.lastQ, score);
        tagStart = t;
        tagEnd = te;
        handled++;
      }
      if (handled > 0 && !sameBytes(this.tag, buf, tagStart, tagEnd)) this.tag = Buffer.from(buf.subarray(tagStart, tagEnd));
      this.bulk.handled = handled;
      return line;
    },
  };

  /** What this parser read as a part of the file, to hand it to the parser of the part before it (finishWith). */
  linePart(): LinePart {
    return {
      tag: this.b.n > 0 ? decodeId(this.tag, 0, this.tag.length) : undefined,
      qids: Array.from({ length: this.qids.size }, (_, q) => this.qids.string(q)),
      lines: this.b.part(),
      docs: this.b.docs.toParts(),
    };
  }

  /**
   * finish() for a file read in two parts: this parser's, then `tail` (read by another thread). Each part's
   * lines go straight to their places in the run (a query's lines of this part first, as in the file), and
   * every query is ranked and checked there, in trec_eval's query order, so the run and the first error are
   * the ones finish() would give.
   */
  finishWith(tail: LinePart): Run {
    const b = this.b;
    const n = b.n + tail.lines.n;
    if (n === 0) throw this.noResultLines();
    const { order, counts } = b.queries(this.qids);
    const headQids = order.map((q) => this.qids.string(q));
    const tailOrder = Array.from(tail.qids.keys()).sort((x, y) => compareBytes(tail.qids[x], tail.qids[y]));
    const tailCounts = linesPerQuery(tail.lines, tail.qids.length);
    const docs = b.docs;
    const base = docs.size;
    docs.append(tail.docs);
    const qids: string[] = [];
    const offsets = new Int32Array(headQids.length + tail.qids.length + 1);
    const fill = new Int32Array(headQids.length);
    const tailFill = new Int32Array(tail.qids.length);
    let at = 0;
    for (let i = 0, j = 0; i < headQids.length || j < tailOrder.length; ) {
      const c = i === headQids.length ? 1 : j === tailOrder.length ? -1 : compareBytes(headQids[i], tail.qids[tailOrder[j]]);
      qids.push(c <= 0 ? headQids[i] : tail.qids[tailOrder[j]]);
      if (c <= 0) {
        fill[order[i]] = at;
        at += counts[i++];
      }
      if (c >= 0) {
        tailFill[tailOrder[j]] = at;
        at += tailCounts[tailOrder[j++]];
      }
      offsets[qids.length] = at;
    }
    const docIds = new Int32Array(n);
    const scores = new Float64Array(n);
    b.scatter(fill, docIds, scores);
    scatterRuns(tail.lines, tailFill, docIds, scores, base);
    const ranker = new Ranker(docs, this.options.precision ?? 'float32', this.options.duplicatesWithin ?? Infinity);
    for (let k = 0; k < qids.length; k++) ranker.rank(docIds, scores, offsets[k], offsets[k + 1], (docid) => this.onDuplicate(qids[k], docid));
    const tag = tail.tag ?? (b.n > 0 ? decodeId(this.tag, 0, this.tag.length) : undefined);
    return new Run(tag!, qids, offsets.subarray(0, qids.length + 1), docIds, scores, docs);
  }

  private bad(e: InputError): void {
    if (!this.options.onBadLine) throw e;
    this.options.onBadLine(e);
  }

  readonly onLine = (buf: Buffer, start: number, end: number, lineNo: number): void => {
    if (hasNul(buf, start, end)) return this.bad(nulLineError(this.path, buf, start, end, lineNo));
    const f = this.f;
    const n = splitFields(buf, start, end, f);
    if (n === 0 || buf[f[0]] === 35 /* # */) return;
    if (n < 6) {
      return this.bad(new InputError({
        code: 'malformed',
        message: `expected 6 columns, found ${n}`,
        file: this.path,
        line: lineNo,
        text: quotable(buf, start, end),
        hint: RUN_HINT,
      }));
    }
    const score = parseFloatBytes(buf, f[8], f[9]);
    if (Number.isNaN(score)) {
      return this.bad(new InputError({
        code: 'not-a-number',
        message: `score '${quotable(buf, f[8], f[9])}' (column 5) is not a number (trec_eval's atof would silently read it as ${atofPrefix(quotable(buf, f[8], f[9]))})`,
        file: this.path,
        line: lineNo,
        text: quotable(buf, start, end),
        hint: RUN_HINT,
      }));
    }
    // Runs list a query's lines together: reuse the previous line's query id when the bytes match.
    if (this.lastQ < 0 || !sameBytes(this.lastQid, buf, f[0], f[1])) {
      this.lastQ = this.qids.intern(buf, f[0], f[1]);
      this.lastQid = Buffer.from(buf.subarray(f[0], f[1]));
    }
    this.b.docs.add(buf, f[4], f[5]);
    this.b.push(this.lastQ, score);
    if (!sameBytes(this.tag, buf, f[10], f[11])) this.tag = Buffer.from(buf.subarray(f[10], f[11]));
  };

  finish(): Run {
    const path = this.path;
    if (this.b.n === 0) throw this.noResultLines();
    const duplicates: [qid: string, docid: string][] = [];
    const run = this.b.finish(decodeId(this.tag, 0, this.tag.length), this.qids, (qid, docid) => {
      if (this.options.onBadLine) return void duplicates.push([qid, docid]);
      this.onDuplicate(qid, docid);
    }, this.options.precision, this.options.duplicatesWithin);
    if (duplicates.length > 0) {
      // One more pass finds the lines of every duplicate at once.
      const found = findLines(path, duplicates);
      for (const [qid, docid] of duplicates) this.bad(duplicate(path, qid, docid, found.get(`${qid}\t${docid}`)!));
    }
    return run;
  }

  private onDuplicate(qid: string, docid: string): never {
    throw duplicate(this.path, qid, docid, findLines(this.path, [[qid, docid]]).get(`${qid}\t${docid}`)!);
  }

  private noResultLines(): InputError {
    return new InputError({ code: 'malformed', message: 'the run file has no result lines', file: this.path, hint: RUN_HINT });
  }
}

function duplicate(path: string, qid: string, docid: string, lines: number[] & { text?: string }): InputError {
  return new InputError({
    code: 'duplicate',
    message: `document '${docid}' is listed twice for query '${qid}' (lines ${lines.join(' and ')})`,
    file: path,
    line: lines[1],
    text: lines.text,
    hint: 'trec_eval refuses a run that retrieves the same document twice for a query: keep one line (usually the higher-scored).',
  });
}

/** One part of a run file as the thread that read it parsed it (its own query ids and documents). */
export interface LinePart {
  /** The tag of the part's last result line; absent when the part has none. */
  tag?: string;
  /** By the part's query numbers (LineColumns.runs). */
  qids: string[];
  lines: LineColumns;
  docs: ArenaParts;
}


/** Error path only: the first two line numbers where each (qid, docid) occurs, by `qid<TAB>docid`. */
function findLines(path: string, pairs: readonly [string, string][]): Map<string, number[] & { text?: string }> {
  const out = new Map<string, number[] & { text?: string }>(pairs.map(([q, d]) => [`${q}\t${d}`, []]));
  const f: number[] = [];
  forEachLineSync(path, (buf, start, end, lineNo) => {
    if (splitFields(buf, start, end, f) < 6) return;
    const lines = out.get(`${decodeId(buf, f[0], f[1])}\t${decodeId(buf, f[4], f[5])}`);
    if (!lines || lines.length >= 2) return;
    lines.push(lineNo);
    lines.text = quotable(buf, start, end);
  });
  return out;
}

/** What C's atof makes of a string it cannot read fully: the longest number at its start, or 0. */
function atofPrefix(s: string): string {
  const m = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(s);
  return m ? String(Number(m[0])) : '0';
}
