import type { Analyzer } from '../analysis/analyzer';
import type { CorpusLineScanner } from './corpusLine';
import { intToByte4 } from './smallFloat';

/**
 * In-memory inverted index over typed arrays. One FieldIndex per indexed field: "contents" (title + " " + text)
 * for a flat index, "title" and "text" for a multifield one. Postings are in CSR form: the postings of term t
 * are positions offsets[t] .. offsets[t+1] of `docs` (ascending document numbers) and `tfs`.
 */
export type FieldsMode = 'flat' | 'multifield';

export interface FieldIndex {
  name: string;
  /** term id -> term; the term ids are assigned in first-seen order. */
  terms: string[];
  termIds: Map<string, number>;
  offsets: Uint32Array;
  docs: Uint32Array;
  /** As narrow as the largest frequency allows: 8 bits for most corpora, 16 or 32 when needed. */
  tfs: Uint8Array | Uint16Array | Uint32Array;
  /** Per document: its length in this field (tokens after stopword removal), encoded as Lucene's norms. */
  norms: Uint8Array;
  /** Documents with at least one term in this field, and the total number of tokens (Lucene's statistics). */
  docCount: number;
  sumTotalTermFreq: number;
}

/** What scoring reads of a field: its postings and statistics, not its terms (search worker threads have none). */
export type ScoringField = Pick<FieldIndex, 'offsets' | 'docs' | 'tfs' | 'norms' | 'docCount' | 'sumTotalTermFreq'>;

/** What scoring reads of an index (a Bm25Index, or its shared arrays in a search worker: parallelSearch.ts). */
export interface ScoringIndex {
  numDocs: number;
  idRank: Uint32Array;
  fieldIndexes: readonly ScoringField[];
}

export interface Bm25Index {
  analyzerId: string;
  fields: FieldsMode;
  /** document number -> id, in corpus order. */
  docIds: string[];
  /** document number -> position of its id in ascending string order (ties in scores are broken by it). */
  idRank: Uint32Array;
  fieldIndexes: FieldIndex[];
}

export function fieldNames(mode: FieldsMode): string[] {
  return mode === 'flat' ? ['contents'] : ['title', 'text'];
}

/** Growable Uint32Array. */
class U32List {
  data: Uint32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Uint32Array(capacity);
  }
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }
  grow(min: number): void {
    const next = new Uint32Array(Math.max(min, Math.ceil(this.data.length * 1.5)));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

/** Forward entries are written into blocks of this many (term, tf) pairs; a document never spans two blocks. */
const BLOCK = 1 << 20;
/** Packed forward entries hold term * 256 + tf: terms below 2^24, tfs saturating at 255 (the rest in a map). */
const PACKED_TF_MAX = 0xff;
const PACKED_TERMS = 1 << 24;
const TF_MAX = 0xffff;

/** Block size and the packing limit; other values only in tests (the wide layout needs 2^24 terms otherwise). */
export interface BlockLayout {
  blockEntries: number;
  packedTerms: number;
}

interface ResizableBuffer extends ArrayBuffer {
  resize(byteLength: number): void;
}
type ResizableBufferCtor = new (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer;

/**
 * A typed array over a resizable ArrayBuffer, so that its memory can be returned at once by resizing it to 0:
 * a dropped ArrayBuffer is freed only by a garbage collection, which the inversion loop (no allocation) never
 * triggers, so without this every forward block stayed resident until the postings were complete. Only copied
 * into and out of (bulk `set`): element access on such arrays is 2-3 times slower in V8.
 */
function releasable<T>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T; BYTES_PER_ELEMENT: number }, n: number): T {
  const bytes = n * Ctor.BYTES_PER_ELEMENT;
  return new Ctor(new (ArrayBuffer as unknown as ResizableBufferCtor)(bytes, { maxByteLength: bytes }), 0, n);
}

function releaseBlock(blocks: (Block | null)[], b: number): void {
  const block = blocks[b];
  if (!block) return;
  // A runtime without resizable buffers (older than Node 20) ignores maxByteLength: then the GC frees the block.
  (block.entries.buffer as Partial<ResizableBuffer>).resize?.(0);
  if (block.tfs) (block.tfs.buffer as Partial<ResizableBuffer>).resize?.(0);
  blocks[b] = null;
}

/**
 * One block of forward entries. Packed (4 bytes an entry) while every term id the block can meet fits 24 bits;
 * otherwise a term array and a 16-bit tf array (6 bytes an entry).
 */
interface Block {
  entries: Uint32Array;
  tfs: Uint16Array | null;
}

/**
 * Builds one field: per document, its distinct terms and their frequencies go into blocks of typed arrays (no
 * copy on growth), then a counting sort turns them into CSR postings, freeing each block once it is placed.
 * Peak memory is about 9 bytes per posting (4 forward, 5 inverted). Frequencies above what a forward entry
 * holds are rare enough to live in a map; the postings' tf array is 8 bits wide, or 16 or 32 when a frequency
 * needs it.
 */
class FieldBuilder {
  private readonly terms: string[] = [];
  private readonly termIds = new Map<string, number>();
  private readonly df = new U32List();
  private readonly lastDoc = new U32List(); // per term: last document number + 1 that contained it
  private readonly slot = new U32List(); // per term: offset in the current block of its entry for the current document
  /** analyser term id -> this field's term id + 1 (0: not seen in this field). */
  private readonly localIds = new U32List();
  private readonly blocks: (Block | null)[] = [];
  private blockUsed = 0;
  /** Per document: where its entries start (block, offset) and how many there are. */
  private readonly docBlock = new U32List();
  private readonly docOffset = new U32List();
  private readonly docTerms = new U32List();
  private readonly lengths = new U32List();
  /** (block * 2^32 + offset) -> tf, for tfs above what the entry holds. */
  private readonly bigTfs = new Map<number, number>();
  /** Largest tf above 255 seen (0 if none): sets the width of the postings' tf array. */
  private maxTf = 0;
  /** One document's entries while it is counted (plain arrays: see addDocument). */
  private scratch = new Uint32Array(1024);
  private scratchTfs = new Uint16Array(1024);
  private postings = 0;
  private docCount = 0;
  private sumTotalTermFreq = 0;

  constructor(
    readonly name: string,
    private readonly layout: BlockLayout,
  ) {}

  addDocument(docNo: number, text: string, analyzer: Analyzer): void {
    const n = analyzer.termIds(text); // before reading analyzer.ids: it may grow the array
    this.addTerms(docNo, analyzer.ids, 0, n, analyzer);
  }

  /** addDocument() of the text whose code units are u[from, to). */
  addUnits(docNo: number, u: Uint16Array, from: number, to: number, analyzer: Analyzer): void {
    const n = analyzer.termIdsOf(u, from, to);
    this.addTerms(docNo, analyzer.ids, 0, n, analyzer);
  }

  /** Adds a document already analysed: its `n` term ids (the analyser's) are ids[from, from + n), in text order. */
  addTerms(docNo: number, ids: Int32Array, from: number, n: number, analyzer: Analyzer): void {
    // Room for every token of this document in the current block, so the loop writes without checks.
    let b = this.blocks.length - 1;
    if (b < 0 || this.blockUsed + n > this.blocks[b]!.entries.length) {
      const size = Math.max(this.layout.blockEntries, n);
      // A block meets at most `size` new terms: packed if even then every term id stays below 2^24.
      const packed = this.terms.length + size <= this.layout.packedTerms;
      this.blocks.push({ entries: releasable(Uint32Array, size), tfs: packed ? null : releasable(Uint16Array, size) });
      this.blockUsed = 0;
      b++;
    }
    const block = this.blocks[b]!;
    const start = this.blockUsed;
    // The document's entries are counted in plain scratch arrays, then copied into the block (element access on
    // a resizable buffer is 2-3 times slower in V8).
    if (this.scratch.length < n) {
      this.scratch = new Uint32Array(Math.max(n, 2 * this.scratch.length));
      this.scratchTfs = new Uint16Array(this.scratch.length);
    }
    const entries = this.scratch;
    const tfs = block.tfs === null ? null : this.scratchTfs;
    let end = 0;
    const mark = docNo + 1;
    const lastDoc = this.lastDoc;
    const slot = this.slot;
    for (let k = 0; k < n; k++) {
      const globalId = ids[from + k];
      let t = globalId < this.localIds.length ? this.localIds.data[globalId] - 1 : -1;
      if (t < 0) t = this.newTerm(globalId, analyzer);
      if (lastDoc.data[t] !== mark) {
        lastDoc.data[t] = mark;
        slot.data[t] = end;
        this.df.data[t]++;
        if (tfs === null) entries[end] = t * 256 + 1;
        else {
          entries[end] = t;
          tfs[end] = 1;
        }
        end++;
      } else {
        const at = slot.data[t];
        if (tfs === null) {
          if ((entries[at] & PACKED_TF_MAX) < PACKED_TF_MAX) entries[at]++;
          else this.bigTf(b, start + at, PACKED_TF_MAX);
        } else if (tfs[at] < TF_MAX) {
          const tf = ++tfs[at];
          if (tf > this.maxTf) this.maxTf = tf;
        } else this.bigTf(b, start + at, TF_MAX);
      }
    }
    block.entries.set(entries.subarray(0, end), start);
    if (tfs !== null) block.tfs!.set(tfs.subarray(0, end), start);
    end += start;
    this.blockUsed = end;
    this.docBlock.push(b);
    this.docOffset.push(start);
    this.docTerms.push(end - start);
    this.postings += end - start;
    if (n > 0) this.docCount++;
    this.sumTotalTermFreq += n;
    this.lengths.push(n);
  }

  /** One more occurrence of a term whose entry at (block, at) is full (`full` is what the entry holds). */
  private bigTf(block: number, at: number, full: number): void {
    const key = block * 2 ** 32 + at;
    const tf = (this.bigTfs.get(key) ?? full) + 1;
    this.bigTfs.set(key, tf);
    if (tf > this.maxTf) this.maxTf = tf;
  }

  /** Gives the analyser's term `globalId` an id in this field (fields have their own, smaller vocabularies). */
  private newTerm(globalId: number, analyzer: Analyzer): number {
    const t = this.terms.length;
    const term = analyzer.terms[globalId];
    this.terms.push(term);
    this.termIds.set(term, t);
    this.df.push(0);
    this.lastDoc.push(0);
    this.slot.push(0);
    if (globalId >= this.localIds.data.length) this.localIds.grow(globalId + 1);
    if (globalId >= this.localIds.length) this.localIds.length = globalId + 1;
    this.localIds.data[globalId] = t + 1;
    return t;
  }

  finish(): FieldIndex {
    const V = this.terms.length;
    const N = this.lengths.length;
    // Postings and norms in shared memory: search worker threads read them as they are (parallelSearch.ts).
    const offsets = sharedArray(Uint32Array, V + 1);
    for (let t = 0; t < V; t++) offsets[t + 1] = offsets[t] + this.df.data[t];
    const fill = offsets.slice(0, V);
    const docs = sharedArray(Uint32Array, this.postings);
    // maxTf is the largest frequency any entry could not hold as a packed one (0: every tf fits 8 bits).
    const tfs = this.maxTf > TF_MAX ? sharedArray(Uint32Array, this.postings) : this.maxTf > PACKED_TF_MAX ? sharedArray(Uint16Array, this.postings) : sharedArray(Uint8Array, this.postings);
    const { blocks, bigTfs } = this;
    const docBlock = this.docBlock.data;
    const docOffset = this.docOffset.data;
    const docTerms = this.docTerms.data;
    // Each block is copied into plain arrays (fast to read) and its own memory returned before it is placed, so
    // the forward blocks shrink while the postings fill.
    let entries = new Uint32Array(0);
    let blockTfs: Uint16Array | null = null;
    for (let d = 0; d < N; d++) {
      const b = docBlock[d];
      if (d === 0 || docBlock[d - 1] !== b) {
        const block = blocks[b]!;
        if (entries.length < block.entries.length) entries = new Uint32Array(block.entries.length);
        entries.set(block.entries);
        blockTfs = block.tfs && Uint16Array.from(block.tfs);
        releaseBlock(blocks, b);
      }
      const end = docOffset[d] + docTerms[d];
      if (blockTfs === null) {
        for (let i = docOffset[d]; i < end; i++) {
          const e = entries[i];
          const tf = e & PACKED_TF_MAX;
          const pos = fill[e >>> 8]++;
          docs[pos] = d;
          tfs[pos] = tf === PACKED_TF_MAX ? (bigTfs.get(b * 2 ** 32 + i) ?? PACKED_TF_MAX) : tf;
        }
      } else {
        for (let i = docOffset[d]; i < end; i++) {
          const pos = fill[entries[i]]++;
          docs[pos] = d;
          tfs[pos] = blockTfs[i] === TF_MAX ? (bigTfs.get(b * 2 ** 32 + i) ?? TF_MAX) : blockTfs[i];
        }
      }
    }
    blocks.length = 0;
    const norms = sharedArray(Uint8Array, N);
    for (let d = 0; d < N; d++) norms[d] = intToByte4(this.lengths.data[d]);
    return {
      name: this.name,
      terms: this.terms,
      termIds: this.termIds,
      offsets,
      docs,
      tfs,
      norms,
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
    };
  }
}

/** Feeds documents in corpus order; `finish()` returns the index. */
export class IndexBuilder {
  private readonly docIds: string[] = [];
  private readonly builders: FieldBuilder[];

  constructor(
    private readonly analyzer: Analyzer,
    private readonly mode: FieldsMode,
    layout: BlockLayout = { blockEntries: BLOCK, packedTerms: PACKED_TERMS },
  ) {
    this.builders = fieldNames(mode).map((n) => new FieldBuilder(n, layout));
  }

  get size(): number {
    return this.docIds.length;
  }

  add(id: string, title: string, text: string): void {
    const docNo = this.docIds.length;
    this.docIds.push(id);
    if (this.mode === 'flat') this.builders[0].addDocument(docNo, flatText(title, text), this.analyzer);
    else {
      this.builders[0].addDocument(docNo, title, this.analyzer);
      this.builders[1].addDocument(docNo, text, this.analyzer);
    }
  }

  /** Adds the document that `line` has just scanned (corpusLine.ts): the same as add() with its fields. */
  addScanned(id: string, line: CorpusLineScanner): void {
    const docNo = this.docIds.length;
    this.docIds.push(id);
    if (this.mode === 'flat') this.builders[0].addUnits(docNo, line.units, line.flatStart, line.textEnd, this.analyzer);
    else {
      this.builders[0].addUnits(docNo, line.units, 0, line.titleEnd, this.analyzer);
      this.builders[1].addUnits(docNo, line.units, line.textStart, line.textEnd, this.analyzer);
    }
  }

  /**
   * Adds a document analysed elsewhere (parallelBuild.ts): field f's term ids (this builder's analyser's) are
   * `counts[f]` consecutive values of `ids` from `from`, fields in fieldNames() order.
   */
  addAnalysed(id: string, ids: Int32Array, from: number, counts: ArrayLike<number>, countsAt: number): void {
    const docNo = this.docIds.length;
    this.docIds.push(id);
    for (let f = 0; f < this.builders.length; f++) {
      const n = counts[countsAt + f];
      this.builders[f].addTerms(docNo, ids, from, n, this.analyzer);
      from += n;
    }
  }

  finish(): Bm25Index {
    return {
      analyzerId: this.analyzer.id,
      fields: this.mode,
      docIds: this.docIds,
      idRank: rankIds(this.docIds),
      fieldIndexes: this.builders.map((b) => b.finish()),
    };
  }
}

/** A typed array of `n` elements in a SharedArrayBuffer (worker threads read it without a copy). */
export function sharedArray<T>(Ctor: { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, n: number): T {
  return new Ctor(new SharedArrayBuffer(n * Ctor.BYTES_PER_ELEMENT));
}

/** Anserini's BEIR flat indexes store title + " " + text as one "contents" field. */
export function flatText(title: string, text: string): string {
  return title ? `${title} ${text}` : text;
}

/** Ranks of the ids in ascending string (UTF-16 code unit) order, as Anserini sorts ties by document id. */
export function rankIds(ids: string[]): Uint32Array {
  const order = Array.from({ length: ids.length }, (_, i) => i);
  order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  const rank = sharedArray(Uint32Array, ids.length);
  for (let r = 0; r < order.length; r++) rank[order[r]] = r;
  return rank;
}
