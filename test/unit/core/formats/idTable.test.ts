import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareBytes, decodeId, encodeId, encodeIdInto, sortBytes } from '../../../../src/core/formats/idTable';

describe('sortBytes', () => {
  it('sorts ids in byte order (as compareBytes) with and without astral characters or escaped bytes', () => {
    const ascii = ['d10', 'D1', 'd2', 'd1', 'a', '', 'doc_9', 'doc-9'];
    const bmp = [...ascii, 'é', 'z', '\uffff', '\ue000', 'Ā'];
    // U+1F600 is a surrogate pair in UTF-16 (below U+E000 there) but above U+FFFF in UTF-8; \xff is an escaped byte.
    const astral = [...bmp, '\u{1f600}', decodeId(Buffer.from([0xff]), 0, 1), decodeId(Buffer.from([0x61, 0xe9]), 0, 2)];
    for (const ids of [ascii, bmp, astral]) {
      const byBytes = [...ids].map((s) => encodeId(s)).sort(Buffer.compare).map((b) => decodeId(b, 0, b.length));
      assert.deepEqual(sortBytes([...ids]), byBytes);
      assert.deepEqual(sortBytes([...ids].reverse()), [...ids].sort(compareBytes));
    }
    // The plain sort would put U+1F600 before U+FFFF: the check for surrogates must not be skipped.
    assert.deepEqual(sortBytes(['\u{1f600}', '\uffff']), ['\uffff', '\u{1f600}']);
  });
});

describe('encodeIdInto', () => {
  it('writes the bytes encodeId gives, after what is already in the buffer', () => {
    const ids = ['d1', 'é', '\u{1f600}', '\ud800', decodeId(Buffer.from([0x64, 0xff, 0xfe]), 0, 3), decodeId(Buffer.from([0xe9]), 0, 1)];
    const buf = Buffer.alloc(64, 0x2a);
    let at = 1;
    for (const id of ids) {
      const end = encodeIdInto(id, buf, at);
      assert.deepEqual(buf.subarray(at, end), encodeId(id), id);
      at = end;
    }
    assert.equal(buf[0], 0x2a);
    assert.equal(buf[at], 0x2a, 'nothing written past the end');
  });
});
