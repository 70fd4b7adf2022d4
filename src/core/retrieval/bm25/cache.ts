import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CheckedReader, writeChecked } from '../../formats/checkedFile';
import { decodeId, encodeId } from '../../formats/idTable';
import type { Bm25Index, FieldIndex, FieldsMode } from './index';
import { intToByte4 } from './smallFloat';

/**
 * Index cache: one compact binary file per (corpus content, analyser, fields), named by a hash of the three, so
 * an edited corpus gets a new key (and is rebuilt) and an unchanged one is reused wherever it lives.
 *
 * Layout: "IRWBM25\n", u32 format version, u32 header length, JSON header, then 8-byte-aligned sections
 * (document ids as "\n"-joined UTF-8 and their ranks in string order; per field its terms, offsets, postings,
 * tfs, norms, as UTF-8 and little-endian typed arrays),
 * then the SHA-256 of everything before it (formats/checkedFile.ts). A file that is truncated, corrupted or of another version fails the
 * check and is rebuilt, never trusted. A checksum only proves the file is what some writer wrote, so the decoded
 * index is also checked for consistency (see `consistent`): a crafted or buggy file that checks out but holds
 * out-of-range document numbers or lengths that disagree with its postings is rebuilt too.
 */
const MAGIC = Buffer.from('IRWBM25\n', 'latin1');
/** 3: document ids as bytes (decodeId's escapes written back as the bytes they stand for). */
const VERSION = 3;

interface FieldMeta {
  name: string;
  numTerms: number;
  numPostings: number;
  tfBytes: 1 | 2 | 4;
  docCount: number;
  sumTotalTermFreq: number;
}

interface Header {
  key: string;
  analyzerId: string;
  fields: FieldsMode;
  numDocs: number;
  /** Byte lengths of the string sections, in order: doc ids, then each field's terms. */
  stringBytes: number[];
  fieldMeta: FieldMeta[];
}

/** SHA-256 of a file's content, streamed. */
export function cacheKey(corpusSha256: string, analyzerId: string, fields: FieldsMode): string {
  return createHash('sha256').update(`${VERSION}\0${corpusSha256}\0${analyzerId}\0${fields}`).digest('hex');
}

export function cacheFile(dir: string, key: string): string {
  return join(dir, `bm25-${key.slice(0, 40)}.idx`);
}

/** Why a cache file was not used. */
export type CacheMiss = 'absent' | 'corrupt';

/**
 * Loads a cached index; `absent` if there is no file, `corrupt` if it fails any check (the caller rebuilds).
 * Each section is read into its own buffer as the file is hashed front to back (no whole-file read: index
 * files pass 2 GiB near 4M documents); nothing read is used unless the checksum over all of it holds.
 */
export function loadIndex(path: string, key: string, chunkBytes?: number): Bm25Index | CacheMiss {
  const reader = CheckedReader.open(path, MAGIC, chunkBytes);
  if (typeof reader === 'string') return reader;
  try {
    const index = decode(reader, key);
    if (!reader.verify()) return 'corrupt';
    return index && consistent(index) ? index : 'corrupt';
  } catch {
    return 'corrupt';
  } finally {
    reader.close();
  }
}

/** Decodes the sections after the magic, in file order; null for another version or key. */
function decode(r: CheckedReader, key: string): Bm25Index | null {
  const head = r.read(8);
  if (head.readUInt32LE(0) !== VERSION) return null;
  const header = JSON.parse(r.read(head.readUInt32LE(4)).toString('utf8')) as Header;
  if (header.key !== key) return null;
  const skipPadding = () => r.read(align(r.position) - r.position);
  const strings = (n: number, count: number): string[] => {
    skipPadding();
    const s = r.read(n).toString('utf8');
    const out = count === 0 ? [] : s.split('\n');
    if (out.length !== count) throw new Error('string section count mismatch');
    return out;
  };
  // Ids are bytes (encodeId on write): decoded as decodeId reads them from any file. '\n' never occurs in an escape.
  const idStrings = (n: number, count: number): string[] => {
    skipPadding();
    const b = r.read(n);
    const out = count === 0 ? [] : decodeId(b, 0, b.length).split('\n');
    if (out.length !== count) throw new Error('id section count mismatch');
    return out;
  };
  const array = <T>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T; BYTES_PER_ELEMENT: number }, n: number): T => {
    skipPadding();
    return new Ctor(r.read(n * Ctor.BYTES_PER_ELEMENT).buffer, 0, n);
  };
  const docIds = idStrings(header.stringBytes[0], header.numDocs);
  const idRank = array(Uint32Array, header.numDocs);
  const fieldIndexes: FieldIndex[] = header.fieldMeta.map((m, i) => {
    const terms = strings(header.stringBytes[i + 1], m.numTerms);
    const offsets = array(Uint32Array, m.numTerms + 1);
    const docs = array(Uint32Array, m.numPostings);
    const tfs = m.tfBytes === 1 ? array(Uint8Array, m.numPostings) : m.tfBytes === 2 ? array(Uint16Array, m.numPostings) : array(Uint32Array, m.numPostings);
    const norms = array(Uint8Array, header.numDocs);
    const termIds = new Map<string, number>();
    for (let t = 0; t < terms.length; t++) termIds.set(terms[t], t);
    return { name: m.name, terms, termIds, offsets, docs, tfs, norms, docCount: m.docCount, sumTotalTermFreq: m.sumTotalTermFreq };
  });
  return { analyzerId: header.analyzerId, fields: header.fields, docIds, idRank, fieldIndexes };
}

/**
 * Whether a decoded index is one the builder could have produced: ids ranked in ascending string order, every
 * term's postings strictly ascending document numbers below numDocs with frequencies >= 1, offsets that tile
 * the postings, distinct terms, and per-field statistics and length norms that agree with the postings.
 * O(postings), a fraction of a rebuild.
 */
export function consistent(index: Bm25Index): boolean {
  const { docIds, idRank } = index;
  const n = docIds.length;
  if (idRank.length !== n) return false;
  const docOfRank = new Int32Array(n).fill(-1);
  for (let d = 0; d < n; d++) {
    const r = idRank[d];
    if (r >= n || docOfRank[r] !== -1) return false;
    docOfRank[r] = d;
  }
  for (let r = 1; r < n; r++) if (!(docIds[docOfRank[r - 1]] < docIds[docOfRank[r]])) return false;
  const lengths = new Float64Array(n);
  for (const fi of index.fieldIndexes) {
    const { offsets, docs, tfs, norms, terms } = fi;
    const v = terms.length;
    if (offsets.length !== v + 1 || offsets[0] !== 0 || offsets[v] !== docs.length || tfs.length !== docs.length || norms.length !== n) return false;
    if (fi.termIds.size !== v) return false;
    lengths.fill(0);
    let sum = 0;
    for (let t = 0; t < v; t++) {
      const lo = offsets[t];
      const hi = offsets[t + 1];
      if (hi < lo || hi > docs.length) return false;
      let prev = -1;
      for (let p = lo; p < hi; p++) {
        const d = docs[p];
        if (d <= prev || d >= n || tfs[p] < 1) return false;
        prev = d;
        lengths[d] += tfs[p];
        sum += tfs[p];
      }
    }
    if (sum !== fi.sumTotalTermFreq) return false;
    let docCount = 0;
    for (let d = 0; d < n; d++) {
      if (lengths[d] > 0) docCount++;
      if (norms[d] !== intToByte4(lengths[d])) return false;
    }
    if (docCount !== fi.docCount) return false;
  }
  return true;
}

/** Writes the index to `path` atomically (temporary file, then rename). */
export function saveIndex(path: string, key: string, index: Bm25Index): void {
  const idBlob = encodeId(index.docIds.join('\n'));
  const termBlobs = index.fieldIndexes.map((f) => Buffer.from(f.terms.join('\n'), 'utf8'));
  const header: Header = {
    key,
    analyzerId: index.analyzerId,
    fields: index.fields,
    numDocs: index.docIds.length,
    stringBytes: [idBlob.length, ...termBlobs.map((b) => b.length)],
    fieldMeta: index.fieldIndexes.map((f) => ({
      name: f.name,
      numTerms: f.terms.length,
      numPostings: f.docs.length,
      tfBytes: f.tfs.BYTES_PER_ELEMENT as 1 | 2 | 4,
      docCount: f.docCount,
      sumTotalTermFreq: f.sumTotalTermFreq,
    })),
  };
  const headerBuf = Buffer.from(JSON.stringify(header), 'utf8');
  const parts: Buffer[] = [];
  let len = 0;
  const put = (b: Buffer) => {
    parts.push(b);
    len += b.length;
    const pad = align(len) - len;
    if (pad) {
      parts.push(Buffer.alloc(pad));
      len += pad;
    }
  };
  const head = Buffer.alloc(8);
  head.writeUInt32LE(VERSION, 0);
  head.writeUInt32LE(headerBuf.length, 4);
  parts.push(MAGIC, head);
  len = MAGIC.length + 8;
  put(headerBuf);
  put(idBlob);
  put(Buffer.from(index.idRank.buffer, index.idRank.byteOffset, index.idRank.byteLength));
  index.fieldIndexes.forEach((f, i) => {
    put(termBlobs[i]);
    for (const a of [f.offsets, f.docs, f.tfs, f.norms]) put(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  });
  writeChecked(path, parts);
}

function align(n: number): number {
  return Math.ceil(n / 8) * 8;
}
