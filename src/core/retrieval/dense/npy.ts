import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../../formats/errors';

/**
 * A 2-D float32 or float16 matrix in NumPy's .npy format (what `np.save(path, model.encode(texts))` writes),
 * read a block of rows at a time, so a matrix larger than memory can be searched.
 *
 * The format (numpy.lib.format): the magic "\x93NUMPY", a major and minor version byte, the header length
 * (u16 little-endian in version 1, u32 in versions 2 and 3), an ASCII Python dict literal such as
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1000, 384), } padded so the data starts on a multiple of
 * 64 bytes, then the raw data in C order.
 */
const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);

export class NpyMatrix {
  private constructor(
    readonly path: string,
    private readonly fd: number,
    readonly rows: number,
    readonly cols: number,
    /** Bytes per value: 4 (float32) or 2 (float16). */
    readonly itemSize: 2 | 4,
    private readonly dataStart: number,
  ) {}

  /** Opens and checks the header and the file size; throws InputError naming the file and what to do. */
  static open(path: string): NpyMatrix {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      throw bad(path, `cannot read the embeddings file: ${(e as Error).message}`, 'unreadable');
    }
    try {
      const head = Buffer.alloc(12);
      const n = readSync(fd, head, 0, 12, 0);
      if (n < 10 || !head.subarray(0, 6).equals(MAGIC)) throw bad(path, 'not a NumPy .npy file (no \\x93NUMPY magic at its start)');
      const major = head[6];
      if (major !== 1 && major !== 2 && major !== 3) throw bad(path, `unknown .npy format version ${major}.${head[7]}`);
      const lenBytes = major === 1 ? 2 : 4;
      const headerLen = major === 1 ? head.readUInt16LE(8) : head.readUInt32LE(8);
      const headerStart = 8 + lenBytes;
      const header = Buffer.alloc(headerLen);
      if (readSync(fd, header, 0, headerLen, headerStart) !== headerLen) throw bad(path, 'the .npy header is cut short');
      const { itemSize, rows, cols } = parseHeader(path, header.toString(major === 3 ? 'utf8' : 'latin1'));
      const dataStart = headerStart + headerLen;
      const size = fstatSync(fd).size;
      const want = dataStart + rows * cols * itemSize;
      if (size !== want) throw bad(path, `the header says ${rows} x ${cols} values (${want} bytes with the header) but the file has ${size} bytes`);
      return new NpyMatrix(path, fd, rows, cols, itemSize, dataStart);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** Reads rows [start, start + count) into `out` as float32; refuses a row with a NaN or infinite value. */
  readRows(start: number, count: number, out: Float32Array): void {
    const n = count * this.cols;
    const bytes = n * this.itemSize;
    const at = this.dataStart + start * this.cols * this.itemSize;
    if (this.itemSize === 4) {
      readFully(this.fd, new Uint8Array(out.buffer, out.byteOffset, bytes), at, this.path);
    } else {
      const half = new Uint16Array(n);
      readFully(this.fd, new Uint8Array(half.buffer), at, this.path);
      const table = halfTable();
      for (let i = 0; i < n; i++) out[i] = table[half[i]];
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(out[i])) {
        const row = start + Math.floor(i / this.cols);
        throw bad(this.path, `row ${row} (0-based) holds ${out[i]}, not a finite number`, 'not-a-number');
      }
    }
  }

  close(): void {
    closeSync(this.fd);
  }
}

function parseHeader(path: string, text: string): { itemSize: 2 | 4; rows: number; cols: number } {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined) throw bad(path, `unreadable .npy header ${JSON.stringify(text.trim())}`);
  const itemSize = descr === '<f4' || descr === '=f4' ? 4 : descr === '<f2' || descr === '=f2' ? 2 : null;
  if (itemSize === null) {
    throw bad(path, `the matrix holds '${descr}' values; float32 ('<f4') or float16 ('<f2') little-endian are read`, 'malformed', "Save it with embeddings.astype('float32') (or 'float16').");
  }
  if (fortran === 'True') throw bad(path, 'the matrix is in Fortran (column-major) order', 'malformed', 'Save np.ascontiguousarray(embeddings) instead.');
  const dims = shape.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (dims.length !== 2 || !dims.every((s) => /^\d+$/.test(s))) throw bad(path, `the matrix has shape (${shape}); a 2-D (rows, dimensions) matrix is needed`);
  const [rows, cols] = dims.map(Number);
  if (cols === 0) throw bad(path, 'the matrix has 0 dimensions per row');
  return { itemSize, rows, cols };
}

function readFully(fd: number, into: Uint8Array, at: number, path: string): void {
  let off = 0;
  while (off < into.length) {
    const n = readSync(fd, into, off, into.length - off, at + off);
    if (n === 0) throw bad(path, 'the file ended early (was it changed while being read?)', 'unreadable');
    off += n;
  }
}

let HALF: Float32Array | null = null;

/** float16 bit pattern -> float32 value, for all 65,536 patterns (IEEE 754 binary16). */
function halfTable(): Float32Array {
  if (HALF) return HALF;
  HALF = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    HALF[h] = exp === 0 ? sign * frac * 2 ** -24 : exp === 31 ? (frac ? NaN : sign * Infinity) : sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return HALF;
}

function bad(file: string, message: string, code: 'malformed' | 'unreadable' | 'not-a-number' = 'malformed', hint?: string): InputError {
  return new InputError({ code, message, file, hint: hint ?? 'Save the embeddings with numpy.save(path, embeddings) as a 2-D float32 or float16 array.' });
}
