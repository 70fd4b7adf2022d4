import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countWords, snippet } from '../../../../src/core/formats/text';

test('word counts and snippets', () => {
  assert.equal(countWords('  a\tb\nc  d '), 4);
  assert.equal(countWords(''), 0);
  assert.equal(snippet('short'), 'short');
  assert.equal(snippet('word '.repeat(100), 20), 'word word word word…');
});
