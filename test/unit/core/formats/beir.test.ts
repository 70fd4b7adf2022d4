import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { beirFile, forEachCorpusDoc, forEachCorpusDocSync, readQueries, setReadReport, type ReadReport } from '../../../../src/core/formats/beir';
import { readQueryFile } from '../../../../src/core/formats/datasetFolder';
import { InputError } from '../../../../src/core/formats/errors';

const dir = mkdtempSync(join(tmpdir(), 'irw-beir-faults-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function collecting(): ReadReport & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    skipped: (e) => events.push(`skipped ${e.line}: ${e.message}`),
    notice: (_f, m) => events.push(`notice: ${m}`),
    finished: (_f, n) => events.push(`finished: ${n}`),
  };
}

describe('BEIR readers: one rule for bad lines', () => {
  const corpus = join(dir, 'corpus.jsonl');
  writeFileSync(corpus, '\ufeff{"_id": "d1", "text": "a"}\n{"_id": "d2", "text": "b"}\n\n{"_id": "d3", "title": "t", "text": "c" "x": 1}\n{"_id": "d1", "text": "again"}\n{"_id": "d4", "text": "d"}\n');

  it('with the program report set: a BOM is ignored and said so, every bad line skipped and reported, then the count', () => {
    const report = collecting();
    const before = setReadReport(report);
    const ids: string[] = [];
    try {
      forEachCorpusDocSync(corpus, (d) => ids.push(d.id));
    } finally {
      setReadReport(before);
    }
    assert.deepEqual(ids, ['d1', 'd2', 'd4']);
    assert.deepEqual(report.events, [
      'notice: starts with a UTF-8 byte-order mark, which was ignored',
      "skipped 4: not valid JSON at column 41: Expected ',' or '}' after property value",
      'skipped 5: duplicate id "d1" (first on line 1)',
      'finished: 2',
    ]);
  });

  it('a BOM never becomes part of the first id, with or without a report', () => {
    const queries = join(dir, 'queries.jsonl');
    writeFileSync(queries, '\ufeff{"_id": "q1", "text": "x"}\n');
    assert.deepEqual([...readQueries(queries).keys()], ['q1']);
    const offsets: number[] = [];
    forEachCorpusDocSync(join(dir, 'corpus.jsonl'), (d) => offsets.push(d.offset), { onBadLine: () => undefined });
    assert.equal(offsets[0], 3);
  });

  it("a JSON error names the column in the file's line, not the parser's own line 1", () => {
    const f = join(dir, 'col.jsonl');
    const good = Array.from({ length: 9 }, (_, i) => `{"_id": "q${i}", "text": "x"}\n`).join('');
    writeFileSync(f, `${good}{"_id": "q9", "text": "a" "b"}\n`);
    assert.throws(
      () => readQueries(f),
      (e: unknown) => e instanceof InputError && e.line === 10 && /^not valid JSON at column 27: /.test(e.message) && !/line 1 column/.test(e.message),
    );
  });
});

describe('BEIR readers: gzip (corpus.jsonl.gz, queries.jsonl.gz)', () => {
  it('beirFile finds the .gz when only it exists; both readers read it as the plain file', async () => {
    const ds = mkdtempSync(join(dir, 'gz-'));
    const lines = Array.from({ length: 5000 }, (_, i) => `{"_id": "d${i}", "text": "w${i} ${'x'.repeat(i % 300)}"}`).join('\r\n');
    writeFileSync(join(ds, 'corpus.jsonl.gz'), gzipSync(lines)); // no final newline, CRLF
    writeFileSync(join(ds, 'queries.jsonl.gz'), gzipSync('{"_id": "q1", "text": "x"}\n'));
    assert.equal(beirFile(ds, 'corpus.jsonl'), join(ds, 'corpus.jsonl.gz'));
    const docs: string[] = [];
    await forEachCorpusDoc(beirFile(ds, 'corpus.jsonl'), (d) => docs.push(`${d.line}:${d.id}:${d.text.length}`));
    assert.equal(docs.length, 5000);
    assert.equal(docs[4999], `5000:d4999:${'w4999 '.length + (4999 % 300)}`);
    const sync: string[] = [];
    forEachCorpusDocSync(beirFile(ds, 'corpus.jsonl'), (d) => sync.push(`${d.line}:${d.id}:${d.text.length}`));
    assert.deepEqual(sync, docs);
    assert.deepEqual([...readQueries(beirFile(ds, 'queries.jsonl')).keys()], ['q1']);
  });

  it('a truncated .gz is bad input naming the file, not an internal error', async () => {
    const f = join(dir, 'cut.jsonl.gz');
    const whole = gzipSync(Array.from({ length: 2000 }, (_, i) => `{"_id": "d${i}", "text": "t${i}"}`).join('\n'));
    writeFileSync(f, whole.subarray(0, whole.length / 2));
    await assert.rejects(forEachCorpusDoc(f, () => undefined), (e: unknown) => e instanceof InputError && e.file === f && /gzip/.test(e.message));
    assert.throws(() => forEachCorpusDocSync(f, () => undefined), (e: unknown) => e instanceof InputError && e.file === f);
  });
});

describe('readQueryFile: BEIR JSONL, TSV or TREC topics, told apart by content', () => {
  const read = (name: string, text: string | Buffer) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return [...readQueryFile(f).values()].map((q) => [q.id, q.text, q.line]);
  };
  it('BEIR JSONL', () => assert.deepEqual(read('q.jsonl', '{"_id": "q1", "text": "a b"}\n{"_id": "q2", "text": "c"}\n'), [['q1', 'a b', 1], ['q2', 'c', 2]]));
  it('TSV (MS MARCO), CRLF, gzip', () => assert.deepEqual(read('q.tsv.gz', gzipSync('1048585\twhat is paula deen\'s brother\r\n2\tandrogen receptor define\r\n')), [['1048585', "what is paula deen's brother", 1], ['2', 'androgen receptor define', 2]]));
  it('TREC topics: <num> Number:, <title> (Topic: prefix dropped), description ignored', () =>
    assert.deepEqual(read('topics.301-302.txt', '<top>\n<num> Number: 301\n<title> Topic: International Organized\n Crime\n<desc> Description:\nx\n</top>\n\n<top>\n<num> Number: 302 <title> Poliomyelitis </title>\n</top>\n'), [
      ['301', 'International Organized Crime', 1],
      ['302', 'Poliomyelitis', 9],
    ]));
  it('a TSV line without a TAB is bad input naming file and line', () =>
    assert.throws(() => read('bad.tsv', '1\tok\n2 no tab\n'), (e: unknown) => e instanceof InputError && e.line === 2 && /no TAB/.test(e.message)));
});
