// Corpus ids that are not UTF-8 are bytes end to end, from corpus.jsonl to the run and its evaluation (issue 28 item 8).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { forEachCorpusDocSync } from '../../../../src/core/formats/beir';
import { encodeId } from '../../../../src/core/formats/idTable';
import { CLI, requireBuiltCli } from '../../support/paths';

const root = mkdtempSync(join(tmpdir(), 'irw-bytes-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** A dataset whose documents `caf\xe9` and `caf\xe8` (Latin-1 bytes, not UTF-8) differ only in a byte. */
function latin1Dataset(): string {
  const dir = join(root, 'latin1');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const line = (id: Buffer, text: string) => Buffer.concat([Buffer.from('{"_id": "'), id, Buffer.from(`", "title": "", "text": "${text}"}\n`)]);
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    Buffer.concat([
      line(Buffer.from('caf\xe9', 'latin1'), 'espresso crema arabica roast'),
      line(Buffer.from('caf\xe8', 'latin1'), 'tea leaves green kettle'),
      line(Buffer.from('d3'), 'bicycle chain gears'),
    ]),
  );
  writeFileSync(join(dir, 'queries.jsonl'), '{"_id": "q1", "text": "espresso roast"}\n{"_id": "q2", "text": "green tea"}\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), Buffer.concat([Buffer.from('query-id\tcorpus-id\tscore\nq1\t'), Buffer.from('caf\xe9', 'latin1'), Buffer.from('\t1\nq2\t'), Buffer.from('caf\xe8', 'latin1'), Buffer.from('\t1\n')]));
  return dir;
}

describe('corpus ids that are not UTF-8', () => {
  it('stay two documents when read, neither merged as a duplicate nor replaced', () => {
    const ids: string[] = [];
    forEachCorpusDocSync(join(latin1Dataset(), 'corpus.jsonl'), (d) => ids.push(d.id), { onBadLine: (e) => assert.fail(e.message) });
    assert.equal(new Set(ids).size, 3);
    assert.deepEqual(ids.slice(0, 2).map((id) => encodeId(id).toString('latin1')), ['caf\xe9', 'caf\xe8']);
  });

  it('irw run writes their bytes, and irw eval matches them with the qrels: each relevant document found first', () => {
    requireBuiltCli();
    const dataset = latin1Dataset();
    const out = join(root, 'run.trec');
    const run = spawnSync(process.execPath, [CLI, 'run', '--dataset', dataset, '--out', out, '--top-k', '3'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /duplicate/);
    const lines = readFileSync(out, 'latin1').split('\n');
    assert.ok(lines.some((l) => l.startsWith('q1 Q0 caf\xe9 1 ')), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('q2 Q0 caf\xe8 1 ')), lines.join('\n'));
    const ev = spawnSync(process.execPath, [CLI, 'eval', '-m', 'ndcg_cut.10', join(dataset, 'qrels', 'test.tsv'), out], { encoding: 'utf8' });
    assert.equal(ev.status, 0, ev.stderr);
    assert.match(ev.stdout, /ndcg_cut_10\s+all\s+1\.0000/);
    // The same through the index cache, written and then read back.
    const cache = join(root, 'cache');
    for (const pass of ['writes the cache', 'reads it']) {
      const cached = join(root, `cached-${pass.length}.trec`);
      const r = spawnSync(process.execPath, [CLI, 'run', '--dataset', dataset, '--out', cached, '--top-k', '3', '--cache', cache], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(readFileSync(cached, 'latin1'), readFileSync(out, 'latin1'), pass);
    }
  });
});
