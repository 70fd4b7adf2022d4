// Qrels: layering judgements, and the line reader every qrels reader shares (issue 28 items 7, 13, 21).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { parseQrelsLine } from '../../../../src/core/judgements/qrelsLine';
import { InputError } from '../../../../src/core/formats/errors';
import { Qrels, readQrels } from '../../../../src/core/formats/qrels';
import { readAnnotations } from '../../../../src/core/judgements/annotations';

const dir = mkdtempSync(join(tmpdir(), 'irw-qrels-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string | Buffer, name = `q${n++}.tsv`) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const refused = (path: string, line: number, message: RegExp) =>
  assert.throws(() => readQrels(path), (e: unknown) => e instanceof InputError && e.file === path && e.line === line && message.test(e.message), `${path}:${line}`);

describe('qrels header', () => {
  it('is recognised by its words, in the spellings real files use (3 or 4 columns)', () => {
    for (const header of ['query-id\tcorpus-id\tscore', 'query_id corpus_id score', 'qid\tdocid\trelevance', 'QueryId DocId Label', 'topic iteration docno relevance', 'qid Q0 pid rel']) {
      const cols = header.split(/\s+/).length;
      const q = readQrels(file(`${header}\n${cols === 3 ? 'q1\td1\t1' : 'q1 0 d1 1'}\n`));
      assert.equal(q.size, 1, header);
    }
  });

  it('any other first line that does not parse is an error with file:line, not skipped as a header', () => {
    refused(file('q1\td1\tx\nq2\td2\t1\n'), 1, /relevance grade 'x' is not an integer/);
    refused(file('q1\td1\t1x\nq2\td2\t1\n'), 1, /'1x' is not an integer/);
    refused(file('query-id\tcorpus-id\n'), 1, /found 2.*header line needs column names/);
    refused(file('query\tdocument\tnonsense\nq1\td1\t1\n'), 1, /'nonsense' is not an integer/);
  });
});

describe('NUL bytes in qrels', () => {
  it('a line holding NUL bytes (what a crash leaves) is refused naming its line, wherever they are', () => {
    const good = Buffer.from('q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\n');
    for (let at = 0; at < good.length; at++) {
      const bad = Buffer.concat([good.subarray(0, at), Buffer.alloc(3), good.subarray(at)]);
      const line = good.subarray(0, at).toString().split('\n').length;
      assert.throws(() => readQrels(file(bad)), (e: unknown) => e instanceof InputError && e.line === line && /NUL bytes/.test(e.message), `offset ${at}`);
    }
  });
});

describe('one verdict for a hand-edited line, in every reader', () => {
  // What irw eval reads (readQrels), what the engine reads (readAnnotations), what the editor's hovers read.
  const lines: [text: string, judgement: [string, string, number] | null][] = [
    ['q1\td1\t2.0', ['q1', 'd1', 2]],
    ['q1 0 d2 1', ['q1', 'd2', 1]],
    ['q1\u00a0d3\u00a01', null],
    ['q1\td4\t1\u00a0', null],
    ['q1\td5\t1.5', null],
    ['q1\td6\t-1', ['q1', 'd6', -1]],
  ];
  for (const [text, expected] of lines) {
    it(JSON.stringify(text), () => {
      const path = file(`query-id\tcorpus-id\tscore\n${text}\n`, `${n++}.annotations.tsv`);
      const editor = parseQrelsLine(text);
      const engine = readAnnotations(path);
      let evalRead: [string, string, number] | null;
      try {
        const q = readQrels(path);
        const [j] = [...q.entries()];
        evalRead = [j.qid, j.docid, j.grade];
      } catch (e) {
        assert.ok(e instanceof InputError && e.line === 2, String(e));
        evalRead = null;
      }
      assert.deepEqual(evalRead, expected, 'irw eval');
      assert.deepEqual(editor ? [editor.queryId, editor.docId, editor.grade] : null, expected, 'the editor');
      assert.deepEqual(engine.judgements.map((j) => [j.queryId, j.docId, j.grade])[0] ?? null, expected, 'the engine');
      assert.equal(engine.problems.length, expected ? 0 : 1);
      if (text.includes('\u00a0')) assert.match(engine.problems[0].message, /non-breaking space/);
    });
  }
});

test('withJudgements lays judgements over the qrels: the last of a pair wins, new queries and documents join', () => {
  const q = Qrels.fromJudgements([
    { qid: '1', docid: 'a', grade: 1 },
    { qid: '1', docid: 'b', grade: 0 },
    { qid: '2', docid: 'c', grade: 2 },
  ]);
  const m = q.withJudgements([
    { qid: '1', docid: 'b', grade: 2 },
    { qid: '1', docid: 'b', grade: 1 },
    { qid: '1', docid: 'd', grade: -1 },
    { qid: '10', docid: 'e', grade: 0 },
  ]);
  assert.deepEqual([...m.entries()], [
    { qid: '1', docid: 'a', grade: 1 },
    { qid: '1', docid: 'b', grade: 1 },
    { qid: '1', docid: 'd', grade: -1 },
    { qid: '10', docid: 'e', grade: 0 },
    { qid: '2', docid: 'c', grade: 2 },
  ]);
  assert.equal(q.size, 3, 'the qrels it started from are unchanged');
});
