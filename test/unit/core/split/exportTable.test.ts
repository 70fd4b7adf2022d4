// Exports of the results table take run names and file paths from files: CSV must not hand a spreadsheet a
// formula, Markdown must not carry HTML, and floating-point noise must not print as a signed tiny number.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { addRunFiles, loadSplit } from '../../../helpers/splitState';
import { needsShared, SHARED } from '../../support/paths';
import { exportResults } from '../../../../src/core/split/exportTable';
import { boxSummary, resultsModel } from '../../../../src/core/split/results';
import { RESULT_MEASURES } from '../../../../src/core/split/scores';
import type { Comparison, EstimateView, ResultsModel } from '../../../../src/protocol/webview';

const measure = { ...RESULT_MEASURES[0], tested: true };
const comparison = (delta: number): Comparison => ({ delta, tP: 1, tPHolm: 1, randP: 1, randPHolm: 1, wins: 0, ties: 1, losses: 0 });

function model(rows: { key: string; label: string; mean: number; delta?: number }[]): ResultsModel {
  return {
    dataset: 'd', split: 't', numQueries: 1, measures: [measure], baseline: rows[0].key, alpha: 0.05, trials: 1, seed: 1,
    significancePending: false, significanceOn: null, qrels: { state: 'original', judgements: 0, version: 0 }, judgements: 0, skipped: [], untrusted: false, missingQueries: 'zero',
    rows: rows.map((r) => ({ key: r.key, label: r.label, means: [r.mean], annotated: null, vsBaseline: r.delta === undefined ? null : [comparison(r.delta)], lengths: boxSummary([]), coverage: { answered: 1, total: 1 } })),
  };
}

test('CSV: every text cell is quoted, those starting with = + - @ TAB or CR neutralised; numbers are not', () => {
  const names = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd', 'plain', 'x;=1+1', 'a\r\nb'];
  const m = model(names.map((label, i) => ({ key: `/runs/${i}.trec`, label, mean: 0.5, delta: -0.25 })));
  const csv = exportResults(m, 'csv');
  const lines = csv.split(/\r\n(?=")/).slice(1);
  assert.ok(lines[0].startsWith(`"'=HYPERLINK(""http://x"",""y"")","/runs/0.trec",`), lines[0]);
  assert.ok(lines[1].startsWith(`"'+1+1",`));
  assert.ok(lines[2].startsWith(`"'-2+3",`));
  assert.ok(lines[3].startsWith(`"'@SUM(A1)",`));
  assert.ok(lines[4].startsWith(`"'\tcmd",`));
  assert.ok(lines[5].startsWith(`"'\rcmd",`));
  assert.ok(lines[6].startsWith('"plain",'));
  // With ';' as the separator (de, fr, nl locales) a quoted cell stays one cell: no formula is split out of it.
  assert.ok(lines[7].startsWith('"x;=1+1",'));
  assert.ok(lines[8].startsWith('"a\r\nb",'));
  // A negative delta is a number the tool computed, not text from a file: left as is.
  assert.equal(lines[6].split(',')[4], '-0.25');
  const keyed = exportResults(model([{ key: '=cmd|calc', label: 'x', mean: 0.5 }]), 'csv').split('\r\n')[1];
  assert.equal(keyed.split(',')[1], `"'=cmd|calc"`);
});

test('CSV: floating-point noise in a delta or mean is zero, without a sign', () => {
  const m = model([{ key: 'a', label: 'a', mean: 0.1 + 0.2 }, { key: 'b', label: 'b', mean: 0.3, delta: -8.326672684688674e-19 }]);
  const lines = exportResults(m, 'csv').trim().split('\n');
  assert.equal(lines[1].split(',')[3], '0.3');
  assert.equal(lines[2].split(',')[4], '0');
  assert.ok(!/e-\d/.test(lines.join('\n')), lines.join('\n'));
  const negZero = exportResults(model([{ key: 'a', label: 'a', mean: 0 }, { key: 'b', label: 'b', mean: 0, delta: -0 }]), 'csv');
  assert.equal(negZero.trim().split('\n')[2].split(',')[4], '0');
});

test('Markdown escapes HTML in run names and the caption', () => {
  const md = exportResults(model([{ key: 'a', label: '<img src=x onerror=alert(1)>&amp;', mean: 0.5 }, { key: 'b', label: '<b>bold</b>', mean: 0.4 }]), 'markdown');
  assert.ok(!/<img|<b>/.test(md), md);
  assert.match(md, /&#60;img src=x onerror=alert\(1\)&#62;&#38;amp; \(baseline\)/);
  assert.match(md, /Against &#60;img src=x onerror=alert\(1\)&#62;&#38;amp;, Holm/);
});

test('exports escape hostile run names', () => {
  const base: ResultsModel = {
    dataset: 'd', split: 't', numQueries: 1, measures: [RESULT_MEASURES[0]], baseline: 'x', alpha: 0.05, trials: 1, seed: 1, significancePending: false,
    significanceOn: null, qrels: { state: 'original', judgements: 0, version: 0 }, judgements: 0, skipped: [], untrusted: false, missingQueries: 'zero',
    rows: [{ key: 'x', label: 'a|b_c%"d,e', means: [0.5], annotated: null, vsBaseline: null, lengths: boxSummary([]), coverage: { answered: 1, total: 1 } }],
  };
  assert.match(exportResults(base, 'markdown'), /a\\\|b_c%"d,e \(baseline\)/);
  assert.match(exportResults(base, 'csv'), /^"a\|b_c%""d,e","x",1,0.5,{8},1,1,"original",0,"holm",/m);
  assert.match(exportResults(base, 'latex'), /a\|b\\_c\\%"d,e \(baseline\)/);
});

test('the caption says which qrels state and how many judgements the figures used, and that runs were made on other data', () => {
  const m = model([{ key: 'a', label: 'a', mean: 0.5 }]);
  m.judgements = 3;
  m.provenance = {
    qrels: { path: '/data/scifact/qrels/test.tsv', sha256: '0864bb985e0ca2367ba217977e72004d549054b2b06666ed9d4825ac7c21284c', judgements: 339, queries: 300 },
    warnings: [{ run: '/runs/a.trec', message: 'made on another corpus' }, { run: '/runs/a.trec', message: 'qrels changed' }],
  };
  for (const format of ['markdown', 'latex'] as const) {
    const text = exportResults(m, format);
    assert.match(text, /qrels\/test.tsv \(sha256 0864bb985e0c, 339 judgements of 300 queries\); the annotated figures add 3 judgements of yours; 1 run was made on other data/);
  }
  m.provenance.qrels!.now = { sha256: 'c'.repeat(64), judgements: 340, queries: 300 };
  assert.match(exportResults(m, 'markdown'), /339 judgements of 300 queries\), since changed to 340 judgements of 300 queries \(sha256 cccccccccccc\): these figures are the earlier qrels'; the annotated/);
  delete m.provenance;
  assert.match(exportResults(m, 'markdown'), /Judged with no qrels file \(your judgements only\)/);
});

test('LaTeX: a line break in a run name (from a file name) does not break the tabular row', () => {
  const latex = exportResults(model([{ key: '/runs/a.trec', label: 'bm25\n\nrun\rx', mean: 0.5 }, { key: '/runs/b.trec', label: 'b', mean: 0.4 }]), 'latex');
  const rows = latex.split('\n').filter((l) => l.endsWith('\\\\'));
  assert.equal(rows.length, 3, latex);
  assert.match(rows[1], /^bm25 run x \(baseline\) & 0\.5000 \\\\$/);
  assert.ok(!/\n\n/.test(latex), 'no blank line (a paragraph break) anywhere');
});


test('an export holds what the panel shows: figures with the judgements and the original ones, ranges, comparisons, verdicts, the qrels state in the caption (SciFact)', { skip: needsShared('datasets/scifact', 'runs') }, async () => {
  const RUNS = join(SHARED, 'runs/scifact');
  const [A, B] = ['bm25okapi.knarfthekant.trec', 'minilm-faiss.knarfthekant.trec'].map((f) => join(RUNS, f));
  const s = await loadSplit({ datasetDir: join(SHARED, 'datasets/scifact'), split: 'test' });
  await addRunFiles(s, [A, B]);
  // Two judgements that move B's nDCG@10: its first unjudged top-10 documents of two queries, judged relevant.
  const judged: string[] = [];
  for (const q of s.qrels('original').queryIds()) {
    const top = s.run(B).docIds.subarray(s.run(B).offsets[s.run(B).queryIndex(q)], s.run(B).offsets[s.run(B).queryIndex(q)] + 10);
    const doc = [...top].map((d) => s.run(B).docs.string(d)).find((d) => s.grade(q, d) === null);
    if (doc) {
      s.judge(q, doc, 1);
      judged.push(q);
    }
    if (judged.length === 2) break;
  }
  const m = resultsModel(s, A, { skipped: [] });
  const nd = m.measures.findIndex((x) => x.key === 'ndcg_cut_10');
  const rowB = m.rows.find((r) => r.key === B)!;
  assert.notEqual(rowB.annotated![nd].toFixed(4), rowB.means[nd].toFixed(4), 'the judgements move the figure');

  const md = exportResults(m, 'markdown');
  assert.match(md, /with the user's 2 judgements/, 'the caption names the qrels state and the count');
  assert.ok(md.includes(`${rowB.annotated![nd].toFixed(4)}*† (orig ${rowB.means[nd].toFixed(4)}) [`), 'the figure on the qrels in effect, the original one, the range');
  assert.match(md, /\| minilm-faiss\.knarfthekant - bm25okapi\.knarfthekant \| nDCG@10 \| \+0\.\d{4} \| \[\+0\.\d{4}, \+0\.\d{4}\] \|.*\| (settled|open: \d+ holes in \d+ queries can flip it) \|/, 'the comparison with its direction, interval and verdict');

  // Text fields are quoted (src/core/formats/csv.ts); no field here holds a comma.
  const fields = (line: string) => line.split(',').map((f) => f.replace(/^"(.*)"$/, '$1'));
  const csv = exportResults(m, 'csv').trim().split('\r\n');
  const head = fields(csv[0]);
  const row = fields(csv.find((l) => l.startsWith('"minilm'))!);
  const col = (name: string) => row[head.indexOf(name)];
  assert.equal(col('qrels'), 'annotated');
  assert.equal(col('judgements'), '2');
  assert.equal(Number(col('ndcg_cut_10')).toFixed(4), rowB.annotated![nd].toFixed(4));
  assert.equal(Number(col('ndcg_cut_10_original')).toFixed(4), rowB.means[nd].toFixed(4));
  // Full useful precision (12 decimals, as the means).
  assert.ok(Math.abs(Number(col('ndcg_cut_10_lo')) - rowB.intervals![nd]!.lo) < 1e-12);
  assert.ok(Math.abs(Number(col('ndcg_cut_10_ci_lo')) - rowB.vsBaseline![nd]!.ci!.lo) < 1e-12);
  assert.equal(col('ndcg_cut_10_verdict'), rowB.settled![nd]!.verdict);

  const tex = exportResults(m, 'latex');
  assert.match(tex, /with the user's 2 judgements/);
  assert.ok(tex.includes(`{\\scriptsize orig ${rowB.means[nd].toFixed(4)} [`), 'LaTeX: the original figure and the range beneath');
  assert.match(tex, /\$\\Delta\$ = b - a & Measure/);

  // Every pair: the pairs follow, in each format.
  const all = resultsModel(s, A, { skipped: [] }, { testing: { compare: 'all-pairs', correction: 'bh' } });
  assert.match(exportResults(all, 'markdown'), /Every pair of runs is compared, Benjamini-Hochberg corrected/);
  const pairs = exportResults(all, 'csv').split('\r\n\r\n')[1].trim().split('\r\n');
  assert.equal(pairs[0].split(',').slice(0, 3).join(','), '"a","b","measure"');
  assert.equal(pairs.length, 1 + 5, 'one pair, five tested measures');
});

test('exports carry each comparison\'s estimate with the holes judged, its interval rounded outward and its verdict naming the run; none before a hole is judged', () => {
  const estimate = (judged: number): EstimateView => ({ now: 0.04, estimate: 0.05, lo: 0.012345, hi: 0.098765, holes: 100, judged, depth: 100, verdict: 'b better', on: { state: 'annotated', judgements: judged, version: 1 } });
  const withEstimate = (judged: number): ResultsModel => {
    const m = model([{ key: 'a', label: 'base|line', mean: 0.5 }, { key: 'b', label: '<i>new</i>', mean: 0.54, delta: 0.04 }]);
    m.rows[1].compared = [estimate(judged)];
    return m;
  };
  const md = exportResults(withEstimate(3), 'markdown');
  assert.match(md, /\| Δ estimated \(95 %\) \| estimated verdict \|/);
  assert.match(md, /\| \+0\.0500 \[\+0\.0123, \+0\.0988\] \| &#60;i&#62;new&#60;\/i&#62; better \|/);
  assert.match(md, /Estimated: b - a with every hole of both runs' top 100 judged/);
  const csv = exportResults(withEstimate(3), 'csv').trim().split('\r\n');
  const head = csv[0].split(',');
  const at = head.indexOf('"ndcg_cut_10_estimate"');
  assert.deepEqual(head.slice(at), ['"ndcg_cut_10_estimate"', '"ndcg_cut_10_estimate_lo"', '"ndcg_cut_10_estimate_hi"', '"ndcg_cut_10_estimate_verdict"', '"ndcg_cut_10_estimate_judged"']);
  assert.deepEqual(csv[2].split(',').slice(at), ['0.05', '0.012345', '0.098765', '"b better"', '3']);
  assert.deepEqual(csv[1].split(',').slice(at), ['', '', '', '', ''], 'the baseline has no comparison');
  const tex = exportResults(withEstimate(3), 'latex');
  assert.match(tex, /\+0\.0500 \[\+0\.0123, \+0\.0988\] & \$<\$i>new\$<\$\/i> better \\\\/);
  // No hole judged: the estimate is the model's prior, which the panel does not show either.
  const none = exportResults(withEstimate(0), 'markdown');
  assert.doesNotMatch(none, /\+0\.0500|Estimated:/);
  assert.deepEqual(exportResults(withEstimate(0), 'csv').trim().split('\r\n')[2].split(',').slice(at), ['', '', '', '', '']);
});
