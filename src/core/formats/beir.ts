import { statSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from './errors';
import { decodeId } from './idTable';
import { forEachLine, forEachLineSync } from './lines';

/**
 * Streaming readers for BEIR's corpus.jsonl and queries.jsonl (qrels are read by qrels.ts).
 *
 * Each line is one JSON object. Real files are ASCII-escaped JSON ("\u2019"), carry dataset-specific
 * `metadata` (ignored here), and use string ids. Lines are handed over one at a time, so a corpus never has to
 * fit in memory as text; each document carries its byte offset and length in the file, for offset indexes.
 */
export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line in the file and its length in bytes (line ending excluded). */
  offset: number;
  length: number;
}

export interface BeirQuery {
  id: string;
  text: string;
  line: number;
}

type Kind = 'corpus' | 'queries';

/** Parses one line; `null` for a blank line (skipped, as BEIR's loader does). */
function parseLine(kind: Kind, file: string, buf: Buffer, start: number, end: number, lineNo: number) {
  let s = start;
  while (s < end && (buf[s] === 32 || buf[s] === 9)) s++;
  if (s === end) return null;
  // Ids are bytes, as in runs and qrels: bytes that are not UTF-8 (`caf\xe9` in a Latin-1 id) are kept as
  // decodeId's escapes, so two such ids stay two, and a run written from them names the same bytes.
  const utf8 = buf.toString('utf8', start, end);
  const raw = utf8.includes('\ufffd') ? decodeId(buf, start, end) : utf8;
  let obj: unknown;
  try {
    obj = JSON.parse(raw);
  } catch (e) {
    throw new InputError({
      code: 'malformed',
      message: jsonMessage((e as Error).message),
      file,
      line: lineNo,
      text: raw,
      hint: `Each line of a BEIR ${kind} file must be one complete JSON object, e.g. ${example(kind)}.`,
    });
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new InputError({
      code: 'malformed',
      message: 'line is JSON but not an object',
      file,
      line: lineNo,
      text: raw,
      hint: `Each line must be a JSON object such as ${example(kind)}.`,
    });
  }
  const rec = obj as Record<string, unknown>;
  const id = rec._id;
  if (typeof id !== 'string' || id === '') {
    throw new InputError({
      code: id === undefined ? 'missing-field' : 'malformed',
      message: id === undefined ? 'missing "_id" field' : '"_id" must be a non-empty JSON string',
      file,
      line: lineNo,
      text: raw,
      hint: `Give every line a string id, e.g. ${example(kind)} (ids are strings even when they look numeric).`,
    });
  }
  if (/\s/.test(id)) {
    throw new InputError({
      code: 'malformed',
      message: `"_id" ${JSON.stringify(id)} contains whitespace`,
      file,
      line: lineNo,
      text: raw,
      hint: 'TREC run and qrels files separate columns by whitespace, so ids cannot contain any; rename the id.',
    });
  }
  const text = rec.text;
  if (typeof text !== 'string') {
    throw new InputError({
      code: text === undefined ? 'missing-field' : 'malformed',
      message: text === undefined ? 'missing "text" field' : '"text" must be a JSON string',
      file,
      line: lineNo,
      text: raw,
      hint: `Give every line a "text" string (it may be empty), e.g. ${example(kind)}.`,
    });
  }
  const title = rec.title;
  if (title !== undefined && title !== null && typeof title !== 'string') {
    throw new InputError({
      code: 'malformed',
      message: '"title" must be a JSON string',
      file,
      line: lineNo,
      text: raw,
      hint: 'Write the title as a string, or leave the field out.',
    });
  }
  // Text is only read, never written back: a byte that is not UTF-8 is the replacement character there.
  const readable = (t: string) => (raw === utf8 ? t : wellFormed(t));
  return { id, text: readable(text), title: typeof title === 'string' ? readable(title) : '', raw };
}

/** `s` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, which ES2022 lacks). */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/**
 * JSON.parse's message with its position inside the one line it saw ("at position 60 (line 1 column 61)") turned
 * into the column within the file's line (the line number is the error's own).
 */
function jsonMessage(message: string): string {
  const m = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/.exec(message);
  if (!m) return `not valid JSON: ${message}`;
  return `not valid JSON at column ${Number(m[1]) + 1}: ${message.slice(0, m.index)}`;
}

function example(kind: Kind): string {
  return kind === 'corpus' ? '{"_id": "d1", "title": "…", "text": "…"}' : '{"_id": "q1", "text": "…"}';
}

/** Tracks ids seen so far and rejects a second occurrence, naming both lines. */
export class IdRegistry {
  private readonly seen = new Map<string, number>();
  constructor(private readonly file: string) {}
  /** `raw`: the line, or what makes it (read only for the error). */
  add(id: string, lineNo: number, raw: string | (() => string)): void {
    const first = this.seen.get(id);
    if (first !== undefined) {
      throw new InputError({
        code: 'duplicate',
        message: `duplicate id ${JSON.stringify(id)} (first on line ${first})`,
        file: this.file,
        line: lineNo,
        text: typeof raw === 'string' ? raw : raw(),
        hint: 'Ids must be unique within the file: remove or rename one of the two lines.',
      });
    }
    this.seen.set(id, lineNo);
  }
}

export interface ReadOptions {
  /**
   * Called with each bad line's error (malformed JSON, missing field, duplicate id: the first occurrence
   * wins), which is then skipped. Without it, bad lines go to the program's report (setReadReport), or, when
   * there is none, the first one throws.
   */
  onBadLine?: (e: InputError) => void;
  /** Called with what was read other than byte for byte (a byte-order mark ignored); else the program's report hears it. */
  onNotice?: (message: string) => void;
}

/**
 * How a program hears about what the readers skip or read differently, when a caller gives no onBadLine:
 * the CLI prints it, the runner child forwards it to the editor. The rule everywhere: a bad line is skipped,
 * reported, and counted; reading goes on.
 */
export interface ReadReport {
  /** A bad line, skipped. */
  skipped(e: InputError): void;
  /** Something read other than byte for byte, e.g. a byte-order mark ignored. */
  notice(file: string, message: string): void;
  /** The end of a file that had skipped lines, with their number. */
  finished(file: string, skipped: number): void;
}

let report: ReadReport | null = null;

/** Sets (or with null, clears) the program's report; returns the previous one. */
export function setReadReport(r: ReadReport | null): ReadReport | null {
  const before = report;
  report = r;
  return before;
}

/** Per file: routes bad lines to onBadLine, else to the program's report, else throws the first. */
export class LineGuard {
  private count = 0;
  constructor(
    private readonly file: string,
    private readonly options: ReadOptions,
  ) {}

  run(parse: () => void): void {
    const sink = this.options.onBadLine ?? (report ? (e: InputError) => report!.skipped(e) : null);
    if (!sink) return parse();
    try {
      parse();
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      this.count++;
      sink(e);
    }
  }

  /**
   * The line reader drops a UTF-8 byte-order mark (it would become part of the first id); the first line then
   * starts at byte 3. Says so once, where a program report listens.
   */
  bom(lineNo: number, offset: number): void {
    if (lineNo !== 1 || offset !== 3) return;
    const message = 'starts with a UTF-8 byte-order mark, which was ignored';
    if (this.options.onNotice) this.options.onNotice(message);
    else if (!this.options.onBadLine) report?.notice(this.file, message);
  }

  finish(): void {
    if (this.count > 0 && !this.options.onBadLine) report?.finished(this.file, this.count);
  }
}

/** One line of a corpus.jsonl as a document (id, title, text), or null for a blank line; throws InputError. */
export function parseCorpusLine(path: string, buf: Buffer, start: number, end: number, lineNo: number): { id: string; title: string; text: string; raw: string } | null {
  return parseLine('corpus', path, buf, start, end, lineNo);
}

/**
 * A faster reader of a corpus's ordinary lines beside the general one (the BM25 index build's,
 * retrieval/bm25/corpusLine.ts). It must take only lines that the general reader reads as a document, with
 * the same id and fields; every other line is read by the general reader (bad lines reported as always).
 */
export interface FastCorpusLines {
  /** The id of the document on bytes [start, end) when this reader takes the line (it keeps the fields), else null. */
  scan(buf: Buffer, start: number, end: number): string | null;
  /** Takes the document just scanned, once its id is known to be new. */
  add(id: string): void;
}

function corpusHandler(path: string, onDoc: (doc: CorpusDoc) => void, guard: LineGuard, fast?: FastCorpusLines) {
  const ids = new IdRegistry(path);
  return (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => {
    guard.run(() => {
      guard.bom(lineNo, offset);
      const id = fast ? fast.scan(buf, start, end) : null;
      if (id !== null) {
        ids.add(id, lineNo, () => buf.toString('utf8', start, end));
        fast!.add(id);
        return;
      }
      const rec = parseLine('corpus', path, buf, start, end, lineNo);
      if (!rec) return;
      ids.add(rec.id, lineNo, rec.raw);
      onDoc({ id: rec.id, title: rec.title, text: rec.text, line: lineNo, offset, length: end - start });
    });
  };
}

/**
 * A BEIR file of a dataset folder: `name` (e.g. corpus.jsonl) or, when only that exists, `name.gz` (Pyserini and
 * Anserini distribute gzipped corpora); `name` when neither does, so that the error names the usual file.
 */
export function beirFile(dataset: string, name: 'corpus.jsonl' | 'queries.jsonl'): string {
  return plainOrGz(join(dataset, name));
}

/** `path`, or `path.gz` when only that exists. */
export function plainOrGz(path: string): string {
  return statKind(path) === 'none' && statKind(`${path}.gz`) === 'file' ? `${path}.gz` : path;
}

export function statKind(path: string): 'file' | 'dir' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'none';
  }
}

/** Calls `onDoc` for each document of a BEIR corpus.jsonl (or corpus.jsonl.gz), in file order. */
export function forEachCorpusDocSync(path: string, onDoc: (doc: CorpusDoc) => void, options: ReadOptions = {}): void {
  const guard = new LineGuard(path, options);
  forEachLineSync(path, corpusHandler(path, onDoc, guard));
  guard.finish();
}

/**
 * Async variant: yields to the event loop between 1 MiB chunks, so cancellation can be noticed. With `fast`, the
 * lines it takes are its own (onDoc is not called for them).
 */
export async function forEachCorpusDoc(
  path: string,
  onDoc: (doc: CorpusDoc) => void,
  signal?: AbortSignal,
  options: ReadOptions = {},
  fast?: FastCorpusLines,
): Promise<void> {
  const guard = new LineGuard(path, options);
  await forEachLine(path, corpusHandler(path, onDoc, guard, fast), signal);
  guard.finish();
}

/** Reads every query of a BEIR queries.jsonl (all splits), in file order, keyed by id. */
export function readQueries(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  const ids = new IdRegistry(path);
  const out = new Map<string, BeirQuery>();
  const guard = new LineGuard(path, options);
  forEachLineSync(path, (buf, start, end, lineNo, offset) => {
    guard.run(() => {
      guard.bom(lineNo, offset);
      const rec = parseLine('queries', path, buf, start, end, lineNo);
      if (!rec) return;
      ids.add(rec.id, lineNo, rec.raw);
      out.set(rec.id, { id: rec.id, text: rec.text, line: lineNo });
    });
  });
  guard.finish();
  return out;
}
