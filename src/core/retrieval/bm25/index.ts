import type { Analyzer } from '../analysis/analyzer';
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
  tfs: Uint16Array | Uint32Array;
  /** Per document: its length in this field (tokens after stopword removal), encoded as Lucene's norms. */
  norms: Uint8Array;
  /** Documents with at least one term in this field, and the total number of tokens (Lucene's statistics). */
  docCount: number;
  sumTotalTermFreq: number;
}

export interface Bm25Index {
  analyzerId: string;
  fields: FieldsMode;
  /** document number -> id, in corpus order. */
  docIds: string[];
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

/** Builds one field: a forward list of (term, tf) per document, turned into CSR postings by a counting sort. */
class FieldBuilder {
  private readonly terms: string[] = [];
  private readonly termIds = new Map<string, number>();
  private readonly df = new U32List();
  private readonly lastDoc = new U32List(); // per term: last document number + 1 that contained it
  private readonly slot = new U32List(); // per term: index in fwdTf of its entry for the current document
  private readonly fwdTerm = new U32List(1 << 16);
  private readonly fwdTf = new U32List(1 << 16);
  private readonly docStart = new U32List();
  /** analyser term id -> this field's term id + 1 (0: not seen in this field). */
  private readonly localIds = new U32List();
  private readonly lengths = new U32List();
  private docCount = 0;
  private sumTotalTermFreq = 0;
  private maxTf = 0;

  constructor(readonly name: string) {}

  addDocument(docNo: number, text: string, analyzer: Analyzer): void {
    const n = analyzer.termIds(text);
    const ids = analyzer.ids;
    const start = this.fwdTerm.length;
    this.docStart.push(start);
    // Room for every token of this document, so the loop below can write without checks.
    if (start + n > this.fwdTerm.data.length) {
      this.fwdTerm.grow(start + n);
      this.fwdTf.grow(start + n);
    }
    const fwdTerm = this.fwdTerm.data;
    const fwdTf = this.fwdTf.data;
    let end = start;
    const mark = docNo + 1;
    for (let k = 0; k < n; k++) {
      const globalId = ids[k];
      let t = globalId < this.localIds.length ? this.localIds.data[globalId] - 1 : -1;
      if (t < 0) t = this.newTerm(globalId, analyzer);
      const lastDoc = this.lastDoc.data;
      if (lastDoc[t] !== mark) {
        lastDoc[t] = mark;
        this.slot.data[t] = end;
        this.df.data[t]++;
        fwdTerm[end] = t;
        fwdTf[end] = 1;
        end++;
      } else {
        const tf = ++fwdTf[this.slot.data[t]];
        if (tf > this.maxTf) this.maxTf = tf;
      }
    }
    this.fwdTerm.length = end;
    this.fwdTf.length = end;
    if (n > 0) this.docCount++;
    this.sumTotalTermFreq += n;
    this.lengths.push(n);
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
    const P = this.fwdTerm.length;
    const offsets = new Uint32Array(V + 1);
    for (let t = 0; t < V; t++) offsets[t + 1] = offsets[t] + this.df.data[t];
    const fill = offsets.slice(0, V);
    const docs = new Uint32Array(P);
    const tfs = this.maxTf > 0xffff ? new Uint32Array(P) : new Uint16Array(P);
    const fwdTerm = this.fwdTerm.data;
    const fwdTf = this.fwdTf.data;
    const docStart = this.docStart.data;
    for (let d = 0; d < N; d++) {
      const end = d + 1 < N ? docStart[d + 1] : P;
      for (let i = docStart[d]; i < end; i++) {
        const pos = fill[fwdTerm[i]]++;
        docs[pos] = d;
        tfs[pos] = fwdTf[i];
      }
    }
    const norms = new Uint8Array(N);
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
  ) {
    this.builders = fieldNames(mode).map((n) => new FieldBuilder(n));
  }

  get size(): number {
    return this.docIds.length;
  }

  add(id: string, title: string, text: string): void {
    const docNo = this.docIds.length;
    this.docIds.push(id);
    if (this.mode === 'flat') {
      // Anserini's BEIR flat indexes store title + " " + text as one "contents" field.
      this.builders[0].addDocument(docNo, title ? `${title} ${text}` : text, this.analyzer);
    } else {
      this.builders[0].addDocument(docNo, title, this.analyzer);
      this.builders[1].addDocument(docNo, text, this.analyzer);
    }
  }

  finish(): Bm25Index {
    return {
      analyzerId: this.analyzer.id,
      fields: this.mode,
      docIds: this.docIds,
      fieldIndexes: this.builders.map((b) => b.finish()),
    };
  }
}
