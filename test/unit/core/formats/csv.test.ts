// One CSV writer for every export (issue 28 item 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvRecord } from '../../../../src/core/formats/csv';

test('numbers bare, absent fields empty; all text quoted (even digits), quotes doubled, a formula start neutralised', () => {
  for (const n of [0, -0.25, 1e-7, 12, -350]) assert.equal(csvField(n), String(n));
  assert.equal(csvField(null), '');
  assert.equal(csvField(''), '""');
  assert.equal(csvField('12'), '"12"', 'a query id of digits is text');
  assert.equal(csvField('plain'), '"plain"');
  assert.equal(csvField('x;=1+1'), '"x;=1+1"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  for (const c of ['=', '+', '-', '@', '\t', '\r']) assert.equal(csvField(`${c}SUM(A1)`), `"'${c}SUM(A1)"`);
  assert.equal(csvField('-1+1'), `"'-1+1"`);
});

test('a record is its fields joined by commas and ended by CRLF', () => {
  assert.equal(csvRecord(['run', 0.5, null, 'a,b']), '"run",0.5,,"a,b"\r\n');
  assert.equal(csvRecord([]), '\r\n');
});
