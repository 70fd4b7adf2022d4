import { IdRegistry, LineGuard, type BeirQuery, type CorpusDoc, type ReadOptions } from './beir';
import { forEachLine, forEachLineSync } from './lines';
import { InputError } from './errors';
import { decodeId } from './idTable';

/**
 * MS MARCO-style TSV files: a collection (`collection.tsv`: id TAB text; `docs.tsv`: id TAB url TAB title TAB
 * body; also id TAB title TAB text) and queries (`queries.dev.tsv`: id TAB text). One record per line, no header,
 * no quoting (MS MARCO's text holds no TABs); ids are strings.
 */

/**
 * The line's TAB-separated fields. The first is an id, read as bytes as in runs and qrels (decodeId: a byte that is
 * not UTF-8 stays itself, so two such ids stay two); the others are text (such a byte reads as U+FFFD).
 */
function fields(buf: Buffer, start: number, end: number): string[] {
  const f = buf.toString('utf8', start, end).split('\t');
  if (f[0].includes('\ufffd')) {
    const tab = buf.indexOf(9, start);
    f[0] = decodeId(buf, start, tab >= 0 && tab < end ? tab : end);
  }
  return f;
}

function blank(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== 32 && buf[i] !== 9) return false;
  return true;
}

function badLine(file: string, line: number, raw: string, message: string, hint: string): InputError {
  return new InputError({ code: 'malformed', message, file, line, text: raw, hint });
}

function checkId(id: string, file: string, line: number, raw: string, what: string): void {
  if (id === '' || /\s/.test(id)) {
    throw badLine(file, line, raw, `${what} id ${JSON.stringify(id)} is empty or contains whitespace`, 'Each line starts with an id without spaces, then a TAB.');
  }
}

/** One line of a TSV collection as a document (id, title, text), or null for a blank line; throws InputError. */
export function parseCollectionLine(path: string, buf: Buffer, start: number, end: number, lineNo: number): { id: string; title: string; text: string; raw: string } | null {
  if (blank(buf, start, end)) return null;
  const f = fields(buf, start, end);
  const raw = f.join('\t');
  if (f.length < 2 || f.length > 4) {
    throw badLine(path, lineNo, raw, `${f.length} TAB-separated column(s)`, 'A collection line is id TAB text, id TAB title TAB text, or id TAB url TAB title TAB body (MS MARCO documents).');
  }
  checkId(f[0], path, lineNo, raw, 'document');
  const [title, text] = f.length === 2 ? ['', f[1]] : f.length === 3 ? [f[1], f[2]] : [f[2], f[3]];
  return { id: f[0], title, text, raw };
}

function collectionHandler(path: string, onDoc: (doc: CorpusDoc) => void, guard: LineGuard) {
  const ids = new IdRegistry(path);
  return (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => {
    guard.bom(lineNo, offset);
    guard.run(() => {
      const rec = parseCollectionLine(path, buf, start, end, lineNo);
      if (!rec) return;
      ids.add(rec.id, lineNo, rec.raw);
      onDoc({ id: rec.id, title: rec.title, text: rec.text, line: lineNo, offset, length: end - start });
    });
  };
}

/** Calls `onDoc` for each document of a TSV collection (or .tsv.gz), in file order (yields between 1 MiB chunks). */
export async function forEachTsvDoc(path: string, onDoc: (doc: CorpusDoc) => void, signal?: AbortSignal, options: ReadOptions = {}): Promise<void> {
  const guard = new LineGuard(path, options);
  await forEachLine(path, collectionHandler(path, onDoc, guard), signal);
  guard.finish();
}

export function forEachTsvDocSync(path: string, onDoc: (doc: CorpusDoc) => void, options: ReadOptions = {}): void {
  const guard = new LineGuard(path, options);
  forEachLineSync(path, collectionHandler(path, onDoc, guard));
  guard.finish();
}

/** Reads a TSV queries file (id TAB text), keyed by id. */
export function readTsvQueries(path: string, options: ReadOptions = {}): Map<string, BeirQuery> {
  const ids = new IdRegistry(path);
  const out = new Map<string, BeirQuery>();
  const guard = new LineGuard(path, options);
  forEachLineSync(path, (buf, start, end, lineNo, offset) => {
    guard.bom(lineNo, offset);
    if (blank(buf, start, end)) return;
    guard.run(() => {
      const f = fields(buf, start, end);
      const raw = f.join('\t');
      if (f.length !== 2) throw badLine(path, lineNo, raw, f.length === 1 ? 'no TAB between query id and text' : `${f.length} TAB-separated column(s), expected 2`, 'A queries line is the query id, a TAB, then the query text (as MS MARCO queries.*.tsv).');
      checkId(f[0], path, lineNo, raw, 'query');
      ids.add(f[0], lineNo, raw);
      out.set(f[0], { id: f[0], text: f[1], line: lineNo });
    });
  });
  guard.finish();
  return out;
}
