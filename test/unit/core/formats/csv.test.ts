// One CSV writer for every export (issue 28 item 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvRecord } from '../../../../src/core/formats/csv';

test('numbers and empty fields bare; every other field quoted, quotes doubled, a formula start neutralised', () => {
  for (const n of ['0', '-0.25', '0.5000', '1e-7', '12', '-3.5E+2', '.5']) assert.equal(csvField(n), n);
  assert.equal(csvField(3), '3');
  assert.equal(csvField(''), '');
  assert.equal(csvField('plain'), '"plain"');
  assert.equal(csvField('x;=1+1'), '"x;=1+1"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  for (const c of ['=', '+', '-', '@', '\t', '\r']) assert.equal(csvField(`${c}SUM(A1)`), `"'${c}SUM(A1)"`);
  assert.equal(csvField('-1+1'), `"'-1+1"`);
  assert.equal(csvField('NaN'), '"NaN"');
});

test('a record is its fields joined by commas and ended by CRLF', () => {
  assert.equal(csvRecord(['run', 0.5, '', 'a,b']), '"run",0.5,,"a,b"\r\n');
  assert.equal(csvRecord([]), '\r\n');
});
