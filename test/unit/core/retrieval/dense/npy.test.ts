import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { InputError } from '../../../../../src/core/formats/errors';
import { NpyMatrix } from '../../../../../src/core/retrieval/dense/npy';
import { npyBytes, writeNpy } from '../../../../helpers/npy';

const tmp = mkdtempSync(join(tmpdir(), 'irw-npy-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function read(path: string): { rows: number; cols: number; data: Float32Array } {
  const m = NpyMatrix.open(path);
  try {
    const data = new Float32Array(m.rows * m.cols);
    // Two reads, to check the row offsets.
    const half = Math.floor(m.rows / 2);
    m.readRows(0, half, data);
    m.readRows(half, m.rows - half, data.subarray(half * m.cols));
    return { rows: m.rows, cols: m.cols, data };
  } finally {
    m.close();
  }
}

describe('dense: .npy matrices', () => {
  const values = Float32Array.from({ length: 15 }, (_, i) => (i - 7) / 64 + (i === 3 ? 5 : 0));

  it('reads float32 and float16, format versions 1 and 2', () => {
    for (const descr of ['<f4', '<f2']) {
      for (const version of [1, 2] as const) {
        const path = join(tmp, `m-${descr.slice(1)}-${version}.npy`);
        writeNpy(path, values, [5, 3], { descr, version });
        const m = read(path);
        assert.equal(m.rows, 5);
        assert.equal(m.cols, 3);
        assert.deepEqual(m.data, values, `${descr} v${version}`);
      }
    }
  });

  it('float16 special values: negative zero, subnormals, the largest finite value', () => {
    const path = join(tmp, 'special.npy');
    const bits = Uint16Array.from([0x8000, 0x0001, 0x03ff, 0x7bff]);
    const good = npyBytes(new Float32Array(4), [2, 2], { descr: '<f2' });
    writeFileSync(path, Buffer.concat([good.subarray(0, good.length - 8), Buffer.from(bits.buffer)]));
    const { data } = read(path);
    assert.ok(Object.is(data[0], -0));
    assert.equal(data[1], 2 ** -24);
    assert.equal(data[2], 1023 * 2 ** -24);
    assert.equal(data[3], 65504);
  });

  it('refuses what it cannot read, naming the file and what to do', () => {
    const cases: [string, Buffer, RegExp][] = [
      ['not-npy', Buffer.from('id\tvalue\n'), /not a NumPy \.npy file/],
      ['f8', npyBytes(values, [5, 3], { descr: '<f8' }), /'<f8' values; float32 \('<f4'\) or float16[\s\S]*astype\('float32'\)/],
      ['big-endian', npyBytes(values, [5, 3], { descr: '>f4' }), /'>f4' values/],
      ['fortran', npyBytes(values, [5, 3], { fortran: true }), /Fortran \(column-major\)[\s\S]*ascontiguousarray/],
      ['one-d', npyBytes(values, [15]), /shape \(15,\); a 2-D/],
      ['short', npyBytes(values, [5, 3]).subarray(0, 150), /header says 5 x 3 values \(188 bytes with the header\) but the file has 150 bytes/],
      ['cut-header', npyBytes(values, [5, 3]).subarray(0, 40), /header is cut short/],
      ['nan', npyBytes(Float32Array.from([1, 2, NaN, 4]), [2, 2]), /row 1 \(0-based\) holds NaN/],
    ];
    for (const [name, bytes, message] of cases) {
      const path = join(tmp, `${name}.npy`);
      writeFileSync(path, bytes);
      assert.throws(
        () => read(path),
        (e: unknown) => e instanceof InputError && e.file === path && message.test(e.format()),
        name,
      );
    }
    assert.throws(() => read(join(tmp, 'absent.npy')), (e: unknown) => e instanceof InputError && e.code === 'unreadable');
  });
});
