// parseFloatField (a run's score read in the same pass that finds the field's end) gives what
// parseFloatBytes gives for the field once its end is known, for every kind of number and non-number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { floatFieldEnd, parseFloatBytes, parseFloatField } from '../../../../src/core/formats/numbers';
import { uniform } from '../../../../src/core/random';

const FIELDS = [
  '0', '-0', '+0', '1', '12.5', '-3.25', '.5', '5.', '.', '-', '+', '', '1e3', '1E-3', '-2.5e+2', '1e', 'e5', 'inf', '-Infinity',
  'nan', '0x10', '1.2.3', '--1', '12345678901234567890', '0.30000001', '0.3', '9007199254740993', '123456789012345.6',
  '1.0000000000000000000000001', '0.' + '0'.repeat(30) + '1', '12abc', '\xe9',
];

describe('parseFloatField', () => {
  it('reads a field as parseFloatBytes reads it, and finds its end, whatever follows', () => {
    const rnd = uniform(3);
    const fields = [...FIELDS, ...Array.from({ length: 2000 }, () => (rnd() * 10 ** Math.floor(rnd() * 12 - 6)).toFixed(Math.floor(rnd() * 18)))];
    for (const field of fields) {
      for (const after of ['', ' t', '\tt', '\r', '\n', '\v x']) {
        const buf = Buffer.from(`#${field}${after}`, 'latin1');
        const expected = parseFloatBytes(buf, 1, 1 + field.length);
        assert.ok(Object.is(parseFloatField(buf, 1, buf.length), expected), `'${field}' then ${JSON.stringify(after)}`);
        assert.equal(floatFieldEnd(), 1 + field.length, `end of '${field}'`);
      }
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(field)) assert.ok(Object.is(parseFloatBytes(Buffer.from(field), 0, field.length), Number(field)), field);
    }
  });
});
