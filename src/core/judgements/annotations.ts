import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseQrelsLine } from './qrelsLine';
import { AppendLog, type Recovery } from './appendLog';
import { fsyncDir } from '../durableFs';
import type { Problem } from '../formats/problems';

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

const GRADE = /^-?\d+$/;

/**
 * The grades a judgement may carry: -1 (trec_eval's "pooled but not judged", what an undo records) up to
 * MAX_GRADE. Every relevance scale in use (BEIR's 0-2, TREC's 0-4) fits; anything larger is a slip.
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
 * would later skip or refuse. `maxGrade` is the dataset's scale when known. Throws a message saying why.
 */
export function validateJudgement(j: { queryId: unknown; docId: unknown; grade: unknown }, maxGrade = MAX_GRADE): void {
  for (const [what, id] of [['query id', j.queryId], ['document id', j.docId]] as const) {
    const why = badId(id);
    if (why) throw new Error(`cannot record a judgement: the ${what} ${JSON.stringify(id)} ${why}`);
  }
  const g = j.grade;
  if (typeof g !== 'number' || !Number.isInteger(g) || g < -1 || g > maxGrade) {
    throw new Error(`cannot record a judgement: grade ${JSON.stringify(g)} is not an integer from -1 (unjudged) to ${maxGrade}`);
  }
}

function parseLine(line: string): { queryId: string; docId: string; grade: number } | undefined {
  const f = line.split('\t');
  if (f.length !== 3 || f[0] === '' || f[1] === '' || !GRADE.test(f[2])) return undefined;
  return { queryId: f[0], docId: f[1], grade: Number(f[2]) };
}

/** A line some qrels reader accepts: ours (TAB-separated) or another tool's (BEIR or TREC, any white space). */
const isTsvLine = (line: string): boolean => parseLine(line) !== undefined || parseQrelsLine(line) !== undefined;
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
  judge(j: Judgement, maxGrade?: number): Problem[] {
    validateJudgement(j, maxGrade);
    const problems = recoveryProblems(this.tsv.path, this.tsv.append(`${j.queryId}\t${j.docId}\t${j.grade}`));
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
 * reported and skipped rather than making every other judgement unreadable. Lines other tools wrote in a
 * form `irw eval` reads (TREC's four columns, spaces for TABs, CRLF) count like ours.
 */
export function readAnnotations(tsvPath: string): ReadAnnotations {
  const metaPath = journalPath(tsvPath);
  return parseAnnotations(tsvPath, readFileSync(tsvPath, 'utf8'), existsSync(metaPath) ? readFileSync(metaPath, 'utf8') : '');
}

/** readAnnotations without blocking the thread (the extension host's). */
export async function readAnnotationsAsync(tsvPath: string): Promise<ReadAnnotations> {
  const text = await readFile(tsvPath, 'utf8');
  const meta = await readFile(journalPath(tsvPath), 'utf8').catch(() => '');
  return parseAnnotations(tsvPath, text, meta);
}

const journalPath = (tsvPath: string): string => join(dirname(tsvPath), basename(tsvPath).replace(/\.tsv$/, '.meta.jsonl'));

function parseAnnotations(tsvPath: string, text: string, journal: string): ReadAnnotations {
  const problems: Problem[] = [];
  const latest = new Map<string, Judgement>();
  let lines = 0;
  const rows = text.split('\n');
  if (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  rows.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (i === 0 && line === BEIR_QRELS_HEADER.trimEnd()) return;
    if (line.trim() === '') return;
    const parsed = line.includes('\0') ? undefined : (parseLine(line) ?? parseQrelsLine(line));
    if (!parsed) {
      problems.push({
        file: tsvPath,
        line: i + 1,
        severity: 'warning',
        message: `skipped a line that is not "query-id<TAB>corpus-id<TAB>integer grade": ${JSON.stringify(line.slice(0, 120))}. Fix or delete the line; the other judgements are used.`,
      });
      return;
    }
    lines++;
    const key = `${parsed.queryId}\t${parsed.docId}`;
    latest.delete(key); // re-insert so the order is that of the latest line
    latest.set(key, parsed);
  });
  attachJournal(journal, latest);
  return { judgements: [...latest.values()], lines, problems };
}

/** Adds time, author and note from the journal where its last record for (query, doc) has the same grade. */
function attachJournal(journal: string, latest: Map<string, Judgement>): void {
  const last = new Map<string, { grade: number; at?: string; by?: string; note?: string }>();
  for (const line of journal.split('\n')) {
    if (!line.trim()) continue;
    let r: { query?: unknown; doc?: unknown; grade?: unknown; at?: unknown; by?: unknown; note?: unknown };
    try {
      r = JSON.parse(line);
    } catch {
      continue; // the journal is optional detail; a torn line loses only detail
    }
    if (typeof r.query !== 'string' || typeof r.doc !== 'string' || typeof r.grade !== 'number') continue;
    last.set(`${r.query}\t${r.doc}`, {
      grade: r.grade,
      at: typeof r.at === 'string' ? r.at : undefined,
      by: typeof r.by === 'string' ? r.by : undefined,
      note: typeof r.note === 'string' ? r.note : undefined,
    });
  }
  for (const [key, j] of latest) {
    const m = last.get(key);
    if (m && m.grade === j.grade) {
      if (m.at !== undefined) j.at = m.at;
      if (m.by !== undefined) j.by = m.by;
      if (m.note !== undefined) j.note = m.note;
    }
  }
}
