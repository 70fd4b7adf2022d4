import { writeFileSync } from 'node:fs';

/**
 * Writes a .npy file as numpy.save does (magic, version, header dict padded to 64 bytes, raw little-endian
 * data): the fixtures and the benchmark's matrices, without Python.
 */
export function npyBytes(data: Float32Array, shape: number[], opts: { descr?: string; version?: 1 | 2; fortran?: boolean } = {}): Buffer {
  const descr = opts.descr ?? '<f4';
  const version = opts.version ?? 1;
  const lenBytes = version === 1 ? 2 : 4;
  let dict = `{'descr': '${descr}', 'fortran_order': ${opts.fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const unpadded = 8 + lenBytes + dict.length + 1;
  dict += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const head = Buffer.alloc(8 + lenBytes);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(head);
  if (version === 1) head.writeUInt16LE(dict.length, 8);
  else head.writeUInt32LE(dict.length, 8);
  const body = descr.endsWith('f2') ? Buffer.from(Uint16Array.from(data, toHalf).buffer) : descr.endsWith('f8') ? Buffer.from(Float64Array.from(data).buffer) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.concat([head, Buffer.from(dict, 'latin1'), body]);
}

export function writeNpy(path: string, data: Float32Array, shape: number[], opts: Parameters<typeof npyBytes>[2] = {}): void {
  writeFileSync(path, npyBytes(data, shape, opts));
}

/** float32 -> float16 bits, for values float16 holds exactly (the fixtures use k/64, |k| < 2^10, and 0). */
export function toHalf(v: number): number {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const exp = Math.floor(Math.log2(a));
  const frac = Math.round((a / 2 ** exp - 1) * 1024);
  return sign | ((exp + 15) << 10) | frac;
}
