import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readQrels } from '../../../../src/core/formats/qrels';
import { AnnotationWriter, annotationPaths, readAnnotations } from '../../../../src/core/judgements/annotations';
import { killTestJudgement } from './annotationKillSequence';

const root = mkdtempSync(join(tmpdir(), 'irw-kill-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Runs the child until it has confirmed its first judgement, then SIGKILLs it after a random delay. */
function burstAndKill(datasetDir: string, delayMs: number): Promise<{ confirmed: number; finished: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'annotationKillChild.ts'), datasetDir, 'test', '100000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (!timer && out.includes('ok 0\n')) timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (timer) clearTimeout(timer);
      const oks = out.split('\n').filter((l) => l.startsWith('ok '));
      oks.forEach((l, i) => assert.equal(l, `ok ${i}`, 'confirmations arrive in order'));
      resolve({ confirmed: oks.length, finished: signal !== 'SIGKILL' });
    });
  });
}

describe('annotation durability under SIGKILL', () => {
  it('keeps every confirmed judgement, in order, and leaves files that parse', async () => {
    const rounds = 8;
    let total = 0;
    for (let round = 0; round < rounds; round++) {
      const dir = join(root, `ds${round}`);
      const delay = Math.floor(Math.random() * 400);
      const { confirmed, finished } = await burstAndKill(dir, delay);
      assert.equal(finished, false, 'the child was killed mid-burst');
      total += confirmed;
      console.log(`round ${round}: killed ${delay} ms after the first confirmation, ${confirmed} judgements confirmed`);
      const { tsv, meta } = annotationPaths(dir, 'test');
      if (!existsSync(tsv)) {
        assert.equal(confirmed, 0);
        continue;
      }
      // The file parses as it is, both by the strict qrels reader and by the annotation reader.
      const lines = readFileSync(tsv, 'utf8').split('\n');
      assert.equal(lines[0], 'query-id\tcorpus-id\tscore');
      const body = lines.slice(1, lines[lines.length - 1] === '' ? -1 : undefined);
      readQrels(tsv, { duplicates: 'last' });
      assert.deepEqual(readAnnotations(tsv).problems, []);
      // Every confirmed judgement is there, in order; at most one more (in flight when killed) follows.
      assert.ok(body.length >= confirmed && body.length <= confirmed + 1, `round ${round}: ${body.length} lines for ${confirmed} confirmed`);
      body.forEach((l, i) => {
        const j = killTestJudgement(i);
        assert.equal(l, `${j.queryId}\t${j.docId}\t${j.grade}`, `round ${round}, line ${i + 2}`);
      });
      // Last line wins: the effective grade of each pair is that of its latest line.
      const expected = new Map<string, number>();
      body.forEach((_, i) => {
        const j = killTestJudgement(i);
        expected.set(`${j.queryId}\t${j.docId}`, j.grade);
      });
      const effective = readAnnotations(tsv).judgements;
      assert.deepEqual(new Map(effective.map((j) => [`${j.queryId}\t${j.docId}`, j.grade])), expected);
      // The journal holds a parseable record for every confirmed judgement (its last line may be torn).
      const journal = existsSync(meta) ? readFileSync(meta, 'utf8').split('\n').filter((l) => l !== '') : [];
      assert.ok(journal.length >= confirmed);
      journal.slice(0, confirmed).forEach((l, i) => assert.equal(JSON.parse(l).grade, killTestJudgement(i).grade));
      // Reopening for more judgements repairs whatever the kill left and appends cleanly.
      const { writer } = AnnotationWriter.open(dir, 'test');
      writer.judge({ queryId: 'q-after', docId: 'd-after', grade: 1 });
      writer.close();
      assert.equal(readQrels(tsv, { duplicates: 'last' }).grade('q-after', 'd-after'), 1);
    }
    assert.ok(total > 0, 'some judgements were confirmed before the kills');
  });
});
