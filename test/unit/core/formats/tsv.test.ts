import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CorpusDoc } from '../../../../src/core/formats/beir';
import { isInputError, type InputError } from '../../../../src/core/formats/errors';
import { forEachTsvDocSync, readTsvQueries } from '../../../../src/core/formats/tsv';

describe('MS MARCO-style TSV collections and queries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-tsv-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const docs = (p: string) => {
    const out: CorpusDoc[] = [];
    forEachTsvDocSync(p, (d) => out.push(d));
    return out;
  };

  it('reads id/text, id/title/text and id/url/title/body lines with byte offsets (CRLF too)', () => {
    const p = file('collection.tsv', '0\tThe presence of communication.\r\n1\tTitle one\tBody one\n\nD2\thttp://x\tTitle two\tBody — two\n');
    assert.deepEqual(docs(p), [
      { id: '0', title: '', text: 'The presence of communication.', line: 1, offset: 0, length: 32 },
      { id: '1', title: 'Title one', text: 'Body one', line: 2, offset: 34, length: 20 },
      { id: 'D2', title: 'Title two', text: 'Body — two', line: 4, offset: 56, length: 34 },
    ]);
  });

  it('refuses a line without a TAB and a repeated id, naming the line; onBadLine skips them instead', () => {
    const p = file('bad.tsv', '1\tok\nno tab here\n1\tagain\n2\tfine\n');
    assert.throws(() => docs(p), (e) => isInputError(e) && e.line === 2 && /1 TAB-separated column/.test(e.message));
    const bad: InputError[] = [];
    const out: string[] = [];
    forEachTsvDocSync(p, (d) => out.push(d.id), { onBadLine: (e) => bad.push(e) });
    assert.deepEqual(out, ['1', '2']);
    assert.deepEqual(bad.map((e) => [e.line, e.code]), [[2, 'malformed'], [3, 'duplicate']]);
  });

  it('reads queries (id TAB text) and refuses other column counts', () => {
    const q = readTsvQueries(file('queries.dev.tsv', '1048585\twhat is paula deen\'s brother\n2\tandrogen receptor define\n'));
    assert.deepEqual([...q.values()], [
      { id: '1048585', text: "what is paula deen's brother", line: 1 },
      { id: '2', text: 'androgen receptor define', line: 2 },
    ]);
    assert.throws(() => readTsvQueries(file('q3.tsv', '1\ta\tb\n')), /3 TAB-separated column\(s\), expected 2/);
  });
});
