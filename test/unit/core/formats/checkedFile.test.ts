import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CheckedReader, writeChecked } from '../../../../src/core/formats/checkedFile';

const dir = mkdtempSync(join(tmpdir(), 'irw-checked-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const MAGIC = Buffer.from('TESTMAG\n', 'latin1');
// Sections of odd sizes, so that with small chunks every section starts and ends inside a chunk.
const sections = [Buffer.from('header{}'), Buffer.alloc(1000, 7), Buffer.from(Array.from({ length: 333 }, (_, i) => i & 0xff)), Buffer.alloc(0), Buffer.from('tail')];

function writeSample(name: string): string {
  const path = join(dir, name);
  writeChecked(path, [MAGIC, ...sections]);
  return path;
}

/** Reads the sample back section by section, as a cache loader does: the sections, or why not. */
function readSample(path: string, chunkBytes: number): Buffer[] | 'absent' | 'corrupt' {
  const r = CheckedReader.open(path, MAGIC, chunkBytes);
  if (typeof r === 'string') return r;
  try {
    const got = sections.map((s) => r.read(s.length));
    return r.verify() ? got : 'corrupt';
  } catch {
    return 'corrupt';
  } finally {
    r.close();
  }
}

describe('checked files read in chunks', () => {
  it('sections read back the same for any chunk size, each in its own aligned buffer', () => {
    const path = writeSample('ok.bin');
    for (const chunk of [1, 3, 7, 64, 1 << 20]) {
      const got = readSample(path, chunk);
      assert.ok(Array.isArray(got), `chunk ${chunk}`);
      assert.deepEqual(got, sections, `chunk ${chunk}`);
      for (const b of got) assert.equal(b.byteOffset, 0);
    }
  });

  it('a byte changed anywhere (also in a part never asked for) fails the streamed checksum, with small chunks', () => {
    const path = writeSample('flip.bin');
    const bytes = readFileSync(path);
    for (const at of [MAGIC.length + 3, MAGIC.length + 900, bytes.length - 40, bytes.length - 1]) {
      const copy = Buffer.from(bytes);
      copy[at] ^= 1;
      const p = join(dir, `flip-${at}.bin`);
      writeFileSync(p, copy);
      assert.equal(readSample(p, 5), 'corrupt', `byte ${at}`);
      // Reading only the first section leaves the rest to verify(), which must still hash it.
      const r = CheckedReader.open(p, MAGIC, 5);
      assert.ok(typeof r !== 'string');
      r.read(sections[0].length);
      assert.equal(r.verify(), false, `byte ${at}, verify over the unread rest`);
    }
  });

  it('absent, other magic, too short, truncated, and a section past the end are refused', () => {
    assert.equal(CheckedReader.open(join(dir, 'none.bin'), MAGIC), 'absent');
    const path = writeSample('cut.bin');
    const other = join(dir, 'other.bin');
    writeChecked(other, [Buffer.from('OTHERMG\n', 'latin1'), ...sections]);
    assert.equal(CheckedReader.open(other, MAGIC, 4), 'corrupt');
    const short = join(dir, 'short.bin');
    writeFileSync(short, MAGIC);
    assert.equal(CheckedReader.open(short, MAGIC), 'corrupt');
    truncateSync(path, readFileSync(path).length - 10);
    assert.equal(readSample(path, 7), 'corrupt');
    const whole = writeSample('past.bin');
    const r = CheckedReader.open(whole, MAGIC, 7);
    assert.ok(typeof r !== 'string');
    assert.throws(() => r.read(readFileSync(whole).length), /past the end/);
    r.close();
  });
});
