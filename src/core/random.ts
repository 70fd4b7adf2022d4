/**
 * mulberry32: a small, fast, seedable 32-bit generator. Reproducible sequences for the randomization test,
 * synthetic benchmark data and generated test models; not for anything that needs cryptographic quality.
 */
export function mulberry32(seed: number): () => number {
  // The state as a signed 32-bit number (the same bits): V8 keeps it unboxed, where an unsigned state above 2^31
  // was a new heap number at every draw (a bootstrap's 3 M draws took ~2x as long).
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let z = Math.imul(s ^ (s >>> 15), s | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

/** Uniform numbers in [0, 1) from mulberry32. */
export function uniform(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/** 32-bit FNV-1a of a string's UTF-16 code units: a fixed order that says nothing of where the string came from. */
export function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
