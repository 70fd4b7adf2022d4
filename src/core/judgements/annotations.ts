import { closeSync, existsSync, mkdirSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppendLog, type Recovery } from './appendLog';
import { fsyncDir } from '../durableFs';
import { InputError } from '../formats/errors';
import { forEachLineSync, textEncoding } from '../formats/lines';
import type { Problem } from '../formats/problems';
import { QrelsLineParser } from '../formats/qrels';

/**
 * The user's relevance judgements, kept beside the dataset in plain text that BEIR and trec tools read:
 *   qrels/<split>.annotations.tsv        BEIR qrels: header `query-id\tcorpus-id\tscore`, one line per judgement
 *   qrels/<split>.annotations.meta.jsonl when, by whom and the note, one JSON line per judgement
 * Both are append-only (see AppendLog). A later line for the same (query, doc) supersedes earlier ones: the
 * last line wins, so changing a grade is one more append and the history stays readable. The original
 * qrels/<split>.tsv is never written. The .tsv is what counts; the journal only adds detail, and a judgement
 * whose journal line is missing (a crash between the two appends) keeps its grade with no time or author.
 */
export const BEIR_QRELS_HEADER = 'query-id\tcorpus-id\tscore\n';

export function annotationPaths(datasetDir: string, split: string): { tsv: string; meta: string } {
  const qrels = join(datasetDir, 'qrels');
  return { tsv: join(qrels, `${split}.annotations.tsv`), meta: join(qrels, `${split}.annotations.meta.jsonl`) };
}

/** The split an annotation file belongs to, or undefined when `file` is not one. */
export function annotationSplit(file: string): string | undefined {
  const m = /^(.+)\.annotations\.tsv$/.exec(basename(file));
  return m ? m[1] : undefined;
}

export interface Judgement {
  queryId: string;
  docId: string;
  grade: number;
  /** ISO 8601 time; undefined when the journal has no record for this grade. */
  at?: string;
  by?: string;
  note?: string;
}

/**
 * The grades a judgement may carry when the dataset's scale is unknown: -1 (trec_eval's "pooled but not
 * judged", what an undo records) up to MAX_GRADE. Every relevance scale in use (BEIR's 0-2, TREC's 0-4) fits.
 */
export const MAX_GRADE = 10;
const MAX_ID_LENGTH = 1000;

/** Why a qrels id cannot be written to a TAB-separated line that every reader reads back, or undefined. */
function badId(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'is not a string';
  if (id === '') return 'is empty';
  if (/\s/.test(id)) return 'contains white space, which would split the qrels line';
  if (/\p{Cc}/u.test(id)) return 'contains a control character';
  if (/\p{Cs}/u.test(id)) return 'is not valid Unicode (a lone surrogate)';
  if (id.length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  return undefined;
}

/**
 * Checks a judgement at the store's boundary, whoever sent it, so that nothing is confirmed that a reader
 * would later skip or refuse. `scale`: the dataset's grades when known (-1, an undo, is always allowed);
 * otherwise -1 to MAX_GRADE. Throws a message saying why.
 */
export function validateJudgement(j: { queryId: unknown; docId: unknown; grade: unknown }, scale?: readonly number[]): void {
  for (const [what, id] of [['query id', j.queryId], ['document id', j.docId]] as const) {
    const why = badId(id);
    if (why) throw new Error(`cannot record a judgement: the ${what} ${JSON.stringify(id)} ${why}`);
  }
  const g = j.grade;
  const ok = typeof g === 'number' && Number.isInteger(g) && (scale ? g === -1 || scale.includes(g) : g >= -1 && g <= MAX_GRADE);
  if (!ok) {
    const allowed = scale ? `an integer on this dataset's scale (${scale.join(', ')}) or -1 (unjudged)` : `an integer from -1 (unjudged) to ${MAX_GRADE}`;
    throw new Error(`cannot record a judgement: grade ${JSON.stringify(g)} is not ${allowed}`);
  }
}

/**
 * The columns of the qrels file at `path` (3 or 4), as its first judgement says (QrelsLineParser), from its first
 * 64 KiB; undefined when they hold none.
 */
function qrelsColumns(path: string): number | undefined {
  let head: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      head = Buffer.alloc(64 << 10);
      head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const enc = textEncoding(head);
  const text = Buffer.from(enc === 'plain' ? head.toString('utf8') : new TextDecoder(enc === 'utf16le' ? 'utf-16le' : 'utf-16be').decode(head));
  const parser = new QrelsLineParser(path);
  for (let start = 0, nl = text.indexOf(10); nl >= 0 && !parser.columns; start = nl + 1, nl = text.indexOf(10, start)) {
    try {
      parser.parse(text, start, text[nl - 1] === 13 ? nl - 1 : nl, 0);
    } catch {
      // a bad line: the next one may say
    }
  }
  return parser.columns || undefined;
}

/** A line some qrels reader accepts (QrelsLineParser: the one verdict of every reader). */
const isTsvLine = (line: string): boolean => {
  try {
    return new QrelsLineParser('').parse(Buffer.from(line), 0, Buffer.byteLength(line), 1) !== null;
  } catch {
    return false;
  }
};
const isJsonLine = (line: string): boolean => {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
};

/** The problems worth telling the user about what recovery did to `path`. */
function recoveryProblems(path: string, r: Recovery): Problem[] {
  const problems: Problem[] = [];
  if (r.cutBytes > 0) {
    problems.push({
      file: path,
      line: 0,
      severity: 'warning',
      message: `removed ${r.cutBytes} bytes of a judgement whose write was interrupted (a crash or a failed write); it was never confirmed. Nothing to do.`,
    });
  }
  if (r.reopened) {
    const { deleted, restored } = r.reopened;
    problems.push({
      file: path,
      line: 0,
      severity: 'warning',
      message: deleted
        ? 'the file was deleted while judging, so it was created again (with its header) for this judgement. Judgements that were only in the deleted file are gone unless you restore it.'
        : `another program replaced the file (an editor's save, sed -i, git checkout, a sync tool); its content is kept and this judgement was added to it${restored > 0 ? `, with ${restored} earlier judgement${restored === 1 ? '' : 's'} the replacement lacked (confirmed after it was written)` : ''}.`,
    });
  }
  if (r.kept && !r.kept.valid) {
    problems.push({
      file: path,
      line: r.kept.line,
      severity: 'warning',
      message: `kept a last line that lacked its line break and is not a judgement: ${JSON.stringify(r.kept.text.slice(0, 120))}. It was not written by IR Workbench, so it is left as it is; fix or delete the line.`,
    });
  }
  return problems;
}

/** Appends judgements of one split durably; returns from judge() only once the judgement is on disk. */
export class AnnotationWriter {
  private constructor(
    private readonly tsv: AppendLog,
    private readonly meta: AppendLog,
  ) {}

  /** Opens (creating when missing) the split's annotation files and repairs a torn tail from a crash. */
  static open(datasetDir: string, split: string): { writer: AnnotationWriter; problems: Problem[] } {
    const paths = annotationPaths(datasetDir, split);
    if (!existsSync(dirname(paths.tsv))) {
      mkdirSync(dirname(paths.tsv), { recursive: true });
      fsyncDir(datasetDir); // the new qrels/ folder's entry must be durable too
    }
    const tsv = AppendLog.open(paths.tsv, BEIR_QRELS_HEADER, isTsvLine);
    let meta: AppendLog;
    try {
      meta = AppendLog.open(paths.meta, '', isJsonLine);
    } catch (e) {
      tsv.close();
      throw e;
    }
    const problems = [...recoveryProblems(tsv.path, tsv.recovered), ...recoveryProblems(meta.path, meta.recovered)];
    return { writer: new AnnotationWriter(tsv, meta), problems };
  }

  /** The .tsv this writer appends to. */
  get path(): string {
    return this.tsv.path;
  }

  /**
   * Records `j`: validated first, then durable in the .tsv (the source of truth) when this returns. Throws,
   * with nothing recorded, when the .tsv write fails. Returns problems found on the way: what had to be
   * repaired at the end of the files, or a journal line (time, author, note) that could not be written.
   */
  judge(j: Judgement, scale?: readonly number[]): Problem[] {
    validateJudgement(j, scale);
    // In the file's own columns (TREC's four if another tool made it so): every reader reads it as the others.
    const line = qrelsColumns(this.tsv.path) === 4 ? `${j.queryId} 0 ${j.docId} ${j.grade}` : `${j.queryId}\t${j.docId}\t${j.grade}`;
    const problems = recoveryProblems(this.tsv.path, this.tsv.append(line));
    const record: Record<string, unknown> = { query: j.queryId, doc: j.docId, grade: j.grade, at: j.at ?? new Date().toISOString() };
    if (j.by !== undefined) record.by = j.by;
    if (j.note !== undefined) record.note = j.note;
    try {
      problems.push(...recoveryProblems(this.meta.path, this.meta.append(JSON.stringify(record))));
    } catch (e) {
      problems.push({
        file: this.meta.path,
        line: 0,
        severity: 'warning',
        message: `the judgement of ${j.docId} for query ${j.queryId} was recorded, but not its time and note: ${(e as Error).message}`,
      });
    }
    return problems;
  }

  close(): void {
    this.tsv.close();
    this.meta.close();
  }
}

export interface ReadAnnotations {
  /** The effective judgement of each (query, doc), last line wins, in order of first appearance. */
  judgements: Judgement[];
  /** Lines read from the .tsv (header excluded), superseded ones included. */
  lines: number;
  problems: Problem[];
}

/**
 * Reads a split's annotations. Tolerant by design: these are the user's own files, so a bad line is
 * reported and skipped rather than making every other judgement unreadable. Each line gets the verdict every
 * qrels reader gives it (QrelsLineParser: `irw eval` reads the same lines as the same judgements, TREC's four
 * columns and BEIR's three alike); the file may be UTF-16, as an editor's "save with encoding" leaves it.
 */
export function readAnnotations(tsvPath: string): ReadAnnotations {
  const problems: Problem[] = [];
  const latest = new Map<string, Judgement>();
  let lines = 0;
  const parser = new QrelsLineParser(tsvPath);
  forEachLineSync(tsvPath, (buf, start, end, lineNo) => {
    let parsed;
    try {
      parsed = parser.parse(buf, start, end, lineNo);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push({
        file: tsvPath,
        line: lineNo,
        severity: 'warning',
        message: `skipped a line that is not a judgement (${e.message}): ${JSON.stringify(e.text ?? '')}. ${e.hint ? `${e.hint} ` : ''}Fix or delete the line; the other judgements are used.`,
      });
      return;
    }
    if (!parsed) return;
    lines++;
    const key = `${parsed.qid}\t${parsed.docid}`;
    latest.delete(key); // re-insert so the order is that of the latest line
    latest.set(key, { queryId: parsed.qid, docId: parsed.docid, grade: parsed.grade });
  });
  const journal = journalPath(tsvPath);
  if (existsSync(journal)) attachJournal(journal, latest);
  return { judgements: [...latest.values()], lines, problems };
}

const journalPath = (tsvPath: string): string => join(dirname(tsvPath), basename(tsvPath).replace(/\.tsv$/, '.meta.jsonl'));

/** Adds time, author and note from the journal where its last record for (query, doc) has the same grade. */
function attachJournal(journal: string, latest: Map<string, Judgement>): void {
  const last = new Map<string, { grade: number; at?: string; by?: string; note?: string }>();
  forEachLineSync(journal, (buf, start, end) => {
    const line = buf.toString('utf8', start, end);
    if (!line.trim()) return;
    let r: { query?: unknown; doc?: unknown; grade?: unknown; at?: unknown; by?: unknown; note?: unknown };
    try {
      r = JSON.parse(line);
    } catch {
      return; // the journal is optional detail; a torn line loses only detail
    }
    if (typeof r.query !== 'string' || typeof r.doc !== 'string' || typeof r.grade !== 'number') return;
    last.set(`${r.query}\t${r.doc}`, {
      grade: r.grade,
      at: typeof r.at === 'string' ? r.at : undefined,
      by: typeof r.by === 'string' ? r.by : undefined,
      note: typeof r.note === 'string' ? r.note : undefined,
    });
  });
  for (const [key, j] of latest) {
    const m = last.get(key);
    if (m && m.grade === j.grade) {
      if (m.at !== undefined) j.at = m.at;
      if (m.by !== undefined) j.by = m.by;
      if (m.note !== undefined) j.note = m.note;
    }
  }
}
