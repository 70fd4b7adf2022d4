import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, formatTrecEval } from '../../../../src/core/eval';
import { readQrels } from '../../../../src/core/formats/qrels';
import { readRun } from '../../../../src/core/formats/run';
import { GOLDEN, needsShared, RUNS, requireBuiltCli } from '../../support/paths';

/** The measures shared/golden was produced with (its README), in trec_eval -m form. */
const GOLDEN_MEASURES = [
  'official', 'ndcg', 'ndcg_cut', 'map_cut', 'recall', 'success', 'set_P', 'set_recall', 'set_F',
  'Rprec_mult', 'num_nonrel_judged_ret', 'infAP', 'ndcg_rel', 'Rndcg',
];

interface Case {
  golden: string;
  qrels: string;
  run: string;
  flags: string[];
}

/** File names say the flags: NAME.q.txt = -q, NAME.c.q.txt = -q -c, l2.q.txt = -q -l 2, *.unj.c.q.txt = -q -c -m unj. */
function cases(): Case[] {
  const out: Case[] = [];
  const edge = join(GOLDEN, 'edge');
  const edgeFiles = { qrels: join(edge, 'qrels.trec'), run: join(edge, 'run.trec') };
  out.push({ golden: join(edge, 'default.q.txt'), ...edgeFiles, flags: ['-q'] });
  out.push({ golden: join(edge, 'c.q.txt'), ...edgeFiles, flags: ['-q', '-c'] });
  out.push({ golden: join(edge, 'l2.q.txt'), ...edgeFiles, flags: ['-q', '-l', '2'] });
  out.push({ golden: join(edge, 'unj.c.q.txt'), ...edgeFiles, flags: ['-q', '-c', '-m', 'unj'] });
  const scifactQrels = join(GOLDEN, 'scifact', 'qrels.test.trec');
  for (const name of ['bm25okapi.knarfthekant', 'minilm-faiss.knarfthekant', 'vsm-tfidf.titles_fulltext.omar-khattab', 'neural-rerank.kirloxious']) {
    const run = [join(RUNS, 'scifact', `${name}.trec`), join(RUNS, 'scifact', `${name}.tsv`)].find(existsSync)!;
    const g = (suffix: string) => join(GOLDEN, 'scifact', `${name}.${suffix}`);
    out.push({ golden: g('q.txt'), qrels: scifactQrels, run, flags: ['-q'] });
    out.push({ golden: g('c.q.txt'), qrels: scifactQrels, run, flags: ['-q', '-c'] });
    out.push({ golden: g('unj.c.q.txt'), qrels: scifactQrels, run, flags: ['-q', '-c', '-m', 'unj'] });
  }
  return out;
}

function measureArgs(flags: string[]): string[] {
  return flags.includes('-m') ? [] : GOLDEN_MEASURES.flatMap((m) => ['-m', m]);
}

describe('every file in shared/golden is reproduced byte for byte', { skip: needsShared('golden', 'runs') }, () => {
  const all = cases();

  it('covers all golden outputs in the folder', () => {
    assert.equal(all.length, 16);
    for (const c of all) assert.ok(existsSync(c.golden), c.golden);
  });

  for (const c of all) {
    const label = `${c.golden.slice(GOLDEN.length + 1)} (${c.flags.join(' ')})`;

    it(`library API: ${label}`, () => {
      const m = c.flags.indexOf('-m');
      const result = evaluate(readQrels(c.qrels), readRun(c.run), {
        measures: m >= 0 ? [c.flags[m + 1]] : GOLDEN_MEASURES,
        complete: c.flags.includes('-c'),
        relevanceLevel: c.flags.includes('-l') ? Number(c.flags[c.flags.indexOf('-l') + 1]) : 1,
      });
      assert.equal(formatTrecEval(result, true), readFileSync(c.golden, 'utf8'));
    });

    it(`irw eval CLI: ${label}`, () => {
      const r = spawnSync(process.execPath, [requireBuiltCli(), 'eval', ...c.flags, ...measureArgs(c.flags), c.qrels, c.run], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      assert.equal(r.stderr, '');
      assert.equal(r.status, 0);
      assert.equal(r.stdout, readFileSync(c.golden, 'utf8'));
    });
  }

  it('the BEIR form of the SciFact qrels (header, CRLF) gives the same figures as its TREC form', () => {
    const beir = readQrels(join(GOLDEN, '..', 'datasets', 'scifact', 'qrels', 'test.tsv'));
    const trec = readQrels(join(GOLDEN, 'scifact', 'qrels.test.trec'));
    assert.equal(beir.format, 'beir');
    assert.deepEqual([...beir.entries()], [...trec.entries()]);
    const run = readRun(join(RUNS, 'scifact', 'bm25okapi.knarfthekant.trec'));
    const opts = { measures: GOLDEN_MEASURES, complete: true };
    assert.equal(formatTrecEval(evaluate(beir, run, opts), true), formatTrecEval(evaluate(trec, run, opts), true));
  });
});
