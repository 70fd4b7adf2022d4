// irw eval's arguments: the field's measure names beside trec_eval's (output still trec_eval's where it has the
// measure), a repeated -m said to be dropped, -M positive, the one-query warning in words.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { requireBuiltCli } from '../support/paths';

const dir = mkdtempSync(join(tmpdir(), 'irw-eval-args-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const irw = (...args: string[]) => spawnSync(process.execPath, [requireBuiltCli(), ...args], { encoding: 'utf8' });
// Graded judgements; q1's first relevant document at rank 4, q2's grade-2 document first.
const qrels = file('qrels', 'q1 0 a 2\nq1 0 b 1\nq2 0 c 1\nq2 0 d 2\nq3 0 e 1\n');
const run = file('run', 'q1 Q0 x 1 9 r\nq1 Q0 y 2 8 r\nq1 Q0 z 3 7 r\nq1 Q0 b 4 6 r\nq1 Q0 a 5 5 r\nq2 Q0 d 1 3 r\nq2 Q0 x 2 2 r\nq2 Q0 c 3 1 r\n');
const lines = (out: string, name: string) => out.split('\n').filter((l) => l.split(/\s+/)[0] === name);

describe('irw eval: measure names', () => {
  it("the field's names print trec_eval's ids and values, byte for byte where trec_eval has the measure", () => {
    const field = irw('eval', '-q', '-m', 'nDCG@10', '-m', 'R@100', '-m', 'AP', '-m', 'P@5', qrels, run);
    const trec = irw('eval', '-q', '-m', 'ndcg_cut.10', '-m', 'recall.100', '-m', 'map', '-m', 'P.5', qrels, run);
    assert.equal(field.status, 0, field.stderr);
    assert.equal(field.stdout, trec.stdout);
  });

  it('P(rel=2)@5 and RR@3 are trec_eval -l 2 -m P.5 and -M 3 -m recip_rank, printed as written, beside the -l 1 measures', () => {
    const r = irw('eval', '-q', '-m', 'P(rel=2)@5', '-m', 'MRR@3', '-m', 'recip_rank', '-m', 'P.5', qrels, run);
    assert.equal(r.status, 0, r.stderr);
    const values = (out: string, name: string) => lines(out, name).map((l) => l.split('\t').slice(1).join('\t'));
    assert.deepEqual(values(r.stdout, 'P(rel=2)@5'), values(irw('eval', '-q', '-l', '2', '-m', 'P.5', qrels, run).stdout, 'P_5'));
    assert.deepEqual(values(r.stdout, 'RR@3'), values(irw('eval', '-q', '-M', '3', '-m', 'recip_rank', qrels, run).stdout, 'recip_rank'));
    assert.deepEqual(values(r.stdout, 'RR@3'), ['q1\t0.0000', 'q2\t1.0000', 'all\t0.5000']);
    assert.deepEqual(values(r.stdout, 'recip_rank'), ['q1\t0.2500', 'q2\t1.0000', 'all\t0.6250']);
    assert.deepEqual(values(r.stdout, 'P_5'), values(irw('eval', '-q', '-m', 'P.5', qrels, run).stdout, 'P_5'));
  });

  it('irw compare takes them too', () => {
    const r = irw('compare', qrels, run, run, '-m', 'nDCG@10', '-m', 'RR@3', '--format', 'json', '--resamples', '50');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).measures, ['ndcg_cut_10', 'RR@3']);
  });
});

describe('irw eval: arguments that did nothing, silently', () => {
  it('a later -m whose parameters trec_eval drops is said to be dropped, with the one -m that gives both', () => {
    const r = irw('eval', '-m', 'P.5', '-m', 'P.10', qrels, run);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(lines(r.stdout, 'P_10'), [], 'as trec_eval: only the first -m P counts');
    assert.match(r.stderr, /^irw eval: warning: -m P\.10 is ignored: as in trec_eval, a measure takes the parameters of its first -m \(P\.5\); give both in one: -m P\.5,10\n/);
    assert.equal(irw('eval', '-m', 'P.5', '-m', 'P.5', '-m', 'P', qrels, run).stderr, '', 'a repeat that changes nothing is no warning');
  });

  for (const m of ['-5', '0']) {
    it(`-M ${m} is a usage error`, () => {
      const r = irw('eval', '-M', m, qrels, run);
      assert.equal(r.status, 2);
      assert.match(r.stderr, new RegExp(`-M needs a positive number of documents per query, got ${m}`));
    });
  }

  it('one query in both files: "only 1 query is"', () => {
    const one = file('one.run', 'q3 Q0 e 1 1 r\n');
    const r = irw('eval', qrels, one);
    assert.match(r.stderr, /warning: only 1 query is in both files \(3 in the qrels, 1 in the run\)/);
  });
});
