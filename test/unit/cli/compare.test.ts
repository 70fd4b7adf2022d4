import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { evaluate } from '../../../src/core/eval';
import { holmAdjust, pairedTTest } from '../../../src/core/eval/stats';
import { latexEscape, markdownEscape, outward, pText } from '../../../src/cli/compare';
import { readQrels } from '../../../src/core/formats/qrels';
import { readRun } from '../../../src/core/formats/run';
import { DATASETS, needsShared, requireBuiltCli, RUNS } from '../support/paths';

const ROOT = resolve(__dirname, '../../..');
// The built command line, as users run it (a spawn through tsx compiled the sources again each time: ~0.8 s a call).
const CLI = [requireBuiltCli(), 'compare'];
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

  it('estimates: every comparison of every measure carries "estimate" (b - a, 95 % interval, verdict); judged holes teach it; --fail-if-worse-estimate gates on it', () => {
    const json = (...extra: string[]) => {
      const r = irw(qrels, good, bad, '-m', 'recip_rank', '-m', 'P.2', '--format', 'json', '--resamples', '100', ...extra);
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { cells: { mean: number }[][]; pairs: { a: number; b: number; measure: string; delta: number; wins: number; losses: number; estimate: { delta: number; low: number; high: number; verdict: string; judged: number } }[] };
    };
    // The qrels alone: no hole judged, the relevance model is its prior; the interval is wide and holds the value's range.
    const prior = json();
    assert.equal(prior.pairs.length, 2);
    for (const p of prior.pairs) {
      assert.ok(['a better', 'b better', 'within', 'undecided'].includes(p.estimate.verdict), JSON.stringify(p.estimate));
      assert.equal(p.estimate.judged, 0);
      assert.ok(p.estimate.low <= p.estimate.delta && p.estimate.delta <= p.estimate.high && p.estimate.low >= -1 && p.estimate.high <= 1);
    }
    // Every hole (the document "x" of each query) judged non-relevant: the estimate is the difference itself, decided.
    const judged = join(dir, 'annotations.tsv');
    writeFileSync(judged, 'query-id\tcorpus-id\tscore\n' + Array.from({ length: 12 }, (_, i) => `q${i}\tx\t0\n`).join(''));
    const all = json('--judgements', judged);
    for (const p of all.pairs) {
      assert.equal(p.estimate.judged, 12);
      assert.ok(Math.abs(p.estimate.delta - p.delta) < 1e-12 && Math.abs(p.estimate.low - p.delta) < 1e-9 && Math.abs(p.estimate.high - p.delta) < 1e-9, JSON.stringify(p));
    }
    // Δ is b - a: good (run 0, the baseline) is a, bad (run 1, recip_rank 1/3 in 9 of 12 queries) is b, so Δ < 0 and a is better.
    const rr = all.pairs.find((p) => p.measure === 'recip_rank')!;
    assert.deepEqual([rr.a, rr.b], [0, 1]);
    assert.equal(rr.delta, all.cells[1][0].mean - all.cells[0][0].mean);
    assert.ok(rr.delta < 0 && rr.estimate.delta < 0 && rr.estimate.high < 0 && rr.wins < rr.losses, JSON.stringify(rr));
    assert.equal(rr.estimate.verdict, 'a better');
    const gate = irw(qrels, good, bad, '-m', 'recip_rank', '--fail-if-worse-estimate', '--judgements', judged, '--resamples', '100');
    assert.equal(gate.status, 5, gate.stderr);
    assert.match(gate.stderr, /=cmd\|x is worse than good on recip_rank by the estimate with the holes judged: -0\.5000 \[-0\.5000, -0\.5000\]/);
    assert.equal(irw(qrels, good, bad, '-m', 'recip_rank', '--fail-if-worse-estimate', '--resamples', '100').status, 0, 'undecided on the prior: no gate');
    // A bad line in the judgements file is an error naming the file and line.
    writeFileSync(judged, 'query-id\tcorpus-id\tscore\nq1\tx\tmaybe\n');
    const wrong = irw(qrels, good, bad, '--judgements', judged);
    assert.equal(wrong.status, 1, wrong.stderr);
    assert.match(wrong.stderr, /annotations\.tsv.*line 2/s);
  });

  it('CSV: one long table (run, versus, measure, statistic, value); text quoted, a formula-like tag defused, numbers plain', () => {
    const r = irw(qrels, good, bad, '-m', 'P.1', '-m', 'recip_rank', '--format', 'csv', '--resamples', '100');
    assert.equal(r.status, 0, r.stderr);
    const rows = r.stdout.split('\r\n');
    assert.equal(rows.pop(), '');
    assert.equal(rows[0], '"run","versus","measure","statistic","value"');
    // Every row has the header's five fields (pandas.read_csv failed on the two tables of one file before).
    for (const row of rows) assert.equal(row.match(/("([^"]|"")*"|[^,"]*)(,|$)/g)!.filter((f) => f !== '').length, 5, row);
    assert.ok(rows.includes(`"'=cmd|x","","P_1","mean",0.25`), 'a run figure');
    assert.ok(rows.includes(`"'=cmd|x","good","P_1","difference",-0.75`), 'a comparison figure: run - versus');
    assert.ok(rows.includes(`"'=cmd|x","good","","rbo",${JSON.parse(irw(qrels, good, bad, '-m', 'P.1', '--format', 'json', '--resamples', '100').stdout).pairs[0].similarity.rbo}`));
    assert.ok(rows.includes(`"good","","","baseline",1`));
    for (const row of rows.slice(1)) assert.match(row, /,(-?\d+(\.\d+)?(e-?\d+)?|"-?(Infinity|NaN)")$/, `a number ends ${row}`);
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
    assert.deepEqual(pc.similarity, { rbo: 1, jaccard10: 1, tauAp10: 1, tauAp10Undefined: 0 }, 'a run against itself');
    assert.ok(pb.similarity.tauAp10 < 1);
  });

  it('Markdown and LaTeX escape run tags; usage errors exit 2', () => {
    const md = irw(qrels, good, bad, '-m', 'P.1', '--format', 'markdown', '--all-pairs', '--resamples', '100');
    assert.equal(md.status, 0, md.stderr);
    assert.match(md.stdout, /=cmd\\\|x/);
    assert.match(md.stdout, /^\| P\\_1 \| a \| 1\.0000<sup>b<\/sup> \|/m);
    const tex = irw(qrels, good, bad, '-m', 'P.1', '--format', 'latex', '--resamples', '100');
    assert.match(tex.stdout, /P\\_1/);
    // A qrels file whose name holds a line break: the comment naming it stays one line, no live LaTeX after it.
    const odd = join(dir, 'q\n\\input{secret}.qrels');
    writeFileSync(odd, readFileSync(qrels));
    const named = irw(odd, good, bad, '-m', 'P.1', '--format', 'latex', '--resamples', '100');
    assert.equal(named.status, 0, named.stderr);
    assert.ok(named.stdout.split('\n').every((l) => !l.startsWith('\\input')), named.stdout);
    assert.match(named.stdout, /^% .*q\u240a\\input\{secret\}\.qrels/m);
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

  it('-M N cuts every ranking at N (recip_rank -M 10 is MRR@10); an unknown option is named plainly', () => {
    // "deep" finds the relevant document at rank 11 only: 1/11 in full, 0 at depth 10.
    const deep = join(dir, 'deep.trec');
    writeFileSync(deep, Array.from({ length: 12 }, (_, i) => Array.from({ length: 11 }, (_, k) => `q${i} Q0 ${k === 10 ? 'rel' : `n${k}`} ${k + 1} ${20 - k} deep\n`).join('')).join(''));
    const full = JSON.parse(irw(qrels, deep, good, '-m', 'recip_rank', '--format', 'json', '--resamples', '50').stdout);
    assert.equal(full.cells[0][0].mean, evaluate(readQrels(qrels), readRun(deep), { measures: ['recip_rank'], complete: true }).summary[0]);
    assert.ok(Math.abs(full.cells[0][0].mean - 1 / 11) < 1e-12);
    const r = irw(qrels, deep, good, '-m', 'recip_rank', '-M', '10', '--format', 'json', '--resamples', '50');
    assert.equal(r.status, 0, r.stderr);
    const cut = JSON.parse(r.stdout);
    assert.equal(cut.cells[0][0].mean, 0);
    assert.equal(cut.cells[0][0].mean, evaluate(readQrels(qrels), readRun(deep), { measures: ['recip_rank'], complete: true, maxRetrieved: 10 }).summary[0]);
    assert.equal(cut.options.maxRetrieved, 10);
    assert.match(irw(qrels, deep, good, '-M', '0').stderr, /-M needs a positive integer/);
    const unknown = irw(qrels, deep, good, '-X');
    assert.equal(unknown.status, 2);
    // Named plainly (not Node's text about '--'), with the nearest options.
    assert.match(unknown.stderr, /^irw compare: unknown option '-X'(: did you mean [^\n]*)?\n/);
    assert.doesNotMatch(unknown.stderr, /positional/);
  });

  it('text: the runs are keyed a, b, c and comparisons read "b vs a": no column is named after a key', () => {
    const r = irw(qrels, good, bad, good, '-m', 'P.1', '--resamples', '50');
    assert.equal(r.status, 0, r.stderr);
    const headers = r.stdout.split('\n\n').map((block) => block.split('\n')[1].trim().split(/\s{2,}/));
    for (const h of headers) for (const k of ['a', 'b', 'c']) assert.ok(!h.includes(k), `header ${h.join('|')}`);
    assert.match(r.stdout, /^P_1\s+b vs a\s+-0\.7500/m);
  });

  it('progress goes to stderr once the table takes longer than the delay (IRW_PROGRESS_AFTER_MS), never to stdout', () => {
    const env = (ms: string) => ({ ...process.env, IRW_PROGRESS_AFTER_MS: ms });
    const slow = spawnSync(process.execPath, [...CLI, qrels, good, bad, '-m', 'P.1', '--resamples', '50'], { cwd: ROOT, encoding: 'utf8', env: env('0') });
    assert.equal(slow.status, 0, slow.stderr);
    for (const stage of ['reading the run files', 'evaluating the runs', 'bootstrap intervals', 'hole intervals']) assert.match(slow.stderr, new RegExp(`^${stage} \\d+/\\d+`, 'm'));
    const quick = spawnSync(process.execPath, [...CLI, qrels, good, bad, '-m', 'P.1', '--resamples', '50'], { cwd: ROOT, encoding: 'utf8', env: env('60000') });
    assert.equal(quick.stderr, '');
    assert.equal(quick.stdout, slow.stdout);
  });

  it('qrels and runs that share no query are refused (exit 1), even with --fail-if-worse; few shared queries warn', () => {
    const other = join(dir, 'other.qrels');
    writeFileSync(other, 'x1 0 rel 1\n');
    const r = irw(other, good, bad, '--fail-if-worse');
    assert.equal(r.status, 1, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`no query is in both ${other} and ${good}`));
    const wider = join(dir, 'wider.qrels');
    writeFileSync(wider, Array.from({ length: 30 }, (_, i) => `q${i} 0 rel 1\n`).join(''));
    const w = irw(wider, good, bad, '-m', 'P.1', '--resamples', '50');
    assert.equal(w.status, 0, w.stderr);
    assert.match(w.stderr, /warning: .*only 12 queries are in both files \(30 in the qrels, 12 in the run\)/);
  });

  it('NFCorpus qrels with SciFact runs (shared data): refused, not a table of zeros called settled', { skip: needsShared('datasets/nfcorpus', 'runs') }, () => {
    const nfcorpus = join(DATASETS, 'nfcorpus/qrels/test.tsv');
    const r = irw(nfcorpus, join(SHARED, 'bm25okapi.knarfthekant.trec'), join(SHARED, 'minilm-faiss.knarfthekant.trec'), '--fail-if-worse');
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no query is in both .*nfcorpus.*test\.tsv and .*bm25okapi/);
  });

  it('run tags cannot inject: Markdown loads no image or link, the text table shows escape sequences as symbols', () => {
    const tagged = join(dir, 'tagged.trec');
    const tag = '![x](https://example.invalid/p.png)\x1b]0;pwned\x07\x9b2J';
    writeFileSync(tagged, Array.from({ length: 12 }, (_, i) => `q${i} Q0 rel 1 3 ${tag}\n`).join(''));
    const md = irw(qrels, tagged, bad, '-m', 'P.1', '--format', 'markdown', '--resamples', '50');
    assert.equal(md.status, 0, md.stderr);
    assert.ok(!md.stdout.includes('![') && !md.stdout.includes(']('), 'no Markdown image or link syntax left');
    assert.ok(md.stdout.includes('\\!\\[x\\]\\(https://example.invalid/p.png\\)'));
    assert.equal(markdownEscape('<img src=x>'), '\\<img src=x\\>');
    const text = irw(qrels, tagged, bad, '-m', 'P.1', '--resamples', '50');
    assert.equal(text.status, 0, text.stderr);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(text.stdout), 'no control character reaches the terminal');
    assert.ok(text.stdout.includes('\u241b]0;pwned\u2407\\u009b2J'));
  });

  it('SciFact, three runs (shared data): the text table fits 100 columns', { skip: needsShared('datasets/scifact', 'runs') }, () => {
    const r = irw(SCIFACT, ...['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec', 'vsm-tfidf.titles_fulltext.omar-khattab.trec'].map((f) => join(SHARED, f)), '--resamples', '200');
    assert.equal(r.status, 0, r.stderr);
    const widest = Math.max(...r.stdout.split('\n').map((l) => l.length));
    assert.ok(widest <= 100, `${widest} columns`);
  });

  it('SciFact, our-style BM25 against MiniLM (shared runs): table over all 300 queries, holes open', { skip: needsShared('datasets/scifact', 'runs') }, () => {
    const r = irw(SCIFACT, join(SHARED, 'bm25okapi.knarfthekant.trec'), join(SHARED, 'minilm-faiss.knarfthekant.trec'), '-m', 'ndcg_cut.10', '--format', 'json', '--resamples', '500');
    assert.equal(r.status, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.equal(t.numQueries, 300);
    const [p] = t.pairs;
    // Δ is b - a: BM25 (run 0, the baseline) is a, MiniLM (b) is ahead by 0.0854 (0.6451 - 0.5597, trec_eval).
    assert.deepEqual([p.a, p.b], [0, 1]);
    assert.equal(p.delta, t.cells[1][0].mean - t.cells[0][0].mean);
    assert.equal(p.delta.toFixed(4), '0.0854');
    // The estimate, from the relevance model's prior (no judged hole), holds it and is no extreme (it was -0.345 [-1, 0.242]).
    assert.ok(p.estimate.low <= p.delta && p.delta <= p.estimate.high && Math.abs(p.estimate.delta) < 0.25 && p.estimate.low > -0.5, JSON.stringify(p.estimate));
    assert.ok(p.holes.lo < p.delta && p.delta < p.holes.hi && p.holes.exact);
    assert.ok(p.ci.lo < p.delta && p.delta < p.ci.hi);
    assert.equal(p.holes.verdict, 'open');
    const c = t.cells[0][0];
    assert.ok(c.holes.lo <= c.mean && c.mean <= c.holes.hi && c.judgedOnly >= c.mean);
  });
});

test('ranges are rounded outward (the printed range holds the computed one) and tiny p-values print as <0.0001 (issue 23 item 4)', () => {
  // The case found: a range whose true upper end is -4.6e-5 printed as -0.0000 by rounding to nearest.
  assert.equal(outward(-0.07881, -4.6e-5), '[-0.0789, 0.0000]');
  assert.equal(outward(0.12341, 0.56789), '[0.1234, 0.5679]');
  // Floating-point noise at a printed digit is not pushed out.
  assert.equal(outward(-0.5 - 1e-15, -0.5 + 1e-15), '[-0.5000, -0.5000]');
  assert.equal(pText(3e-7), '<0.0001');
  assert.equal(pText(0.0001), '0.0001');
  assert.equal(pText(0.04321), '0.0432');
});
