import { Spans, tokenize } from './tokenizer';

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
export const ANALYZER_ID = 'en-porter-v1';

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
  private readonly termIds = new Map<string, number>();
  private readonly spans = new Spans();
  // Surface-form table: keys[slot] is the surface form, vals[slot] its term id (or NONE), hashes[slot] its hash.
  private keys: string[] = [];
  private vals = new Int32Array(0);
  private hashes = new Int32Array(0);
  private used = 0;

  constructor(private readonly stem: Stem) {
    this.resize(1 << 14);
  }

  /** The analysed term of one surface token, or null when it is removed (stopword). */
  term(surface: string): string | null {
    const lower = stripPossessive(surface).toLowerCase();
    if (ENGLISH_STOP_WORDS.has(lower)) return null;
    // The stemmer lower-cases again and leaves words under 3 characters alone, as Lucene's PorterStemmer.
    return this.stem(lower);
  }

  /** Calls `onTerm` with the term id of each analysed term of `text`, in order. */
  forEachTermId(text: string, onTerm: (termId: number) => void): void {
    const spans = this.spans;
    const n = tokenize(text, spans);
    const d = spans.data;
    for (let k = 0; k < n; k++) {
      const id = this.lookup(text, d[2 * k], d[2 * k + 1]);
      if (id !== NONE) onTerm(id);
    }
  }

  /** The analysed terms of `text`, in order (duplicates kept). */
  analyze(text: string): string[] {
    const out: string[] = [];
    this.forEachTermId(text, (id) => out.push(this.terms[id]));
    return out;
  }

  /** Term id of the surface form text[start, end), analysing it on first sight. */
  private lookup(text: string, start: number, end: number): number {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const keys = this.keys;
    const mask = keys.length - 1;
    const len = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const v = this.vals[slot];
      if (v === EMPTY) break;
      if (this.hashes[slot] !== h) continue;
      const key = keys[slot];
      if (key.length !== len) continue;
      let i = 0;
      while (i < len && key.charCodeAt(i) === text.charCodeAt(start + i)) i++;
      if (i === len) return v;
    }
    const surface = text.slice(start, end);
    const term = this.term(surface);
    let id = NONE;
    if (term !== null) {
      const known = this.termIds.get(term);
      if (known !== undefined) id = known;
      else {
        id = this.terms.length;
        this.terms.push(term);
        this.termIds.set(term, id);
      }
    }
    if (2 * (this.used + 1) > keys.length) this.resize(keys.length * 2);
    this.insert(surface, h, id);
    return id;
  }

  private insert(key: string, h: number, v: number): void {
    const mask = this.keys.length - 1;
    let slot = h & mask;
    while (this.vals[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.keys[slot] = key;
    this.vals[slot] = v;
    this.hashes[slot] = h;
    this.used++;
  }

  private resize(size: number): void {
    const { keys, vals, hashes } = this;
    this.keys = new Array<string>(size).fill('');
    this.vals = new Int32Array(size).fill(EMPTY);
    this.hashes = new Int32Array(size);
    this.used = 0;
    for (let slot = 0; slot < vals.length; slot++) if (vals[slot] !== EMPTY) this.insert(keys[slot], hashes[slot], vals[slot]);
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
