/**
 * Orders ids by score descending, equal scores by `compare` descending (fusion's trec_eval order: compare is
 * the document ids' byte order). Comparison sorts cost more than all the rest of fusion at 600,000 results, so this
 * is a radix sort on the high 32 bits of each score's IEEE-754 pattern (sign, exponent and 20 mantissa bits:
 * three passes of 11 bits, stable), after which the runs of equal high words, which are few and short, are
 * put in exact order (full score, then `compare`) by insertion.
 */
const BITS = 11;
const BUCKETS = 1 << BITS;
const MASK = BUCKETS - 1;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const counts = new Int32Array(BUCKETS);
let keyA = new Uint32Array(0);
let keyB = new Uint32Array(0);
let idB = new Int32Array(0);

export function rankDescending(ids: Int32Array, score: Float64Array, compare: (a: number, b: number) => number): void {
  const n = ids.length;
  if (n < 2) return;
  if (keyA.length < n) {
    const cap = Math.max(n, keyA.length * 2);
    keyA = new Uint32Array(cap);
    keyB = new Uint32Array(cap);
    idB = new Int32Array(cap);
  }
  for (let i = 0; i < n; i++) {
    f64[0] = score[ids[i]] + 0; // -0 -> +0: equal scores must have equal keys
    const hi = u32[1];
    // Unsigned order of the key = descending order of the score.
    keyA[i] = hi & 0x80000000 ? hi : ~(hi | 0x80000000) >>> 0;
  }
  let srcK = keyA;
  let dstK = keyB;
  let srcI: Int32Array = ids;
  let dstI: Int32Array = idB;
  for (let shift = 0; shift < 32; shift += BITS) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(srcK[i] >>> shift) & MASK]++;
    if (counts[(srcK[0] >>> shift) & MASK] === n) continue; // one bucket: nothing moves
    for (let b = 0, sum = 0; b < BUCKETS; b++) {
      const c = counts[b];
      counts[b] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = srcK[i];
      const at = counts[(k >>> shift) & MASK]++;
      dstK[at] = k;
      dstI[at] = srcI[i];
    }
    [srcK, dstK] = [dstK, srcK];
    [srcI, dstI] = [dstI, srcI];
  }
  if (srcI !== ids) ids.set(srcI.subarray(0, n));
  // Runs of equal high words: exact order by insertion.
  const before = (a: number, b: number) => score[a] > score[b] || (score[a] === score[b] && compare(a, b) > 0);
  for (let a = 0; a < n; ) {
    let b = a + 1;
    while (b < n && srcK[b] === srcK[a]) b++;
    for (let i = a + 1; i < b; i++) {
      const x = ids[i];
      let j = i - 1;
      while (j >= a && before(x, ids[j])) {
        ids[j + 1] = ids[j];
        j--;
      }
      ids[j + 1] = x;
    }
    a = b;
  }
}
