import { createHash } from 'node:crypto';

/**
 * The key of a seeded statistic of one vector: its options and a SHA-256 of the vector's bytes. The engine
 * computes the tests and intervals of a results table again after every judgement, while most of its
 * differences are what they were (a non-relevant judgement moves no figure): keyed this way, a memo returns
 * the very value a fresh computation gives.
 */
export function vectorKey(x: Float64Array, ...options: (number | string)[]): string {
  return `${options.join('\t')}\t${createHash('sha256').update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)).digest('base64')}`;
}
