/**
 * mulberry32: a small, fast, seedable 32-bit generator. Reproducible sequences for the randomization test,
 * synthetic benchmark data and generated test models; not for anything that needs cryptographic quality.
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

/** Uniform numbers in [0, 1) from mulberry32. */
export function uniform(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
