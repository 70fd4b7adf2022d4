// Exports of the results table take run names and file paths from files: CSV must not hand a spreadsheet a
// formula, Markdown must not carry HTML, and floating-point noise must not print as a signed tiny number.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportResults } from '../../../../src/core/split/exportTable';
import { boxSummary } from '../../../../src/core/split/results';
import { RESULT_MEASURES } from '../../../../src/core/split/scores';
import type { Comparison, ResultsModel } from '../../../../src/protocol/webview';

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
  assert.match(exportResults(base, 'csv'), /^"a\|b_c%""d,e","x",1,0.5,{8},1,1\r$/m);
  assert.match(exportResults(base, 'latex'), /a\|b\\_c\\%"d,e \(baseline\)/);
});

test('LaTeX: a line break in a run name (from a file name) does not break the tabular row', () => {
  const latex = exportResults(model([{ key: '/runs/a.trec', label: 'bm25\n\nrun\rx', mean: 0.5 }, { key: '/runs/b.trec', label: 'b', mean: 0.4 }]), 'latex');
  const rows = latex.split('\n').filter((l) => l.endsWith('\\\\'));
  assert.equal(rows.length, 3, latex);
  assert.match(rows[1], /^bm25 run x \(baseline\) & 0\.5000 \\\\$/);
  assert.ok(!/\n\n/.test(latex), 'no blank line (a paragraph break) anywhere');
});
