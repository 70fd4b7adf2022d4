import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInputError } from '../../../../src/core/formats/errors';
import { readTrecTopics } from '../../../../src/core/formats/trecTopics';

describe('TREC topic files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'irw-topics-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads SGML topics (Robust04 style): the title is the query, numbered by <num>', () => {
    const p = file('robust.txt', '<top>\n\n<num> Number: 301 \n<title> International Organized Crime \n\n<desc> Description: \nIdentify organizations.\n\n<narr> Narrative: \nA relevant document...\n\n</top>\n\n\n<top>\n<num> Number: 302\n<title> Poliomyelitis and Post-Polio\n<desc> Description:\nIs the disease...\n</top>\n');
    const t = readTrecTopics(p);
    assert.deepEqual([...t.values()], [
      { id: '301', text: 'International Organized Crime', line: 1 },
      { id: '302', text: 'Poliomyelitis and Post-Polio', line: 15 },
    ]);
  });

  it('reads XML topics (TREC-COVID style): <topic number> and <query>, entities decoded', () => {
    const p = file('covid.xml', '<topics>\n <topic number="1">\n  <query>coronavirus origin</query>\n  <question>what is the origin?</question>\n </topic>\n <topic number="2">\n  <query>weather &amp; covid</query>\n </topic>\n</topics>\n');
    assert.deepEqual([...readTrecTopics(p).values()], [
      { id: '1', text: 'coronavirus origin', line: 2 },
      { id: '2', text: 'weather & covid', line: 6 },
    ]);
  });

  it('refuses a duplicate topic, an empty title and a file without topics, naming file and line', () => {
    const dup = file('dup.txt', '<top>\n<num> Number: 1\n<title> a\n</top>\n<top>\n<num> Number: 1\n<title> b\n</top>\n');
    assert.throws(() => readTrecTopics(dup), (e) => isInputError(e) && e.line === 5 && /duplicate topic "1" \(first on line 1\)/.test(e.message));
    const empty = file('empty.txt', '<top>\n<num> Number: 7\n<title>\n<desc> x\n</top>\n');
    assert.throws(() => readTrecTopics(empty), (e) => isInputError(e) && /topic 7 has an empty title/.test(e.message));
    const none = file('none.txt', 'q1\tsome query\n');
    assert.throws(() => readTrecTopics(none), (e) => isInputError(e) && e.code === 'unknown-format' && e.file === none);
  });
});
