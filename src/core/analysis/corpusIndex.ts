import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { forEachCorpusDoc, forEachCorpusDocSync } from '../formats/beir';

/**
 * What the analysis views need of a corpus without holding its text: each document's byte offset and
 * length in corpus.jsonl (to read its title and text on demand) and its length in words (title + text,
 * split on white space, as BEIR's document-length figures count them).
 */
export class CorpusIndex {
  private readonly index = new Map<string, number>();
  private offsets: Float64Array;
  private bytes: Int32Array;
  private wordCounts: Int32Array;
  private n = 0;

  private constructor(
    readonly path: string,
    /** Size and modification time when indexed: a changed file must be indexed again. */
    readonly stamp: string,
  ) {
    this.offsets = new Float64Array(1024);
    this.bytes = new Int32Array(1024);
    this.wordCounts = new Int32Array(1024);
  }

  static stampOf(path: string): string {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  }

  /**
   * Bad lines skipped while reading (the program's one rule: skip, report, go on). The views only count them:
   * the store reads the same file and lists each one, with the file and line, in the Problems panel.
   */
  skipped = 0;

  /** Reads corpus.jsonl once (streaming; the text is counted and dropped). */
  static build(path: string): CorpusIndex {
    const c = new CorpusIndex(path, CorpusIndex.stampOf(path));
    forEachCorpusDocSync(path, (doc) => c.add(doc.id, doc.offset, doc.length, countWords(doc.title) + countWords(doc.text)), { onBadLine: () => c.skipped++ });
    return c;
  }

  /** As build(), yielding to the event loop between 1 MiB chunks (the editor's thread stays responsive). */
  static async buildAsync(path: string, signal?: AbortSignal): Promise<CorpusIndex> {
    const c = new CorpusIndex(path, CorpusIndex.stampOf(path));
    await forEachCorpusDoc(path, (doc) => c.add(doc.id, doc.offset, doc.length, countWords(doc.title) + countWords(doc.text)), signal, { onBadLine: () => c.skipped++ });
    return c;
  }

  get size(): number {
    return this.n;
  }

  has(docId: string): boolean {
    return this.index.has(docId);
  }

  /** Words in title + text, or -1 for a document not in the corpus. */
  words(docId: string): number {
    const i = this.index.get(docId);
    return i === undefined ? -1 : this.wordCounts[i];
  }

  /** Title and text read from the file at the stored offset; null for a document not in the corpus. */
  read(docId: string): { title: string; text: string } | null {
    const i = this.index.get(docId);
    if (i === undefined) return null;
    const buf = Buffer.alloc(this.bytes[i]);
    const fd = openSync(this.path, 'r');
    try {
      readSync(fd, buf, 0, buf.length, this.offsets[i]);
    } finally {
      closeSync(fd);
    }
    const rec = JSON.parse(buf.toString('utf8')) as { _id?: unknown; title?: unknown; text?: unknown };
    if (rec._id !== docId) throw new Error(`${this.path} changed since it was read: reopen the view to read it again.`);
    return { title: typeof rec.title === 'string' ? rec.title : '', text: typeof rec.text === 'string' ? rec.text : '' };
  }

  private add(id: string, offset: number, length: number, words: number): void {
    if (this.n === this.offsets.length) {
      const grow = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.offsets = grow(this.offsets, (k) => new Float64Array(k));
      this.bytes = grow(this.bytes, (k) => new Int32Array(k));
      this.wordCounts = grow(this.wordCounts, (k) => new Int32Array(k));
    }
    this.index.set(id, this.n);
    this.offsets[this.n] = offset;
    this.bytes[this.n] = length;
    this.wordCounts[this.n] = words;
    this.n++;
  }
}

/** Number of white-space separated words (no allocation per word). */
export function countWords(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      n++;
    }
  }
  return n;
}

/** The start of a text, cut at a word boundary near `max` characters, with an ellipsis when cut. */
export function snippet(text: string, max = 240): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max);
  return `${text.slice(0, cut > max / 2 ? cut : max)}…`;
}
