import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a synthetic BEIR dataset (corpus.jsonl, queries.jsonl, qrels/test.tsv) of any size, for scale
 * benchmarks and long-running runner tests. Words are pronounceable pseudo-English with real suffixes (so the
 * stemmer works as on text), drawn from a Zipf-like distribution (frequency ~ 1/rank) over `vocabulary` words.
 * Each query takes words from one document, which is its single relevant document. Deterministic per seed.
 */
export interface SyntheticSpec {
  docs: number;
  queries: number;
  /** Mean words per document text (uniform in [0.5, 1.5] x mean); titles have 4-12 words. */
  meanWords?: number;
  vocabulary?: number;
  seed?: number;
}

export function writeSyntheticBeir(dir: string, spec: SyntheticSpec): void {
  const meanWords = spec.meanWords ?? 100;
  const V = spec.vocabulary ?? 200_000;
  let state = (spec.seed ?? 1) >>> 0 || 1;
  const rand = () => {
    // xorshift32
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x100000000;
  };
  const vocab = makeVocabulary(V, rand);
  const logV = Math.log(V + 1);
  const word = () => vocab[Math.min(V - 1, Math.floor(Math.exp(rand() * logV)) - 1)];
  const words = (n: number) => {
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = word();
    return out;
  };

  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const queryDocs = new Map<number, string>();
  const step = Math.max(1, Math.floor(spec.docs / Math.max(1, spec.queries)));
  const fd = openSync(join(dir, 'corpus.jsonl'), 'w');
  let buf = '';
  for (let d = 0; d < spec.docs; d++) {
    const title = words(4 + Math.floor(rand() * 9)).join(' ');
    const text = words(Math.max(1, Math.round(meanWords * (0.5 + rand())))).join(' ');
    buf += `{"_id": "d${d}", "title": "${title}", "text": "${text}", "metadata": {}}\n`;
    if (d % step === 0 && queryDocs.size < spec.queries) {
      const t = text.split(' ');
      const q: string[] = [];
      for (let i = 0; i < 6 && t.length > 0; i++) q.push(t[Math.floor(rand() * t.length)]);
      queryDocs.set(d, q.join(' '));
    }
    if (buf.length > 1 << 20) {
      writeSync(fd, buf);
      buf = '';
    }
  }
  writeSync(fd, buf);
  closeSync(fd);
  let queries = '';
  let qrels = 'query-id\tcorpus-id\tscore\r\n';
  let q = 0;
  for (const [d, text] of queryDocs) {
    queries += `{"_id": "q${q}", "text": "${text}", "metadata": {}}\n`;
    qrels += `q${q}\td${d}\t1\r\n`;
    q++;
  }
  writeFileSync(join(dir, 'queries.jsonl'), queries);
  writeFileSync(join(dir, 'qrels', 'test.tsv'), qrels);
}

function makeVocabulary(V: number, rand: () => number): string[] {
  const onsets = ['b', 'c', 'd', 'f', 'g', 'h', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'pr', 'st', 'tr', 'ch', 'gl', 'sp'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ea', 'io', 'ou'];
  const codas = ['', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'x'];
  const suffixes = ['', '', '', 's', 'ing', 'ed', 'ation', 'ly', 'ness', 'ic', 'ous', 'ment', 'er'];
  const seen = new Set<string>();
  const out: string[] = [];
  const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)];
  while (out.length < V) {
    const syllables = 1 + Math.floor(rand() * 3) + (out.length > 1000 ? 1 : 0);
    let w = '';
    for (let s = 0; s < syllables; s++) w += pick(onsets) + pick(vowels) + pick(codas);
    w += pick(suffixes);
    if (!seen.has(w)) {
      seen.add(w);
      out.push(w);
    }
  }
  return out;
}
