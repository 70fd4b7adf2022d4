import { closeSync, openSync, readSync } from 'node:fs';
import { corpusFile, forEachDatasetDoc } from '../../formats/datasetFolder';
import { InputError } from '../../formats/errors';
import { documentText } from './dataset';

/**
 * A corpus.jsonl known by its ids and the byte span of each document's line, so texts can be read back a
 * block at a time when they are encoded instead of all being held: memory for a corpus is its ids and two
 * numbers per document, whatever the length of its texts.
 */
export class CorpusTexts {
  private constructor(
    readonly path: string,
    readonly ids: string[],
    private readonly offsets: Float64Array,
    private readonly lengths: Float64Array,
    /** Texts held in memory, for a corpus that cannot be read back by offset (gzipped, or a TSV collection). */
    private readonly held: string[] | null,
  ) {}

  /** One pass over the file (every line checked as the readers check it), keeping ids and line spans. */
  static async scan(dataset: string, signal?: AbortSignal): Promise<CorpusTexts> {
    const path = corpusFile(dataset);
    const held = path.endsWith('.jsonl') ? null : ([] as string[]);
    const ids: string[] = [];
    let offsets: Float64Array = new Float64Array(1024);
    let lengths: Float64Array = new Float64Array(1024);
    await forEachDatasetDoc(
      path,
      (doc) => {
        held?.push(documentText(doc));
        if (ids.length === offsets.length) {
          offsets = grow(offsets);
          lengths = grow(lengths);
        }
        offsets[ids.length] = doc.offset;
        lengths[ids.length] = doc.length;
        ids.push(doc.id);
      },
      signal,
    );
    return new CorpusTexts(path, ids, offsets.subarray(0, ids.length), lengths.subarray(0, ids.length), held);
  }

  get count(): number {
    return this.ids.length;
  }

  /** The texts (title and text, as documentText makes them) of documents [from, to). */
  texts(from: number, to: number): string[] {
    if (to <= from) return [];
    if (this.held) return this.held.slice(from, to);
    const base = this.offsets[from];
    const buf = Buffer.alloc(this.offsets[to - 1] + this.lengths[to - 1] - base);
    const fd = openSync(this.path, 'r');
    try {
      let off = 0;
      while (off < buf.length) {
        const n = readSync(fd, buf, off, buf.length - off, base + off);
        if (n === 0) break;
        off += n;
      }
    } finally {
      closeSync(fd);
    }
    const out: string[] = [];
    for (let i = from; i < to; i++) {
      const start = this.offsets[i] - base;
      const doc = parseDoc(buf.toString('utf8', start, start + this.lengths[i]));
      if (!doc || doc._id !== this.ids[i] || typeof doc.text !== 'string') {
        throw new InputError({
          code: 'unreadable',
          message: `document ${JSON.stringify(this.ids[i])} is no longer where it was when the file was first read: the file changed during the run`,
          file: this.path,
          hint: 'Run again once the corpus file is no longer being written.',
        });
      }
      out.push(documentText({ title: typeof doc.title === 'string' ? doc.title : '', text: doc.text }));
    }
    return out;
  }
}

function parseDoc(line: string): { _id?: unknown; title?: unknown; text?: unknown } | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null ? v : null;
  } catch {
    return null;
  }
}

function grow(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}
