import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { evaluate } from '../../../src/core/eval';
import { holmAdjust, pairedTTest } from '../../../src/core/eval/stats';
import { csvSafe, latexEscape } from '../../../src/cli/compare';
import { readQrels } from '../../../src/core/formats/qrels';
import { readRun } from '../../../src/core/formats/run';
import { DATASETS, needsShared, RUNS } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
const CLI = ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'compare'];
const SCIFACT = join(DATASETS, 'scifact/qrels/test.tsv');
const SHARED = join(RUNS, 'scifact');
const irw = (...args: string[]) => spawnSync(process.execPath, [...CLI, ...args], { cwd: ROOT, encoding: 'utf8' });

describe('irw compare', () => {
  let dir: string;
  let qrels: string;
  let good: string;
  let bad: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irw-compare-'));
    qrels = join(dir, 'qrels.txt');
    const q = Array.from({ length: 12 }, (_, i) => `q${i}`);
    writeFileSync(qrels, q.map((id) => `${id} 0 rel 1\n${id} 0 non 0\n`).join(''));
    // "good" ranks the relevant document first everywhere, "bad" (a hostile tag) ranks it third.
    good = join(dir, 'good.trec');
    bad = join(dir, 'bad.trec');
    writeFileSync(good, q.map((id) => `${id} Q0 rel 1 3 good\n${id} Q0 x 2 2 good\n${id} Q0 non 3 1 good\n`).join(''));
    writeFileSync(bad, q.map((id, i) => `${id} Q0 ${i % 4 ? 'x' : 'rel'} 1 3 =cmd|x\n${id} Q0 non 2 2 =cmd|x\n${id} Q0 ${i % 4 ? 'rel' : 'x'} 3 1 =cmd|x\n`).join(''));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('regression gate: exit 5 when a run is significantly worse than the baseline, 0 the other way round', () => {
    const r = irw(qrels, good, bad, '-m', 'recip_rank', '--fail-if-worse');
    assert.equal(r.status, 5, r.stderr);
    assert.match(r.stderr, /=cmd\|x is significantly worse than good on recip_rank/);
    assert.equal(irw(qrels, bad, good, '-m', 'recip_rank', '--fail-if-worse').status, 0);
  });

  it('CSV: a tag that looks like a formula is quoted; numbers stay numbers', () => {
    const r = irw(qrels, good, bad, '-m', 'P.1', '--format', 'csv');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\r\nb,'=cmd\|x,12\/12,0\.2500,/);
    assert.match(r.stdout, /P_1,b,a,-0\.7500,/);
    assert.equal(csvSafe('-0.25'), '-0.25');
    assert.equal(csvSafe('-1+1'), "'-1+1");
    assert.equal(csvSafe('@SUM(A1)'), "'@SUM(A1)");
  });

  it('JSON: means are evaluate()\'s, p is the paired t-test, Holm over the comparisons; holes settle a judged-out case', () => {
    const r = irw(qrels, good, bad, good, '-m', 'recip_rank', '-m', 'P.2', '--format', 'json', '--resamples', '200');
    assert.equal(r.status, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.deepEqual(t.measures, ['recip_rank', 'P_2']);
    assert.equal(t.runs[1].label, '=cmd|x');
    assert.equal(t.runs[0].label, 'good (good.trec)', 'a repeated tag is told apart by its file');
    const [pb, pc] = t.pairs.filter((p: { measure: string }) => p.measure === 'recip_rank');
    const per = (file: string) => {
      const e = evaluate(readQrels(qrels), readRun(file), { measures: ['recip_rank'], complete: true });
      return Array.from(e.values);
    };
    const raw = [pairedTTest(per(bad), per(good)).p, 1];
    assert.equal(pb.p, raw[0]);
    assert.deepEqual([pb.pAdjusted, pc.pAdjusted], holmAdjust(raw));
    assert.equal(t.cells[1][0].mean, evaluate(readQrels(qrels), readRun(bad), { measures: ['recip_rank'] }).summary[0]);
    // Document x is a hole in every query: it can still decide P@1-like figures, so the comparison is open.
    assert.equal(pb.holes.verdict, 'open');
    assert.equal(pc.holes.verdict, 'settled');
    assert.deepEqual(pc.similarity, { rbo: 1, jaccard10: 1, tauAp10: 1 }, 'a run against itself');
    assert.ok(pb.similarity.tauAp10 < 1);
  });

  it('Markdown and LaTeX escape run tags; usage errors exit 2', () => {
    const md = irw(qrels, good, bad, '-m', 'P.1', '--format', 'markdown', '--all-pairs', '--resamples', '100');
    assert.equal(md.status, 0, md.stderr);
    assert.match(md.stdout, /=cmd\\\|x/);
    assert.match(md.stdout, /^\| a \| good \| 12\/12 \| 1\.0000<sup>b<\/sup> \|/m);
    const tex = irw(qrels, good, bad, '-m', 'P.1', '--format', 'latex', '--resamples', '100');
    assert.match(tex.stdout, /P\\_1/);
    assert.equal(latexEscape('a_b&c%$#{}~^\\'), 'a\\_b\\&c\\%\\$\\#\\{\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{}');
    assert.equal(irw(qrels, good).status, 2);
    assert.match(irw(qrels, good, bad, '-m', 'P.5,10').stderr, /one per-query value per measure/);
    assert.match(irw(qrels, good, bad, '--test', 'z').stderr, /unknown test 'z'/);
    assert.match(irw(qrels, good, bad, '--baseline', 'nope').stderr, /neither a RUN argument nor a run tag/);
    assert.equal(irw(qrels, good, join(dir, 'missing.trec')).status, 1);
    const empty = join(dir, 'empty.qrels');
    writeFileSync(empty, '');
    const e = irw(empty, good, bad);
    assert.equal(e.status, 1);
    assert.match(e.stderr, /judges no query/);
  });

  it('SciFact, our-style BM25 against MiniLM (shared runs): table over all 300 queries, holes open', { skip: needsShared('datasets/scifact', 'runs') }, () => {
    const r = irw(SCIFACT, join(SHARED, 'bm25okapi.knarfthekant.trec'), join(SHARED, 'minilm-faiss.knarfthekant.trec'), '-m', 'ndcg_cut.10', '--format', 'json', '--resamples', '500');
    assert.equal(r.status, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.equal(t.numQueries, 300);
    const [p] = t.pairs;
    assert.ok(p.holes.lo < p.delta && p.delta < p.holes.hi && p.holes.exact);
    assert.ok(p.ci.lo < p.delta && p.delta < p.ci.hi);
    assert.equal(p.holes.verdict, 'open');
    const c = t.cells[0][0];
    assert.ok(c.holes.lo <= c.mean && c.mean <= c.holes.hi && c.judgedOnly >= c.mean);
  });
});
