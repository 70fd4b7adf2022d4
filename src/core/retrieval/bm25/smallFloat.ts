/**
 * Lucene's SmallFloat.intToByte4 / byte4ToInt: the one-byte document-length encoding of BM25 norms. Lengths up
 * to 23 are exact; above that 4 significant bits are kept (about 12% error), so BM25 sees a rounded length.
 * Implemented exactly so scores match Anserini's.
 */
const MAX_INT4 = longToInt4(0x7fffffff);
const NUM_FREE_VALUES = 255 - MAX_INT4; // 24

function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i; // subnormal
  const shift = numBits - 4;
  let encoded = (i >>> shift) & 0x07; // the most significant bit is implicit
  encoded |= (shift + 1) << 3;
  return encoded;
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** Encodes a non-negative length (clamped to 2^31-1) into one byte. */
export function intToByte4(i: number): number {
  if (i < NUM_FREE_VALUES) return i;
  return NUM_FREE_VALUES + longToInt4(Math.min(i, 0x7fffffff) - NUM_FREE_VALUES);
}

export function byte4ToInt(b: number): number {
  if (b < NUM_FREE_VALUES) return b;
  return NUM_FREE_VALUES + int4ToLong(b - NUM_FREE_VALUES);
}

/** byte -> decoded length, as Lucene's BM25Similarity.LENGTH_TABLE. */
export const LENGTH_TABLE: Float64Array = Float64Array.from({ length: 256 }, (_, b) => byte4ToInt(b));
