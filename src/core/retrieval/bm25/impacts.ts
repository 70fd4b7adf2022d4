/**
 * Competitive impacts, as Lucene keeps them for block-max scoring: per term, the (tf, norm) pairs of its
 * postings that no other posting beats on both counts (a higher or equal tf with a lower or equal norm, i.e. a
 * shorter or equal document). BM25's clause score grows with tf and falls with length, so for any k1, b and
 * weight the term's best score is at one of these pairs: MaxScore (maxScore.ts) bounds a term by them without
 * reading its postings. Usually a handful of pairs per term; computed in one pass over the postings.
 */
export interface Impacts {
  /** Pairs of term t are positions offsets[t] .. offsets[t+1] of tfs and norms, norms ascending. */
  offsets: Uint32Array;
  tfs: Uint32Array;
  norms: Uint8Array;
}

export function competitiveImpacts(postingOffsets: Uint32Array, docs: Uint32Array, tfs: Uint8Array | Uint16Array | Uint32Array, norms: Uint8Array): Impacts {
  const V = postingOffsets.length - 1;
  const best = new Uint32Array(256); // per norm: the largest tf of the current term's postings (0: none)
  const offsets = new Uint32Array(V + 1);
  let outTfs = new Uint32Array(Math.max(16, V * 2));
  let outNorms = new Uint8Array(outTfs.length);
  let n = 0;
  for (let t = 0; t < V; t++) {
    let lowNorm = 255;
    let highNorm = 0;
    for (let p = postingOffsets[t], hi = postingOffsets[t + 1]; p < hi; p++) {
      const nm = norms[docs[p]];
      if (tfs[p] > best[nm]) best[nm] = tfs[p];
      if (nm < lowNorm) lowNorm = nm;
      if (nm > highNorm) highNorm = nm;
    }
    // Shortest documents first: a pair is competitive when its tf beats every shorter document's.
    let top = 0;
    for (let nm = lowNorm; nm <= highNorm; nm++) {
      if (best[nm] > top) {
        top = best[nm];
        if (n === outTfs.length) {
          const grownTfs = new Uint32Array(2 * n);
          grownTfs.set(outTfs);
          outTfs = grownTfs;
          const grownNorms = new Uint8Array(2 * n);
          grownNorms.set(outNorms);
          outNorms = grownNorms;
        }
        outTfs[n] = top;
        outNorms[n] = nm;
        n++;
      }
    }
    if (lowNorm <= highNorm) best.fill(0, lowNorm, highNorm + 1);
    offsets[t + 1] = n;
  }
  return { offsets, tfs: outTfs.slice(0, n), norms: outNorms.slice(0, n) };
}
