import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { parseCorpusLine } from './beir';
import { isTsvCorpus } from './datasetFolder';
import { InputError } from './errors';
import { parseCollectionLine } from './tsv';

/** A document read back from its corpus file. */
export interface StoredDocument {
  id: string;
  title: string;
  text: string;
}

/**
 * Reads one document of a corpus file (BEIR JSONL or TSV collection, either maybe gzipped) at the byte offset
 * and length its reader reported (forEachDatasetDoc: offsets of the decompressed text for a gzip file). A plain
 * file is read at the offset directly. Gzip has no random access, so a gzipped corpus is decompressed from its
 * start up to the document: the time grows with the document's position (a gunzipped copy reads instantly).
 * Returns null when the bytes there are not a document line (the file changed since the offset was taken).
 */
export async function readDocumentAt(path: string, offset: number, length: number): Promise<StoredDocument | null> {
  const line = (await isGzip(path)) ? await gunzippedRange(path, offset, length) : await plainRange(path, offset, length);
  if (line.length < length) return null;
  try {
    const rec = (isTsvCorpus(path) ? parseCollectionLine : parseCorpusLine)(path, line, 0, line.length, 0);
    return rec && { id: rec.id, title: rec.title, text: rec.text };
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}

/** By content, as the line readers tell gzip (forEachLine): the two magic bytes. */
async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await fh.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

async function plainRange(path: string, offset: number, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** Bytes [offset, offset + length) of the decompressed stream; stops decompressing once they are in. */
async function gunzippedRange(path: string, offset: number, length: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let at = 0; // decompressed bytes seen before the current chunk
  let got = 0;
  const source = createReadStream(path, { highWaterMark: 1 << 20 });
  const gunzip = source.pipe(createGunzip());
  try {
    for await (const chunk of gunzip) {
      const c = chunk as Buffer;
      const from = Math.max(0, offset - at);
      const to = Math.min(c.length, offset + length - at);
      if (from < to) {
        parts.push(c.subarray(from, to));
        got += to - from;
      }
      at += c.length;
      if (got >= length) break;
    }
  } finally {
    gunzip.destroy();
    source.destroy();
  }
  return Buffer.concat(parts);
}
