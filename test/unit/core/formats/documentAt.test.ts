import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { CorpusDoc } from '../../../../src/core/formats/beir';
import { forEachDatasetDoc } from '../../../../src/core/formats/datasetFolder';
import { readDocumentAt } from '../../../../src/core/formats/documentAt';

describe('readDocumentAt: a document of a corpus file from the offset its reader reported', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'irw-docat-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const tsv = Array.from({ length: 20_000 }, (_, i) => `d${i}\tTitle ${i}\tbody ${i} ${'x'.repeat(i % 13)}\n`).join('');
  const jsonl = Array.from({ length: 300 }, (_, i) => `${JSON.stringify({ _id: `j${i}`, title: `T${i}`, text: `text ${i} ünïcödé` })}\r\n`).join('');

  async function roundTrip(path: string): Promise<number> {
    const docs: CorpusDoc[] = [];
    await forEachDatasetDoc(path, (d) => docs.push(d));
    for (const d of [docs[0], docs[Math.floor(docs.length / 2)], docs[docs.length - 1]]) {
      assert.deepEqual(await readDocumentAt(path, d.offset, d.length), { id: d.id, title: d.title, text: d.text }, `${path} ${d.id}`);
    }
    return docs.length;
  }

  it('reads TSV and JSONL, plain and gzipped (a 20,000-line collection spans many gunzip chunks; a BOM and CRLF do not shift offsets)', async () => {
    const files: [string, string | Buffer][] = [
      ['collection.tsv', `\ufeff${tsv}`],
      ['collection.tsv.gz', gzipSync(tsv)],
      ['corpus.jsonl', jsonl],
      ['corpus.jsonl.gz', gzipSync(`\ufeff${jsonl}`)],
      // Concatenated gzip members (pigz, `cat a.gz b.gz`) are one stream to the readers.
      ['docs.tsv.gz', Buffer.concat([gzipSync(tsv.slice(0, Math.floor(tsv.length / 2))), gzipSync(tsv.slice(Math.floor(tsv.length / 2)))])],
    ];
    for (const [name, body] of files) {
      writeFileSync(join(tmp, name), body);
      assert.equal(await roundTrip(join(tmp, name)), name.includes('jsonl') ? 300 : 20_000);
    }
  });

  it('says null when the bytes at the offset are no longer that document line (the file changed)', async () => {
    const path = join(tmp, 'changed.tsv');
    writeFileSync(path, 'a\tone\nb\ttwo\n');
    writeFileSync(path, 'a\tone, longer now\nb\ttwo\n');
    assert.equal(await readDocumentAt(path, 6, 5), null);
    assert.equal(await readDocumentAt(path, 100, 5), null, 'past the end');
  });
});
