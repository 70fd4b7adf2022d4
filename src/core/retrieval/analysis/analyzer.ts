import { Spans, Units, tokenizeUnits } from './tokenizer';

/**
 * The English analysis Anserini uses by default for BEIR (DefaultEnglishAnalyzer, Porter variant):
 * StandardTokenizer -> EnglishPossessiveFilter -> LowerCaseFilter -> StopFilter (Lucene's English set) ->
 * PorterStemFilter. Tokens are segmented by ./tokenizer.ts; each distinct surface form is analysed once.
 */

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (33 words). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not',
  'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was',
  'will', 'with',
]);

/** Identifies the analysis in index caches and run tags: change it whenever the output of analysis changes. */
export const ANALYZER_ID = 'en-porter-v2';

type Stem = (word: string) => string;

const NONE = -1; // analysed away (stopword)
const EMPTY = -2; // free hash-table slot

/**
 * Analyser with a vocabulary: every analysed term gets a dense id (first-seen order), and every surface form
 * (token as written) is looked up in an open-addressing table keyed by its UTF-16 code units, so indexing a
 * token allocates no string once its surface form has been seen.
 */
export class Analyzer {
  readonly id = ANALYZER_ID;
  /** term id -> analysed term. */
  readonly terms: string[] = [];
  private readonly idOf = new Map<string, number>();
  /** lower-cased form -> term (or null): case variants of a word are stemmed once. */
  private readonly stems = new Map<string, string | null>();
  private readonly spans = new Spans();
  /** termIds()'s text as code units. */
  private readonly units = new Units();
  /** Output of termIds(). */
  ids = new Int32Array(1024);
  // Surface-form table, one cache line per lookup: slot k is table[4k..4k+3] = hash, term id (NONE, or EMPTY for
  // a free slot), start and length of the surface form's UTF-16 code units in `pool`.
  private table = new Int32Array(0);
  private size = 0;
  private used = 0;
  private pool = new Uint16Array(1 << 16);
  private poolUsed = 0;

  constructor(private readonly stem: Stem) {
    this.resize(1 << 14);
  }

  /** The analysed term of one surface token, or null when it is removed (stopword). */
  term(surface: string): string | null {
    const lower = stripPossessive(surface).toLowerCase();
    let t = this.stems.get(lower);
    if (t === undefined) {
      // The stemmer lower-cases again and leaves words under 3 characters alone, as Lucene's PorterStemmer.
      t = ENGLISH_STOP_WORDS.has(lower) ? null : this.stem(lower);
      this.stems.set(lower, t);
    }
    return t;
  }

  /**
   * Analyses `text` into term ids, in order: fills `this.ids` (reused between calls: read it before the next
   * call) and returns how many there are.
   */
  termIds(text: string): number {
    const n = this.units.set(text);
    return this.termIdsOf(this.units.data, 0, n);
  }

  /** termIds() of the text whose UTF-16 code units are u[from, to). */
  termIdsOf(u: Uint16Array, from: number, to: number): number {
    const spans = this.spans;
    const n = tokenizeUnits(u, from, to, spans);
    const d = spans.data;
    if (this.ids.length < n) this.ids = new Int32Array(Math.max(n, 2 * this.ids.length));
    const ids = this.ids;
    let count = 0;
    for (let k = 0; k < n; k++) {
      const id = this.lookup(u, d[2 * k], d[2 * k + 1]);
      if (id !== NONE) ids[count++] = id;
    }
    return count;
  }

  /** The id of an analysed term (as in `terms`), given one if it is new: maps another analyser's terms into this one. */
  internTerm(term: string): number {
    let id = this.idOf.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.idOf.set(term, id);
    }
    return id;
  }

  /** The analysed terms of `text`, in order (duplicates kept). */
  analyze(text: string): string[] {
    const n = this.termIds(text);
    const out: string[] = new Array(n);
    for (let k = 0; k < n; k++) out[k] = this.terms[this.ids[k]];
    return out;
  }

  /** Term id of the surface form u[start, end), analysing it on first sight. */
  private lookup(u: Uint16Array, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ u[i], 0x01000193);
    const table = this.table;
    const pool = this.pool;
    const mask = this.size - 1;
    const len = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const at = 4 * slot;
      const v = table[at + 1];
      if (v === EMPTY) break;
      if (table[at] !== h || table[at + 3] !== len) continue;
      const from = table[at + 2];
      let i = 0;
      while (i < len && pool[from + i] === u[start + i]) i++;
      if (i === len) return v;
    }
    return this.add(u, start, end, h);
  }

  /** First sight of a surface form: analyse it and remember it (kept out of lookup's hot path). */
  private add(u: Uint16Array, start: number, end: number, h: number): number {
    const len = end - start;
    const term = this.term(String.fromCharCode.apply(null, u.subarray(start, end) as unknown as number[]));
    const id = term === null ? NONE : this.internTerm(term);
    if (this.poolUsed + len > this.pool.length) {
      const next = new Uint16Array(Math.max(this.poolUsed + len, 2 * this.pool.length));
      next.set(this.pool.subarray(0, this.poolUsed));
      this.pool = next;
    }
    this.pool.set(u.subarray(start, end), this.poolUsed);
    if (2 * (this.used + 1) > this.size) this.resize(2 * this.size);
    this.insert(h, id, this.poolUsed, len);
    this.poolUsed += len;
    return id;
  }

  private insert(h: number, id: number, from: number, len: number): void {
    const mask = this.size - 1;
    let slot = h & mask;
    while (this.table[4 * slot + 1] !== EMPTY) slot = (slot + 1) & mask;
    const at = 4 * slot;
    this.table[at] = h;
    this.table[at + 1] = id;
    this.table[at + 2] = from;
    this.table[at + 3] = len;
    this.used++;
  }

  private resize(size: number): void {
    const old = this.table;
    this.table = new Int32Array(4 * size);
    for (let slot = 0; slot < size; slot++) this.table[4 * slot + 1] = EMPTY;
    this.size = size;
    this.used = 0;
    for (let at = 0; at < old.length; at += 4) if (old[at + 1] !== EMPTY) this.insert(old[at], old[at + 1], old[at + 2], old[at + 3]);
  }
}

/** EnglishPossessiveFilter: drops a trailing 's / ’s / ＇s (either case of s). */
export function stripPossessive(token: string): string {
  const n = token.length;
  if (n >= 2) {
    const last = token.charCodeAt(n - 1);
    const quote = token.charCodeAt(n - 2);
    if ((last === 0x73 || last === 0x53) && (quote === 0x27 || quote === 0x2019 || quote === 0xff07)) {
      return token.slice(0, n - 2);
    }
  }
  return token;
}

/** Creates the analyser. Async because the `stemmer` package is an ES module. */
export async function createAnalyzer(): Promise<Analyzer> {
  const { stemmer } = await import('stemmer');
  return new Analyzer(stemmer);
}
