import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseCorpusLine } from '../../../../../src/core/formats/beir';
import { CorpusLineScanner } from '../../../../../src/core/retrieval/bm25/corpusLine';
import { flatText } from '../../../../../src/core/retrieval/bm25/index';
import { DATASETS, needsShared } from '../../../support/paths';


/** What the general reader makes of a line: the document, null (blank line) or 'error'. */
function general(buf: Buffer): { id: string; title: string; text: string } | null | 'error' {
  try {
    const r = parseCorpusLine('corpus.jsonl', buf, 0, buf.length, 1);
    return r && { id: r.id, title: r.title, text: r.text };
  } catch {
    return 'error';
  }
}

const str = (u: Uint16Array, from: number, to: number) => String.fromCharCode(...u.subarray(from, to));

/** Scans a line; when the scanner takes it, checks that it read what the general reader reads. Returns whether it took it. */
function agrees(line: Buffer | string, scanner = new CorpusLineScanner()): boolean {
  const buf = typeof line === 'string' ? Buffer.from(line) : line;
  // Inside a larger buffer, as the line reader hands lines over.
  const padded = Buffer.concat([Buffer.from('{"x": 1}\n'), buf, Buffer.from('\n"tail"')]);
  const took = scanner.scan(padded, 9, 9 + buf.length);
  if (!took) return false;
  const doc = general(buf);
  assert.ok(doc !== null && doc !== 'error', `the scanner took a line the general reader refuses: ${buf.toString()}`);
  assert.equal(scanner.id, doc.id);
  assert.equal(str(scanner.units, 0, scanner.titleEnd), doc.title);
  assert.equal(str(scanner.units, scanner.textStart, scanner.textEnd), doc.text);
  assert.equal(str(scanner.units, scanner.flatStart, scanner.textEnd), flatText(doc.title, doc.text));
  return true;
}

describe('corpus line scanner (the index build reads ordinary lines from their bytes)', () => {
  it('takes every line of SciFact and NFCorpus and reads each as JSON.parse does', { skip: needsShared('datasets/scifact', 'datasets/nfcorpus') }, () => {
    for (const name of ['scifact', 'nfcorpus']) {
      const bytes = readFileSync(join(DATASETS, name, 'corpus.jsonl'));
      const scanner = new CorpusLineScanner();
      let lines = 0;
      for (let start = 0; start < bytes.length; ) {
        let nl = bytes.indexOf(10, start);
        if (nl === -1) nl = bytes.length;
        assert.ok(agrees(bytes.subarray(start, nl), scanner), `${name} line ${lines + 1} is taken`);
        lines++;
        start = nl + 1;
      }
      assert.ok(lines > 3000, `${name}: ${lines} lines`);
    }
  });

  const taken: string[] = [
    '{"_id": "d1", "title": "T", "text": "x"}',
    '{"text":"x","_id":"d1"}',
    '{"title": null, "_id": "d1", "text": ""}',
    '{"text": "body", "title": "head", "_id": "d2"}',
    ' {"_id" : "d1" ,\t"text" : "a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u2019\\ud83d\\ude00 \\uD800 x"}\r ',
    '{"_id": "d1", "text": "naïve 日本語 😀", "title": "Ærø"}',
    '{"_id": "d1", "text": "x", "metadata": {"a": [1, -0.5, 2e10, 3E-2, true, false, null, "s\\u0041", {}, []], "b": {"c": {"d": "é"}}}}',
    '{"_id": "\\u0064\\u0031", "text": "x"}',
    '{"_id": "d1", "text": "x", "title": ""}',
    '{"_id": "d1", "title": "", "text": "x y"}',
    '{"text": "", "title": "", "_id": "d1"}',
  ];
  for (const line of taken) it(`takes ${line}`, () => assert.ok(agrees(line)));

  const left: string[] = [
    '',
    '   ',
    '{}',
    '[]',
    '{"_id": "d1"}',
    '{"_id": "", "text": "x"}',
    '{"_id": "d 1", "text": "x"}',
    '{"_id": "d\\u00a01", "text": "x"}',
    '{"_id": 7, "text": "x"}',
    '{"_id": "d1", "text": 7}',
    '{"_id": "d1", "text": "x", "title": 7}',
    '{"_id": "d1", "text": "x", "_id": "d2"}',
    '{"_id": "d1", "text": "x", "text": "y"}',
    '{"\\u005fid": "d1", "text": "x"}',
    '{"_id": "d1", "text": "x",}',
    '{"_id": "d1", "text": "x"} x',
    '{"_id": "d1", "text": "x"',
    '{"_id": "d1", "text": "a\tb"}',
    '{"_id": "d1", "text": "\\x"}',
    '{"_id": "d1", "text": "\\u12"}',
    '{"_id": "d1", "text": "x", "m": 01}',
    '{"_id": "d1", "text": "x", "m": 1.}',
    '{"_id": "d1", "text": "x", "m": .5}',
    '{"_id": "d1", "text": "x", "m": tru}',
    '{"_id": "d1", "text": "x", "m": [1,]}',
    '{"_id": "d1", "text": "x", "m": {"a" 1}}',
    `{"_id": "d1", "text": "x", "m": ${'['.repeat(100)}${']'.repeat(100)}}`,
  ];
  for (const line of left) {
    it(`leaves ${JSON.stringify(line).slice(0, 70)} to the general reader`, () => assert.equal(agrees(line), false));
  }

  it('leaves invalid UTF-8 in a field to the general reader (it reads U+FFFD), and skips it in other members', () => {
    for (const bad of [[0xff], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc3], [0xe2, 0x82]]) {
      const line = (before: string, after: string) => Buffer.concat([Buffer.from(before), Buffer.from(bad), Buffer.from(after)]);
      assert.equal(agrees(line('{"_id": "d1", "text": "a', 'b"}')), false, `text with ${bad}`);
      assert.equal(agrees(line('{"_id": "d1", "title": "a', 'b", "text": "x"}')), false, `title with ${bad}`);
      assert.equal(agrees(line('{"_id": "d', '1", "text": "x"}')), false, `id with ${bad}`);
      assert.equal(agrees(line('{"_id": "d1", "url": "a', 'b", "text": "x"}')), true, `another member with ${bad}`);
    }
  });

  it('any JSON object of these members: taken lines read as the general reader reads them (property)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'B', ' ', '"', '\\', '\n', 'é', '日', '😀', '\u2019', '\ud800', '\u0000', '/', "'", '.', '1'), maxLength: 20 });
    const id = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('d1', 'MED-10', '4983') }, text, fc.integer());
    const title = fc.oneof({ weight: 4, arbitrary: text }, fc.constant(null), fc.integer());
    const body = fc.oneof({ weight: 4, arbitrary: text }, fc.boolean());
    const other = fc.tuple(fc.constantFrom('metadata', 'url', ''), fc.jsonValue({ maxDepth: 3 }));
    // Mostly documents; now and then a member missing, of the wrong type or repeated.
    const members = fc
      .record({ i: id, t: body, h: fc.option(title), extra: fc.array(other, { maxLength: 2 }), drop: fc.nat(9), repeat: fc.nat(9) })
      .chain(({ i, t, h, extra, drop, repeat }) => {
        const all: [string, unknown][] = [['_id', i], ['text', t], ...(h === null ? [] : [['title', h] as [string, unknown]]), ...extra];
        if (drop < 2) all.splice(drop, 1);
        if (repeat < all.length && repeat < 3) all.push([all[repeat][0], 'again']);
        return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
      });
    const line = fc.tuple(members, fc.constantFrom('', ' ', '\t'), fc.boolean()).map(([members, space, ascii]) => {
      // Members written by hand (JSON.stringify of an object would drop repeated keys); escaped or raw UTF-8.
      const enc = (v: unknown) => {
        const s = JSON.stringify(v);
        return ascii ? s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
      };
      return `{${space}${members.map(([k, v]) => `${enc(k)}${space}:${space}${enc(v)}`).join(`,${space}`)}${space}}`;
    });
    let took = 0;
    fc.assert(
      fc.property(line, (l) => {
        if (agrees(l)) took++;
      }),
      { numRuns: 2000 },
    );
    assert.ok(took > 100, `${took} of 2000 random lines taken`);
  });
});
