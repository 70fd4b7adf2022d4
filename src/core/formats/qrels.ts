import { compareBytes, decodeId, sortBytes } from './idTable';
import { InputError } from './errors';
import { forEachLineSync, hasNul, nulLineError, quotable, sameBytes, splitFields } from './lines';
import { parseIntBytes } from './numbers';

/** One query's judgements, sorted by document id in byte order. */
export interface QueryJudgements {
  docs: string[];
  grades: Int32Array;
}

export interface Judgement {
  qid: string;
  docid: string;
  grade: number;
}

export type QrelsFormat = 'trec' | 'beir';

export interface ReadQrelsOptions {
  /**
   * What to do with a (query, document) judged twice: 'error' (trec_eval refuses such qrels) or 'last'
   * (the later line wins, for annotation files where a new judgement supersedes an old one).
   */
  duplicates?: 'error' | 'last';
  /**
   * Given: every bad line (column count, grade, a pair judged twice) is passed here and skipped, so that one
   * pass finds them all; the qrels returned lack those lines and must not be used to score. Not given: the
   * first bad line throws.
   */
  onBadLine?: (e: InputError) => void;
}

/**
 * Relevance judgements. Grades are integers; negative grades mean "pooled but unjudged" (trec_eval), 0 is
 * judged non-relevant. Query ids are kept in trec_eval's order (byte order).
 */
export class Qrels {
  private readonly ids: string[];

  constructor(
    private readonly byQuery: Map<string, QueryJudgements>,
    readonly format: QrelsFormat = 'trec',
    /** The query ids in byte order, when the caller has them (withQuery keeps them for a known query). */
    ids?: string[],
  ) {
    this.ids = ids ?? [...byQuery.keys()].sort(compareBytes);
  }

  /** Builds qrels from judgements in memory; a repeated (qid, docid) follows `duplicates` (default: last wins). */
  static fromJudgements(judgements: Iterable<Judgement>, duplicates: 'error' | 'last' = 'last'): Qrels {
    const acc = new QrelsAccumulator(duplicates);
    for (const j of judgements) acc.add(j.qid, j.docid, j.grade);
    return acc.finish('trec');
  }

  /** Query ids in trec_eval's order. */
  queryIds(): readonly string[] {
    return this.ids;
  }

  has(qid: string): boolean {
    return this.byQuery.has(qid);
  }

  judgements(qid: string): QueryJudgements | undefined {
    return this.byQuery.get(qid);
  }

  /** docid -> grade for one query. */
  get(qid: string): Map<string, number> | undefined {
    const j = this.byQuery.get(qid);
    if (!j) return undefined;
    const m = new Map<string, number>();
    j.docs.forEach((d, i) => m.set(d, j.grades[i]));
    return m;
  }

  grade(qid: string, docid: string): number | undefined {
    const j = this.byQuery.get(qid);
    if (!j) return undefined;
    const i = binarySearch(j.docs, docid);
    return i >= 0 ? j.grades[i] : undefined;
  }

  /**
   * These qrels with one query's judgements replaced (or added): the other queries' arrays are shared, so a
   * judgement costs one query's copy, not the whole qrels'.
   */
  withQuery(qid: string, grades: ReadonlyMap<string, number>): Qrels {
    const docs = [...grades.keys()].sort(compareBytes);
    const byQuery = new Map(this.byQuery);
    byQuery.set(qid, { docs, grades: Int32Array.from(docs, (d) => grades.get(d)!) });
    return new Qrels(byQuery, this.format, this.byQuery.has(qid) ? this.ids : undefined);
  }

  /** These qrels with more judgements laid over them (a later one of the same pair wins, as in an annotations file). */
  withJudgements(extra: Iterable<Judgement>): Qrels {
    return Qrels.fromJudgements([...this.entries(), ...extra], 'last');
  }

  /** Number of judgements. */
  get size(): number {
    let n = 0;
    for (const j of this.byQuery.values()) n += j.docs.length;
    return n;
  }

  *entries(): IterableIterator<Judgement> {
    for (const qid of this.ids) {
      const j = this.byQuery.get(qid)!;
      for (let i = 0; i < j.docs.length; i++) yield { qid, docid: j.docs[i], grade: j.grades[i] };
    }
  }
}

function binarySearch(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareBytes(sorted[mid], key);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

interface Pending {
  /** docid -> its index in grades and lines (one map per query: map insertions dominate reading qrels). */
  index: Map<string, number>;
  grades: number[];
  lines: number[];
}

class QrelsAccumulator {
  private readonly byQuery = new Map<string, Pending>();
  // Qrels list a query's lines together: the previous line's query is looked up once.
  private lastQid: string | undefined;
  private last: Pending | undefined;

  constructor(
    private readonly duplicates: 'error' | 'last',
    private readonly file?: string,
    private readonly onBadLine?: (e: InputError) => void,
  ) {}

  add(qid: string, docid: string, grade: number, lineNo = 0, text?: () => string): void {
    let q = qid === this.lastQid ? this.last : this.byQuery.get(qid);
    if (!q) {
      q = { index: new Map(), grades: [], lines: [] };
      this.byQuery.set(qid, q);
    }
    this.lastQid = qid;
    this.last = q;
    const at = q.index.get(docid);
    if (at === undefined) {
      q.index.set(docid, q.grades.length);
      q.grades.push(grade);
      q.lines.push(lineNo);
      return;
    }
    if (this.duplicates === 'error') {
      const e = new InputError({
        code: 'duplicate',
        message: `document '${docid}' is judged twice for query '${qid}' (first on line ${q.lines[at] || undefined})`,
        file: this.file,
        line: lineNo || undefined,
        text: text?.(),
        hint: 'trec_eval refuses qrels with a repeated (query, document) pair: keep one judgement and remove the other.',
      });
      if (!this.onBadLine) throw e;
      return this.onBadLine(e);
    }
    q.grades[at] = grade;
    if (lineNo) q.lines[at] = lineNo;
  }

  finish(format: QrelsFormat): Qrels {
    const out = new Map<string, QueryJudgements>();
    for (const [qid, q] of this.byQuery) {
      const docs = sortBytes([...q.index.keys()]);
      const grades = Int32Array.from(docs, (d) => q.grades[q.index.get(d)!]);
      out.set(qid, { docs, grades });
    }
    return new Qrels(out, format);
  }
}

const TREC_HINT = 'A TREC qrels line is "qid iter docid grade" (4 columns); a BEIR qrels line is "query-id<TAB>corpus-id<TAB>score".';

/** A judgement as a qrels line gives it. */
export interface QrelsLine {
  qid: string;
  docid: string;
  grade: number;
}

/**
 * Header words real qrels files use, per column, compared without case, '-', '_' or spaces: BEIR's
 * `query-id corpus-id score`, and the spellings of TREC tools, pandas exports and MS MARCO-style files.
 */
const HEADER_WORDS = {
  query: new Set(['queryid', 'qid', 'query', 'topic', 'topicid', 'topicno', 'qno', 'questionid']),
  iteration: new Set(['iter', 'iteration', 'q0', '0', 'unused', 'run']),
  doc: new Set(['corpusid', 'docid', 'docno', 'doc', 'document', 'documentid', 'did', 'pid', 'passageid', 'passage', 'cid']),
  grade: new Set(['score', 'rel', 'relevance', 'relevancy', 'grade', 'label', 'judgement', 'judgment', 'qrel', 'relevant', 'gain', 'rating']),
};

/**
 * Whether the line is a qrels header: three columns (query, document, grade) or four (with the iteration),
 * each one of HEADER_WORDS. Only such a first line is skipped: any other line that does not parse is an error.
 */
export function isQrelsHeader(buf: Buffer, start: number, end: number): boolean {
  const f: number[] = [];
  const n = splitFields(buf, start, end, f);
  if (n !== 3 && n !== 4) return false;
  const word = (i: number) => buf.toString('latin1', f[2 * i], f[2 * i + 1]).toLowerCase().replace(/[-_ ]/g, '');
  const columns = n === 3 ? [HEADER_WORDS.query, HEADER_WORDS.doc, HEADER_WORDS.grade] : [HEADER_WORDS.query, HEADER_WORDS.iteration, HEADER_WORDS.doc, HEADER_WORDS.grade];
  return columns.every((words, i) => words.has(word(i)));
}

/** U+00A0 in UTF-8: looks like a space, is not one to trec_eval (nor to any reader here). */
function hasNoBreakSpace(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i + 1 < end; i++) if (buf[i] === 0xc2 && buf[i + 1] === 0xa0) return true;
  return false;
}

const NBSP_HINT = ' A non-breaking space (U+00A0, as word processors and web pages put in) is not a separator: use TABs or plain spaces.';

/**
 * How every reader of qrels reads a line: `irw eval`, the engine's index, the user's annotation files and the
 * editor's qrels hovers all take their verdict from here, so a hand-edited line counts the same everywhere.
 * A line has 3 columns (BEIR) or 4 (TREC), as many as the file's first judgement, separated by white space
 * as C's isspace() sees it; its grade is an integer, or an integral number written as a float ("2.0", as pandas
 * writes qrels). Blank lines and '#'
 * comments hold no judgement; so does a header on the file's first line (isQrelsHeader). Anything else
 * (another column count, a grade that is not an integer, NUL bytes) is an error naming the file and line.
 */
export class QrelsLineParser {
  private readonly f: number[] = [];
  private lastQidBytes = Buffer.alloc(0);
  private lastQid = '';
  private seenLine = false;
  /** Columns of the first judgement line: 3 (BEIR) or 4 (TREC); 0 before it. */
  columns = 0;

  constructor(private readonly path: string) {}

  /** The judgement on the line; null when it holds none; throws InputError when it is bad. */
  parse(buf: Buffer, start: number, end: number, lineNo: number): QrelsLine | null {
    const f = this.f;
    const text = () => quotable(buf, start, end);
    if (hasNul(buf, start, end)) throw nulLineError(this.path, buf, start, end, lineNo);
    const n = splitFields(buf, start, end, f);
    if (n === 0 || buf[f[0]] === 35 /* # */) return null;
    const first = !this.seenLine;
    this.seenLine = true;
    if (first && isQrelsHeader(buf, start, end)) return null;
    // A line with other columns than the file's first judgement is refused, not read the other way: a TREC line
    // that lost its document id (`q1 0 1`) would read as a valid BEIR judgement of a document named "0".
    if (this.columns !== 0 && n !== this.columns) {
      throw new InputError({
        code: 'malformed',
        message: `expected ${this.columns} columns like the first line, found ${n}`,
        file: this.path,
        line: lineNo,
        text: text(),
        hint: TREC_HINT + (hasNoBreakSpace(buf, start, end) ? NBSP_HINT : ''),
      });
    }
    if (n !== 3 && n !== 4) {
      throw new InputError({
        code: 'malformed',
        message: `expected 4 columns (TREC qrels) or 3 (BEIR qrels), found ${n}${first && n > 0 ? ' (a header line needs column names such as "query-id corpus-id score")' : ''}`,
        file: this.path,
        line: lineNo,
        text: text(),
        hint: TREC_HINT + (hasNoBreakSpace(buf, start, end) ? NBSP_HINT : ''),
      });
    }
    this.columns = n;
    const g = 2 * (n - 1);
    const grade = parseGrade(buf, f[g], f[g + 1], this.path, lineNo, text);
    const d = n === 4 ? 4 : 2;
    // Qrels list a query's lines together: the previous line's query id string is reused when the bytes match.
    if (!sameBytes(this.lastQidBytes, buf, f[0], f[1])) {
      this.lastQidBytes = Buffer.from(buf.subarray(f[0], f[1]));
      this.lastQid = decodeId(buf, f[0], f[1]);
    }
    return { qid: this.lastQid, docid: decodeId(buf, f[d], f[d + 1]), grade };
  }
}

/**
 * Reads TREC qrels (4 columns) or BEIR qrels (3 columns, optional header line, CRLF), line by line as
 * QrelsLineParser reads them. Blank lines and lines starting with '#' are skipped.
 */
export function readQrels(path: string, options: ReadQrelsOptions = {}): Qrels {
  const acc = new QrelsAccumulator(options.duplicates ?? 'error', path, options.onBadLine);
  const parser = new QrelsLineParser(path);
  forEachLineSync(path, (buf, start, end, lineNo) => {
    let j: QrelsLine | null;
    try {
      j = parser.parse(buf, start, end, lineNo);
    } catch (e) {
      if (!options.onBadLine || !(e instanceof InputError)) throw e;
      return options.onBadLine(e);
    }
    if (j) acc.add(j.qid, j.docid, j.grade, lineNo, () => quotable(buf, start, end));
  });
  return acc.finish(parser.columns === 3 ? 'beir' : 'trec');
}

const GRADE_HINT = 'Grades are integers: 0 = not relevant, 1, 2, ... = relevant, negative = pooled but unjudged.';

/**
 * A grade: an integer, or an integral number written as a float ("2.0", as pandas writes qrels). A fractional
 * grade is refused (trec_eval's atol would silently truncate it), and so is one outside 32 bits (trec_eval
 * cannot allocate its per-grade table for it; irw's Int32 columns would wrap it).
 */
function parseGrade(buf: Buffer, start: number, end: number, path: string, lineNo: number, text: () => string): number {
  let grade = parseIntBytes(buf, start, end);
  const raw = () => quotable(buf, start, end);
  if (Number.isNaN(grade)) {
    const integral = /^([+-]?\d+)\.0*$/.exec(raw());
    if (integral) grade = Number(integral[1]);
    else {
      // What trec_eval's atol would have made of it: the leading integer, or 0.
      const atol = Number(/^\s*([+-]?\d+)/.exec(raw())?.[1] ?? 0);
      throw new InputError({
        code: 'not-a-number',
        message: `relevance grade '${raw()}' is not an integer (trec_eval would silently read it as ${atol})`,
        file: path,
        line: lineNo,
        text: text(),
        hint: GRADE_HINT + (hasNoBreakSpace(buf, start, end) ? NBSP_HINT : ''),
      });
    }
  }
  if (grade > 2147483647 || grade < -2147483648) {
    throw new InputError({
      code: 'not-a-number',
      message: `relevance grade '${raw()}' is outside the 32-bit range (-2147483648 to 2147483647)`,
      file: path,
      line: lineNo,
      text: text(),
      hint: GRADE_HINT,
    });
  }
  return grade;
}

/**
 * trec_eval -R qrels_jg: qrels whose second column names a judgment group (one assessor's set of judgements),
 * so a document may be judged once per group. Groups of a query are kept in byte order of their names.
 */
export class JudgmentGroups {
  constructor(private readonly byQuery: Map<string, QueryJudgements[]>) {}

  /** Query ids in trec_eval's order. */
  queryIds(): readonly string[] {
    return [...this.byQuery.keys()].sort(compareBytes);
  }

  groups(qid: string): readonly QueryJudgements[] | undefined {
    return this.byQuery.get(qid);
  }
}

/** Reads qrels_jg ("qid jg docid grade"); a document judged twice in one group is refused, as trec_eval does. */
export function readQrelsJg(path: string): JudgmentGroups {
  const byGroup = new Map<string, QrelsAccumulator>();
  const f: number[] = [];
  forEachLineSync(path, (buf, start, end, lineNo) => {
    if (hasNul(buf, start, end)) throw nulLineError(path, buf, start, end, lineNo);
    const n = splitFields(buf, start, end, f);
    if (n === 0 || buf[f[0]] === 35 /* # */) return;
    const text = () => quotable(buf, start, end);
    if (n !== 4) {
      throw new InputError({
        code: 'malformed',
        message: `expected 4 columns (qid judgment-group docid grade), found ${n}`,
        file: path,
        line: lineNo,
        text: text(),
        hint: 'A qrels_jg line is a TREC qrels line whose second column names the judgment group (assessor).',
      });
    }
    const jg = decodeId(buf, f[2], f[3]);
    let acc = byGroup.get(jg);
    if (!acc) byGroup.set(jg, (acc = new QrelsAccumulator('error', path)));
    acc.add(decodeId(buf, f[0], f[1]), decodeId(buf, f[4], f[5]), parseGrade(buf, f[6], f[7], path, lineNo, text), lineNo, text);
  });
  const byQuery = new Map<string, QueryJudgements[]>();
  for (const jg of [...byGroup.keys()].sort(compareBytes)) {
    const qrels = byGroup.get(jg)!.finish('trec');
    for (const qid of qrels.queryIds()) {
      let groups = byQuery.get(qid);
      if (!groups) byQuery.set(qid, (groups = []));
      groups.push(qrels.judgements(qid)!);
    }
  }
  return new JudgmentGroups(byQuery);
}
