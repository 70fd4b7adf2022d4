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

describe('parseFloatBytes: mantissas past 2^53 (16 to 19 digits, as Python prints scores)', () => {
  const check = (s: string) => assert.ok(Object.is(parseFloatBytes(Buffer.from(s), 0, s.length), Number(s)), s);

  it('is what strtod (and Number) gives for random long decimals and printed doubles', () => {
    const rnd = uniform(11);
    for (let i = 0; i < 100_000; i++) {
      const digits = 16 + Math.floor(rnd() * 4);
      let m = String(1 + Math.floor(rnd() * 9));
      for (let d = 1; d < digits; d++) m += String(Math.floor(rnd() * 10));
      const frac = Math.floor(rnd() * Math.min(23, digits + 1));
      const s = frac === 0 ? m : frac >= digits ? `0.${m.padStart(frac, '0')}` : `${m.slice(0, digits - frac)}.${m.slice(digits - frac)}`;
      check(rnd() < 0.2 ? `-${s}` : s);
      const x = rnd() * 10 ** (Math.floor(rnd() * 8) - 3);
      for (const p of [String(x), x.toPrecision(17), x.toPrecision(16)]) if (!p.includes('e')) check(p);
    }
  });

  it('rounds a decimal exactly halfway between two doubles to the even one, and one digit off it to the nearer', () => {
    const rnd = uniform(12);
    for (let i = 0; i < 20_000; i++) {
      // Doubles in [2^53, 2^54) are the even integers: an odd one is a tie.
      const mid = BigInt(2 ** 53 + Math.floor(rnd() * 2 ** 52) * 2) + 1n;
      for (const v of [mid, mid * 10n + 1n, mid * 10n - 1n, mid * 100n]) {
        const t = v.toString();
        for (const k of [0, 1, 2, 3]) check(k === 0 ? t : `${t.slice(0, t.length - k)}.${t.slice(t.length - k)}`);
      }
    }
  });
});
