/**
 * Small dataset folders in the layouts other than plain BEIR that `irw` reads (src/core/formats/datasetFolder.ts),
 * for the store's unit tests and the extension-host test:
 * - MS MARCO passage style: collection.tsv (id TAB text), queries.<split>.tsv, TREC qrels.<split>.tsv;
 * - TREC style: docs.tsv.gz (id TAB url TAB title TAB body, gzipped, large enough for several gunzip chunks),
 *   SGML topics.<split>.txt with qrels.<split>.txt, XML topics with qrels/<split>.txt;
 * - BEIR with gzipped JSONL: corpus.jsonl.gz, queries.jsonl.gz, qrels/<split>.tsv.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { forEachCorpusDocSync, readQueries } from '../../src/core/formats/beir';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const MSMARCO_DOCS: [string, string][] = [
  ['0', 'The presence of communication amid scientific minds was important to the Manhattan Project.'],
  ['1', 'The Manhattan Project and its atomic bomb helped bring an end to World War II.'],
  ['2', 'Essay on the Manhattan Project: the mission was to design an atomic bomb.'],
  ['3', 'Nuclear power plants turn the heat of fission into electricity.'],
  ['4', 'Honey bees communicate the direction of flowers with a dance.'],
  ['5', 'Ελληνικά και العربية: text that is not ASCII, read back byte for byte.'],
];

/** dev has three judged queries; dev.small (MS MARCO's habit) two of them; train has queries but no qrels. */
export function writeMsmarcoStyle(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'collection.tsv'), MSMARCO_DOCS.map(([id, text]) => `${id}\t${text}\n`).join(''));
  writeFileSync(join(dir, 'queries.dev.tsv'), '100\tmanhattan project atomic bomb\n101\thow do bees communicate\n102\tnuclear power\n');
  writeFileSync(join(dir, 'queries.dev.small.tsv'), '100\tmanhattan project atomic bomb\n101\thow do bees communicate\n');
  writeFileSync(join(dir, 'queries.train.tsv'), '200\tunjudged training query\n');
  writeFileSync(join(dir, 'qrels.dev.tsv'), '100\t0\t1\t1\n100\t0\t2\t1\n101\t0\t4\t1\n102\t0\t3\t1\n');
  writeFileSync(join(dir, 'qrels.dev.small.tsv'), '100\t0\t1\t1\n101\t0\t4\t1\n');
}

export const TREC_DOC_COUNT = 3000;

/** Document i of the TREC-style collection: [id, url, title, body]. */
export function trecDoc(i: number): [string, string, string, string] {
  return [`D${i}`, `http://example.org/${i}`, `Title ${i}`, `body of document ${i} about ${i % 7 === 0 ? 'coral reefs' : 'river deltas'} ${'lorem ipsum '.repeat(i % 5)}`.trim()];
}

export function writeTrecStyle(dir: string): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const lines = Array.from({ length: TREC_DOC_COUNT }, (_, i) => `${trecDoc(i).join('\t')}\n`);
  writeFileSync(join(dir, 'docs.tsv.gz'), gzipSync(lines.join('')));
  writeFileSync(join(dir, 'topics.dl19.txt'), '<top>\n<num> Number: 301\n<title> coral reefs\n<desc> Description:\nReefs.\n</top>\n\n<top>\n<num> Number: 302\n<title> river deltas\n</top>\n');
  writeFileSync(join(dir, 'qrels.dl19.txt'), '301 0 D0 2\n301 0 D7 1\n301 0 D1 0\n302 0 D1 1\n302 0 D2999 3\n');
  writeFileSync(join(dir, 'topics.dl20.xml'), '<topics>\n <topic number="401">\n  <query>reefs &amp; deltas</query>\n </topic>\n</topics>\n');
  writeFileSync(join(dir, 'qrels', 'dl20.txt'), '401 0 D14 1\n');
}

export const GZ_BEIR_DOCS = [
  { _id: 'g1', title: 'First', text: 'gzipped corpus line one' },
  { _id: 'g2', title: '', text: 'line two, "quoted" and\ttabbed' },
  { _id: 'g3', title: 'Third', text: 'the last line' },
];

export function writeGzBeir(dir: string): void {
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  writeFileSync(join(dir, 'corpus.jsonl.gz'), gzipSync(GZ_BEIR_DOCS.map((d) => `${JSON.stringify(d)}\n`).join('')));
  writeFileSync(join(dir, 'queries.jsonl.gz'), gzipSync('{"_id": "q1", "text": "line one"}\n{"_id": "q2", "text": "last"}\n'));
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\tg1\t1\nq2\tg3\t2\n');
}

/**
 * An MS MARCO/TREC-style copy of a BEIR dataset: collection.tsv (id, title, text), queries.test.tsv, the same
 * queries as a TREC topic file, and TREC qrels. `irw run` on it must give the BEIR folder's figures exactly.
 */
export function writeTrecStyleCopy(beir: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const flat = (s: string) => s.replace(/[\t\r\n]+/g, ' ');
  const docs: string[] = [];
  forEachCorpusDocSync(join(beir, 'corpus.jsonl'), (d) => docs.push(`${d.id}\t${flat(d.title)}\t${flat(d.text)}\n`));
  writeFileSync(join(dir, 'collection.tsv'), docs.join(''));
  const qrels = readFileSync(join(beir, 'qrels', 'test.tsv'), 'utf8').split(/\r?\n/).slice(1).filter(Boolean).map((l) => l.split('\t'));
  writeFileSync(join(dir, 'qrels.test.tsv'), qrels.map(([q, d, g]) => `${q}\t0\t${d}\t${g}\n`).join(''));
  writeFileSync(join(dir, 'qrels.test-topics.txt'), qrels.map(([q, d, g]) => `${q} 0 ${d} ${g}\n`).join(''));
  const queries = readQueries(join(beir, 'queries.jsonl'));
  const judged = [...new Set(qrels.map(([q]) => q))];
  writeFileSync(join(dir, 'queries.test.tsv'), judged.map((q) => `${q}\t${flat(queries.get(q)!.text)}\n`).join(''));
  writeFileSync(join(dir, 'topics.test-topics.txt'), judged.map((q) => `<top>\n<num> Number: ${q}\n<title> ${flat(queries.get(q)!.text)}\n<desc> Description:\n</top>\n\n`).join(''));
}
