// Fault class: another program changes the annotations file while judging. Renames over it (an editor's save,
// sed -i, git checkout, a sync tool's stale copy), deletes it, truncates it, re-encodes it (UTF-16, in place or by
// rename), appends to it without the lock. Random schedules (seeded); after every step the invariants hold:
//   - a confirmed judgement is the last line of the file the path names, right after it is confirmed;
//   - bytes another program wrote are never changed: the file before a judgement is a prefix of the file after it
//     (only a line break to end its last line, lines it cannot have seen, and the judgement are added);
//   - a judgement refused ("Not recorded") changed nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { uniform } from '../../src/core/random';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../src/core/judgements/annotations';
import { tally } from './tally';

const root = mkdtempSync(join(tmpdir(), 'irw-faults-ann-'));
after(() => rmSync(root, { recursive: true, force: true }));

type Encoding = 'utf8' | 'utf16le' | 'utf16be';
const HEADER = 'query-id\tcorpus-id\tscore\n';

function decode(b: Buffer): string {
  if (b[0] === 0xff && b[1] === 0xfe) return new TextDecoder('utf-16le').decode(b);
  if (b[0] === 0xfe && b[1] === 0xff) return new TextDecoder('utf-16be').decode(b);
  return b.toString('utf8');
}

function encode(text: string, enc: Encoding): Buffer {
  if (enc === 'utf8') return Buffer.from(text);
  const le = Buffer.concat([Buffer.of(0xff, 0xfe), Buffer.from(text, 'utf16le')]);
  return enc === 'utf16le' ? le : le.swap16();
}

const OPS = ['rename-edit', 'rename-stale', 'rename-future', 'delete', 'truncate', 'reencode-in-place', 'reencode-rename', 'append-unlocked'] as const;
type Op = (typeof OPS)[number];

describe('fault class: the annotations file changed by another program while judging', () => {
  const SCHEDULES = 12;
  const STEPS = 60;
  it(`${SCHEDULES} random schedules of ${STEPS} steps: every confirmed judgement is in the file the path names, others' bytes untouched`, () => {
    const counts = tally('annotations file changed while judging');
    for (let seed = 1; seed <= SCHEDULES; seed++) {
      const rnd = uniform(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
      const dir = join(root, `s${seed}`);
      const { writer } = AnnotationWriter.open(dir, 'test');
      const { tsv } = annotationPaths(dir, 'test');
      let staleCopy: Buffer | undefined; // a sync tool's copy, taken some steps ago
      try {
        for (let step = 0; step < STEPS; step++) {
          if (rnd() < 0.55) {
            const line = `q${step % 7}\td${seed}-${step}\t${step % 2}`;
            const before = existsSync(tsv) ? readFileSync(tsv) : Buffer.alloc(0);
            let confirmed = true;
            try {
              writer.judge({ queryId: `q${step % 7}`, docId: `d${seed}-${step}`, grade: step % 2 });
            } catch (e) {
              confirmed = false;
              assert.match((e as Error).message, /^Not recorded: .*middle of a character/, `seed ${seed} step ${step}`);
              assert.ok(readFileSync(tsv).equals(before), 'a refused judgement changed nothing');
              truncateSync(tsv, before.length - 1); // the user repairs the file's end
            }
            const after = readFileSync(tsv);
            if (confirmed) {
              const text = decode(after);
              assert.ok(text.endsWith(`\n${line}\n`), `seed ${seed} step ${step}: the judgement is the file's last line`);
              if (before.length > 0) assert.ok(after.subarray(0, before.length).equals(before), `seed ${seed} step ${step}: the bytes before are untouched`);
            }
            if (rnd() < 0.2) staleCopy = readFileSync(tsv);
            counts.case(true); // confirmed and in the file, or refused and nothing changed: what held was asserted
            continue;
          }
          const op: Op = pick(OPS);
          if (!existsSync(tsv) && ['delete', 'truncate', 'reencode-in-place', 'append-unlocked'].includes(op)) continue; // deleted meanwhile
          const current = existsSync(tsv) ? readFileSync(tsv) : encode(HEADER, 'utf8');
          const text = decode(current);
          const enc: Encoding = current[0] === 0xff ? 'utf16le' : current[0] === 0xfe ? 'utf16be' : 'utf8';
          const replace = (content: Buffer, mtime?: Date) => {
            writeFileSync(`${tsv}.other`, content);
            if (mtime) utimesSync(`${tsv}.other`, mtime, mtime);
            renameSync(`${tsv}.other`, tsv);
          };
          if (op === 'rename-edit') replace(encode(text.replace(/\t1\n/, '\t2\n'), enc));
          else if (op === 'rename-stale' && staleCopy) replace(staleCopy, new Date(Date.now() - 3_600_000));
          else if (op === 'rename-future') replace(encode(`${HEADER}qx\tdx\t1\n`, enc), new Date(Date.now() + 3_600_000));
          else if (op === 'delete') unlinkSync(tsv);
          else if (op === 'truncate') truncateSync(tsv, Math.floor(rnd() * current.length));
          else if (op === 'reencode-in-place') writeFileSync(tsv, encode(text, pick(['utf8', 'utf16le', 'utf16be'] as const)));
          else if (op === 'reencode-rename') replace(encode(text, pick(['utf8', 'utf16le', 'utf16be'] as const)));
          else if (op === 'append-unlocked') writeFileSync(tsv, Buffer.concat([current, encode(`qo 0 do${step} 1${rnd() < 0.5 ? '\n' : ''}`, enc).subarray(enc === 'utf8' ? 0 : 2)]));
        }
      } finally {
        writer.close();
      }
      // What is there reads back: every line a judgement, or a kept line another program left unterminated.
      if (!existsSync(tsv)) continue;
      const read = readAnnotations(tsv);
      assert.ok(read.problems.every((p) => /not a judgement/.test(p.message)), read.problems.map((p) => p.message).join('\n'));
    }
    counts.report();
  });

  it('a stale copy renamed over the file right after judgements: the judgements it lacks are added back, none twice', () => {
    const counts = tally('a stale copy renamed over right after judgements');
    for (let k = 1; k <= 20; k++) {
      const dir = join(root, `stale${k}`);
      const { writer } = AnnotationWriter.open(dir, 'test');
      const { tsv } = annotationPaths(dir, 'test');
      const copy = readFileSync(tsv);
      const copied = new Date(Date.now() - 1000); // the copy was written (mtime) before any of these judgements
      for (let i = 0; i < k; i++) writer.judge({ queryId: 'q1', docId: `d${i}`, grade: 1 });
      writeFileSync(`${tsv}.sync`, copy);
      utimesSync(`${tsv}.sync`, copied, copied);
      renameSync(`${tsv}.sync`, tsv);
      writer.judge({ queryId: 'q2', docId: 'last', grade: 0 });
      writer.close();
      const lines = readFileSync(tsv, 'utf8').split('\n').filter(Boolean);
      const expected = [HEADER.trimEnd(), ...Array.from({ length: k }, (_, i) => `q1\td${i}\t1`), 'q2\tlast\t0'];
      counts.case(JSON.stringify(lines) === JSON.stringify(expected));
      assert.deepEqual(lines, expected);
    }
    counts.report();
  });
});
