import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachCorpusDoc, forEachCorpusDocSync, readQueries, type CorpusDoc } from '../../../../src/core/formats/beir';
import { InputError } from '../../../../src/core/formats/errors';
import { DATASETS, needsShared } from '../../support/paths';


function readAll(path: string): CorpusDoc[] {
  const docs: CorpusDoc[] = [];
  forEachCorpusDocSync(path, (d) => docs.push(d));
  return docs;
}

function bytesAt(path: string, offset: number, length: number): string {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    return b.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

describe('BEIR corpus and queries on the real datasets', () => {
  for (const [name, docs, queries, first, tenth, last] of [
    ['scifact', 5183, 1109, '4983', '70490', '198309074'],
    ['nfcorpus', 3633, 3237, 'MED-10', 'MED-335', 'MED-961'],
  ] as const) {
    it(`${name}: every document, in BEIR order, with byte offsets that point at its line`, { skip: needsShared(`datasets/${name}`) }, () => {
      const path = join(DATASETS, name, 'corpus.jsonl');
      const all = readAll(path);
      assert.equal(all.length, docs);
      assert.equal(all[0].id, first);
      assert.equal(all[9].id, tenth);
      assert.equal(all[all.length - 1].id, last);
      assert.equal(all[0].offset, 0);
      for (const d of [all[1], all[1000], all[all.length - 1]]) {
        const line = JSON.parse(bytesAt(path, d.offset, d.length));
        assert.equal(line._id, d.id);
        assert.equal(line.text, d.text);
      }
      // Offsets are contiguous: each line starts one byte (LF) after the previous one ends.
      for (let i = 1; i < all.length; i++) assert.equal(all[i].offset, all[i - 1].offset + all[i - 1].length + 1);
    });

    it(`${name}: queries of all splits, string ids`, { skip: needsShared(`datasets/${name}`) }, () => {
      const q = readQueries(join(DATASETS, name, 'queries.jsonl'));
      assert.equal(q.size, queries);
      for (const { id, text } of q.values()) {
        assert.equal(typeof id, 'string');
        assert.equal(typeof text, 'string');
      }
    });
  }

  it('decodes ASCII escapes (\\u2019) to the characters they stand for', { skip: needsShared('datasets/scifact') }, () => {
    const all = readAll(join(DATASETS, 'scifact', 'corpus.jsonl'));
    assert.ok(all.some((d) => d.text.includes('\u2019')));
    assert.ok(all.every((d) => !d.text.includes('\\u')));
  });
});

describe('BEIR reader: bad input', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-beir-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function file(name: string, content: string): string {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  }

  function inputError(fn: () => unknown, expect: { code: string; line: number; file: string; message: RegExp }) {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
      assert.equal(e.code, expect.code);
      assert.equal(e.line, expect.line);
      assert.equal(e.file, expect.file);
      assert.match(e.message, expect.message);
      assert.ok(e.hint && e.hint.length > 10, 'says what to do');
      assert.ok(e.text !== undefined, 'quotes the line');
      return true;
    });
  }

  it('with onBadLine, bad lines are reported and skipped; the first of two equal ids wins', async () => {
    const p = file('mixed.jsonl', '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n{"_id": "a", "text": "again"}\n{"_id": "c", "text": "z"}\n');
    const bad: InputError[] = [];
    const docs: CorpusDoc[] = [];
    await forEachCorpusDoc(p, (d) => docs.push(d), undefined, { onBadLine: (e) => bad.push(e) });
    assert.deepEqual(docs.map((d) => [d.id, d.text]), [['a', 'x'], ['c', 'z']]);
    assert.deepEqual(bad.map((e) => [e.line, e.code]), [[2, 'malformed'], [3, 'duplicate']]);
    const queries = readQueries(p, { onBadLine: (e) => bad.push(e) });
    assert.deepEqual([...queries.keys()], ['a', 'c']);
  });

  it('malformed JSON names file and line', () => {
    const p = file('bad.jsonl', '{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n');
    inputError(() => readAll(p), { code: 'malformed', line: 2, file: p, message: /not valid JSON/ });
  });

  it('missing _id and missing text', () => {
    const p1 = file('noid.jsonl', '{"title": "t", "text": "x"}\n');
    inputError(() => readAll(p1), { code: 'missing-field', line: 1, file: p1, message: /_id/ });
    const p2 = file('notext.jsonl', '{"_id": "a", "text": "x"}\r\n{"_id": "b", "title": "t"}\r\n');
    inputError(() => readAll(p2), { code: 'missing-field', line: 2, file: p2, message: /"text"/ });
    const p3 = file('qnotext.jsonl', '{"_id": "q1"}\n');
    inputError(() => readQueries(p3), { code: 'missing-field', line: 1, file: p3, message: /"text"/ });
  });

  it('duplicate ids name both lines', () => {
    const p = file('dup.jsonl', '{"_id": "7", "text": "a"}\n{"_id": "8", "text": "b"}\n{"_id": "7", "text": "c"}\n');
    inputError(() => readAll(p), { code: 'duplicate', line: 3, file: p, message: /first on line 1/ });
    inputError(() => readQueries(p), { code: 'duplicate', line: 3, file: p, message: /first on line 1/ });
  });

  it('numeric ids and ids with whitespace are refused', () => {
    const p = file('num.jsonl', '{"_id": 12, "text": "a"}\n');
    inputError(() => readAll(p), { code: 'malformed', line: 1, file: p, message: /string/ });
    const q = file('space.jsonl', '{"_id": "a b", "text": "a"}\n');
    inputError(() => readAll(q), { code: 'malformed', line: 1, file: q, message: /whitespace/ });
  });

  it('JSON that is not an object', () => {
    const p = file('arr.jsonl', '[1, 2]\n');
    inputError(() => readAll(p), { code: 'malformed', line: 1, file: p, message: /not an object/ });
  });

  it('CRLF, blank lines, missing title, raw UTF-8 and a last line without newline are fine', async () => {
    const p = file('ok.jsonl', '{"_id": "a", "text": "café", "metadata": {"x": 1}}\r\n\r\n{"_id": "b", "title": null, "text": ""}');
    const docs = readAll(p);
    assert.deepEqual(
      docs.map((d) => [d.id, d.title, d.text, d.line, d.offset]),
      [
        ['a', '', 'café', 1, 0],
        ['b', '', '', 3, Buffer.byteLength('{"_id": "a", "text": "café", "metadata": {"x": 1}}\r\n\r\n')],
      ],
    );
    // Length excludes the CR, counts bytes (é is two).
    assert.equal(docs[0].length, Buffer.byteLength('{"_id": "a", "text": "café", "metadata": {"x": 1}}'));
    const viaAsync: string[] = [];
    await forEachCorpusDoc(p, (d) => viaAsync.push(d.id));
    assert.deepEqual(viaAsync, ['a', 'b']);
  });

  it('a missing file is an unreadable-file error', () => {
    assert.throws(() => readAll(join(dir, 'absent.jsonl')), (e: unknown) => e instanceof InputError && e.code === 'unreadable');
  });
});
